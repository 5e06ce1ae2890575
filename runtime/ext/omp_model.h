/* omp_model.h: what omp.c offers: the model of parallel regions and tasks
 * (docs/semantics.md, "Parallel regions and tasks"), which two sources feed: gomp.c,
 * libgomp's entry points wrapped at the link, and ompt.c, libomp's OMPT callbacks.
 * Each hands the model the same moments: a team opened and joined, a member's body
 * begun and ended, a task made, a task's body begun and ended, a barrier's wait; the
 * rest is the model's.  Not installed. */
#ifndef CPROF_EXT_OMP_MODEL_H
#define CPROF_EXT_OMP_MODEL_H

#include "../core/core.h"

/* Profiled units are loaded, the program has not stopped profiling, and this thread
 * may count; and this thread's worker, made if need be (null if it may not count). */
int cprof_omp_counting(void);
struct cprof_worker *cprof_omp_self(void);
/* This thread's worker if it follows the program's constructs now, made if need be;
 * else null.  One that has a worker already tests one flag. */
static inline struct cprof_worker *cprof_omp_follower(void)
{
    struct cprof_worker *w = cprof_pending.worker;
    if (__builtin_expect(w != &cprof_no_worker, 1))
        return cprof_following() ? w : 0;
    return cprof_omp_counting() ? cprof_omp_self() : 0;
}
/* The construct the rewritten code left for the next request of kind on this thread,
 * taken (null: none, or one of another kind). */
static inline const struct cprof_site *cprof_omp_take(int kind)
{
    const struct cprof_site *s = cprof_pending.construct;
    if (!s || s->construct != kind)
        return 0;
    cprof_pending.construct = 0;
    return s;
}

/* A worker's task state, off its thread's stack: the tasks a thread runs nest, so a
 * LIFO serves, in chunks kept once made. */
struct cprof_lifo {
    struct cprof_lifo *prev, *next;
    char *top, *end;
};
void *cprof_lifo_push_slow(struct cprof_worker *w, size_t size, size_t align);
/* size bytes aligned to align (a power of two), until cprof_lifo_pop(w, them); each
 * keeps the top it was pushed at just below it. */
static inline void *cprof_lifo_push(struct cprof_worker *w, size_t size, size_t align)
{
    struct cprof_lifo *c = w->lifo;
    if (__builtin_expect(!c, 0))
        return cprof_lifo_push_slow(w, size, align);
    uintptr_t at = ((uintptr_t)c->top + sizeof(char *) + align - 1) & ~(uintptr_t)(align - 1);
    char *p = (char *)at;
    if (__builtin_expect(p > c->end || size > (size_t)(c->end - p), 0))
        return cprof_lifo_push_slow(w, size, align);
    ((char **)p)[-1] = c->top;
    c->top = p + size;
    return p;
}
static inline void cprof_lifo_pop(struct cprof_worker *w, void *p)
{
    struct cprof_lifo *c = w->lifo;
    c->top = ((char **)p)[-1];
    if (c->top == (char *)(c + 1) && c->prev)
        w->lifo = c->prev;
}

/* What a task carries from where it was made to where its body runs. */
struct cprof_task_origin {
    /* On the creator's worker: the body's context there, under the creator's (null:
     * no calling contexts kept; its parent's <other> past the node limit), and the
     * construct's record. */
    struct cprof_node *node;
    struct cprof_construct_rec *rec;
    const struct cprof_worker *creator;
    unsigned char kase;                 /* of the body: as a call at the construct, not a
                                           parallel construct of the creator's */
    unsigned char team;                 /* made in a team: its body runs in it */
    int al;                             /* the active level it was made (and runs) at */
};

/* One execution of a region's body on one worker, or of a task: the innermost one a
 * worker runs takes the waits at the barriers it meets. */
struct cprof_execution {
    struct cprof_construct_rec *rec;
    uint64_t barrier_wait;
    uint64_t last_sync;             /* its start, or the end of the last barrier in it */
    struct cprof_execution *outer;
    int al;                         /* its active level (-1: not asked yet) */
    unsigned char team;             /* it runs in a team (a region's, or its task's) */
    /* The origin of the last task made in it, at construct made_site from context
     * made_ctx (null: none yet): within one execution on its thread, the active level
     * and the team sizes a task's case depends on do not change. */
    const struct cprof_site *made_site;
    const struct cprof_node *made_ctx;
    struct cprof_task_origin made;
};

/* A body: a region's on one member, or a task's. */
struct cprof_body {
    struct cprof_worker *w;
    struct cprof_frame *frame;
    struct cprof_execution e;
    uint64_t t0, tasks0;            /* its start, and the worker's task time then */
    uint64_t calls0;                /* the worker's calls then */
    uint64_t *counted;              /* the count its opening added to */
    struct cprof_body_nest in;      /* at its end: its frame's time, and the activations
                                       nested directly in it */
};

/* What a member tells the opener of its execution: its time then, and the time it
 * had spent in tasks, which it runs while it waits at the closing barrier. */
struct cprof_member {
    struct cprof_construct_rec *rec;    /* null: no such member, or not counted */
    const struct cprof_worker *w;
    uint64_t busy, end, tasks;
};

/* One execution of a parallel region, kept by its opener until the team joined. */
struct cprof_team {
    const struct cprof_site *construct;
    const struct cprof_node *ctx;       /* the opener's context, in its worker's tree */
    const struct cprof_worker *opener;
    int kase;                           /* the construct's case at the opener: C-S (2) if
                                           it was entered concurrently, + 1 if one of its
                                           routine's own constructs around it is active */
    int cap;
    struct cprof_member *members;       /* by thread number, cap of them */
};

/* Contexts of the opener's path looked at for a member's team time: a region opened
 * deeper leaves the routines above them out. */
#define CPROF_TEAM_PATH_MAX 64

/* A member's body, and, on a member other than the opener, the routines its body
 * works for and the time each had been open on this thread then (docs/semantics.md,
 * "Team time"). */
struct cprof_member_body {
    struct cprof_body b;
    int followed;
    int n, self;
    struct cprof_routine_rec *rec[CPROF_TEAM_PATH_MAX];
    uint64_t open0[CPROF_TEAM_PATH_MAX];
};

/* The opener: the construct left for it taken, its context and case.  0 if the region
 * is not followed (then the source runs it as the program asked). */
int cprof_team_begin(struct cprof_team *t, struct cprof_member *m, int cap);
/* After the team joined: each member's wait at the closing barrier, the imbalance. */
void cprof_team_end(struct cprof_team *t);
/* A member of t's team (size threads, this one index) begins its body, or ends it;
 * sp: the stack position no activation in the body is above. */
void cprof_member_begin(struct cprof_member_body *mb, const struct cprof_team *t, int size,
                        const void *sp);
void cprof_member_end(struct cprof_member_body *mb, const struct cprof_team *t, int index);
/* An upper bound of a team's size: what it asks for, or the default. */
int cprof_team_cap(unsigned num_threads);

/* A task construct s met on w, the creator: its origin, and the construct's count of
 * tasks opened (a taskloop's counts once, for all its tasks). */
void cprof_task_made_slow(struct cprof_task_origin *o, struct cprof_worker *w,
                          const struct cprof_site *s, int opened);
static inline void cprof_task_made(struct cprof_task_origin *o, struct cprof_worker *w,
                                   const struct cprof_site *s, int opened)
{
    const struct cprof_execution *e = w->running;
    if (__builtin_expect(!e || e->made_site != s || e->made_ctx != w->top[-1].ctx || !e->made_ctx,
                         0))
        return cprof_task_made_slow(o, w, s, opened);
    *o = e->made;
    o->rec->sum.opened += (uint64_t)opened;
}
/* The body of a task of origin o begins on this thread, worker w, and ends.  A body
 * that is no task of the program's, or the later part of one (libomp's taskloop
 * generators, an untied task's parts), takes back the execution it counted. */
void cprof_task_begin(struct cprof_body *b, struct cprof_worker *w,
                      const struct cprof_task_origin *o, const void *sp);
void cprof_task_uncount(struct cprof_body *b);
void cprof_task_close(struct cprof_body *b);

/* A barrier's wait: of the innermost execution on this worker, and of the construct
 * that ends there (the one the rewritten code left, or an unnamed barrier). */
struct cprof_wait {
    struct cprof_worker *w;
    const struct cprof_site *construct;
    uint64_t t0, tasks0;
};
void cprof_wait_begin(struct cprof_wait *x);
void cprof_wait_end(struct cprof_wait *x);

#endif
