/* gomp.c: parallel regions and tasks, seen where the program asks libgomp for them: the
 * model's source (omp.c) for libgomp.
 *
 * libgomp has no OMPT (up to gcc 15's: docs/semantics.md, "OpenMP runtimes"), and a
 * parallel loop that calls no routine runs no hook of ours.  So cprof-cc links
 * profiled programs with `ld --wrap` for libgomp's entry points that start a team
 * (GOMP_parallel and the combined constructs' forms), create a task (GOMP_task,
 * GOMP_taskloop) and wait at a barrier (the list is the __wrap_ functions below: the
 * Makefile derives the linker's options from this object).  Each __wrap_ function
 * hands libgomp a body of ours that runs the program's on every thread that runs it,
 * between the model's begin and end.
 *
 * libomp has the same entry points, for code gcc compiled: under libomp (OMPT
 * observes them there) or unobserved runtimes, each wrapper hands the call straight
 * to the runtime.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "omp_model.h"

/* ---- parallel regions ---- */

/* One execution of a parallel region, on the opener's stack: what the members run
 * instead of the program's fn and data.  libgomp reads the first word of
 * GOMP_parallel_reductions' data (the reductions' array), so that word is the
 * program's. */
struct team {
    void *front;
    void (*fn)(void *);
    void *data;
    struct cprof_team t;
};

static void run_member(void *arg)
{
    struct team *t = arg;
    struct cprof_member_body mb;
    cprof_member_begin(&mb, &t->t, omp_get_num_threads(), __builtin_dwarf_cfa());
    t->fn(t->data);
    cprof_member_end(&mb, &t->t, omp_get_thread_num());
}

static int team_begin(struct team *t, void (*fn)(void *), void *data, struct cprof_member *m,
                      int cap)
{
    if (cprof_omp_source != CPROF_OMP_LINK)
        return 0;
    t->fn = fn;
    t->data = data;
    return cprof_team_begin(&t->t, m, cap);
}

void __real_GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
void __wrap_GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    int cap = cprof_team_cap(num_threads);
    struct cprof_member m[cap];
    struct team t;
    if (!team_begin(&t, fn, data, m, cap))
        return __real_GOMP_parallel(fn, data, num_threads, flags);
    __real_GOMP_parallel(run_member, &t, num_threads, flags);
    cprof_team_end(&t.t);
}

unsigned __real_GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads,
                                         unsigned flags);
unsigned __wrap_GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads,
                                         unsigned flags)
{
    int cap = cprof_team_cap(num_threads);
    struct cprof_member m[cap];
    struct team t;
    if (!team_begin(&t, fn, data, m, cap))
        return __real_GOMP_parallel_reductions(fn, data, num_threads, flags);
    t.front = *(void **)data;
    unsigned r = __real_GOMP_parallel_reductions(run_member, &t, num_threads, flags);
    cprof_team_end(&t.t);
    return r;
}

void __real_GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                   unsigned count, unsigned flags);
void __wrap_GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                   unsigned count, unsigned flags)
{
    int cap = cprof_team_cap(num_threads);
    struct cprof_member m[cap];
    struct team t;
    if (!team_begin(&t, fn, data, m, cap))
        return __real_GOMP_parallel_sections(fn, data, num_threads, count, flags);
    __real_GOMP_parallel_sections(run_member, &t, num_threads, count, flags);
    cprof_team_end(&t.t);
}

/* The combined parallel loops: with a chunk size (static, dynamic, guided) or without
 * (runtime schedules). */
#define PARALLEL_LOOP(name, ...) \
    void __real_GOMP_parallel_loop_##name(void (*fn)(void *), void *data, unsigned num_threads, \
                                          long start, long end, long incr, __VA_ARGS__); \
    void __wrap_GOMP_parallel_loop_##name(void (*fn)(void *), void *data, unsigned num_threads, \
                                          long start, long end, long incr, __VA_ARGS__)
#define PARALLEL_LOOP_BODY(name, ...) \
    { \
        int cap = cprof_team_cap(num_threads); \
        struct cprof_member m[cap]; \
        struct team t; \
        if (!team_begin(&t, fn, data, m, cap)) \
            return __real_GOMP_parallel_loop_##name(fn, data, num_threads, start, end, incr, \
                                                    __VA_ARGS__); \
        __real_GOMP_parallel_loop_##name(run_member, &t, num_threads, start, end, incr, \
                                         __VA_ARGS__); \
        cprof_team_end(&t.t); \
    }
#define CHUNKED(name) \
    PARALLEL_LOOP(name, long chunk, unsigned flags) PARALLEL_LOOP_BODY(name, chunk, flags)
#define UNCHUNKED(name) PARALLEL_LOOP(name, unsigned flags) PARALLEL_LOOP_BODY(name, flags)
CHUNKED(static)
CHUNKED(dynamic)
CHUNKED(guided)
CHUNKED(nonmonotonic_dynamic)
CHUNKED(nonmonotonic_guided)
UNCHUNKED(runtime)
UNCHUNKED(nonmonotonic_runtime)
UNCHUNKED(maybe_nonmonotonic_runtime)

/* ---- barriers ---- */

/* The wait at a barrier of libgomp's. */
#define BARRIER(type, name) \
    type __real_GOMP_##name(void); \
    type __wrap_GOMP_##name(void) \
    { \
        if (cprof_omp_source != CPROF_OMP_LINK) \
            return __real_GOMP_##name(); \
        struct cprof_wait x; \
        cprof_wait_begin(&x); \
        type r = (type)__real_GOMP_##name(); \
        cprof_wait_end(&x); \
        return r; \
    }
BARRIER(bool, barrier_cancel)
BARRIER(bool, loop_end_cancel)
BARRIER(bool, sections_end_cancel)
#undef BARRIER
#define BARRIER(name) \
    void __real_GOMP_##name(void); \
    void __wrap_GOMP_##name(void) \
    { \
        if (cprof_omp_source != CPROF_OMP_LINK) \
            return __real_GOMP_##name(); \
        struct cprof_wait x; \
        cprof_wait_begin(&x); \
        __real_GOMP_##name(); \
        cprof_wait_end(&x); \
    }
BARRIER(barrier)
BARRIER(loop_end)
BARRIER(sections_end)

/* ---- tasks ---- */

/* What libgomp itself reads and writes at the start of a task's data block (its
 * struct gomp_data_head): taskloop writes each task's bounds to the first two words
 * and reads the reduction's array from the third (GOMP_TASK_FLAG_REDUCTION), GOMP_task
 * writes a detached task's event to the first (GOMP_TASK_FLAG_DETACH).  libgomp's
 * gomp-constants.h, gcc 12 to 15. */
#define FLAG_DEPEND (1u << 3)
#define FLAG_REDUCTION (1u << 12)
#define FLAG_DETACH (1u << 13)
enum { FRONT_WORDS = 3 };

/* Put before the program's data in the block libgomp is given, which it copies (or
 * the program's copy function fills).  Its front stands for the program's block's
 * first words there: what libgomp reads there is the program's, and what it writes
 * there reaches the program's data before its body runs. */
struct task_head {
    long front[FRONT_WORDS];
    void (*fn)(void *);
    void (*cpyfn)(void *, void *);
    void *orig;                         /* the program's data, for its cpyfn */
    struct cprof_task_origin o;
    int off;                            /* where the program's data starts */
    unsigned char back;                 /* bytes of the front the body's data takes */
    unsigned char detached;             /* libgomp writes its event to the front */
    unsigned char held;                 /* the block is in use: its body runs on it, or
                                           its wrapper waits for libgomp to return */
};

/* After the program's data, the rest of a block on the LIFO: libgomp is not told of
 * it.  Most wrappers hand the block to libgomp in a tail call, so that no frame of
 * theirs stays under the task's body: nothing pops it then, and the next task made on
 * the worker pops the blocks that are no longer held (reap).  A block is no longer
 * needed once libgomp returned, and it returns before it runs another task but where
 * the task has depend clauses (it may first run the tasks it depends on): those, and
 * detached ones, whose event is written back after, keep the wrapper's frame
 * (task_followed). */
struct cprof_task_call {
    struct task_head *h;
    struct cprof_task_call *below;      /* the worker's block made before, not yet popped */
    long size, align;                   /* the block's, as libgomp is told */
    bool if_clause;                     /* task_followed's call */
    unsigned flags;
    int priority;
    void **depend;
    void *detach;
};

/* Pops the blocks on top of w's LIFO no longer held. */
static __attribute__((noinline)) void reap_slow(struct cprof_worker *w)
{
    struct cprof_task_call *c;
    while ((c = w->blocks) && !c->h->held && (char *)(c + 1) == w->lifo->top) {
        w->blocks = c->below;
        cprof_lifo_pop(w, c->h);
    }
}

static inline void reap(struct cprof_worker *w)
{
    struct cprof_task_call *c = w->blocks;
    if (c && !c->h->held)
        reap_slow(w);
}

/* The body of task h begins on this thread: its record, on the worker's LIFO; null if
 * the task is not followed (the program stopped profiling, or the thread may not
 * count).  Apart from its callers, as task_close is: their frames, under the program's,
 * keep the least stack. */
static __attribute__((noinline)) struct cprof_body *task_open(struct task_head *h, const void *sp)
{
    h->held++;
    struct cprof_worker *w = cprof_omp_follower();
    if (!w)
        return 0;
    struct cprof_body *b = cprof_lifo_push(w, sizeof *b, _Alignof(struct cprof_body));
    cprof_task_begin(b, w, &h->o, sp);
    return b;
}

/* It ended; its record is on the LIFO, under the blocks of the tasks it made. */
static __attribute__((noinline)) void task_close(struct cprof_body *b)
{
    cprof_task_close(b);
    reap(b->w);
    cprof_lifo_pop(b->w, b);
}

static void run_task(void *arg)
{
    struct task_head *h = arg;
    void *data = (char *)arg + h->off;
    if (h->back)
        memcpy(data, h->front, h->back);
    struct cprof_body *b = task_open(h, __builtin_dwarf_cfa());
    h->fn(data);
    h->held--;
    if (b)
        task_close(b);
}

/* libgomp's writes to the source block's front are the program's block's under gcc,
 * and its copy function reads them there. */
static void copy_task(void *to, void *from)
{
    const struct task_head *h = from;
    memcpy(to, h, sizeof *h);
    if (h->detached)
        memcpy(h->orig, h->front, sizeof(void *));
    h->cpyfn((char *)to + h->off, h->orig);
}

/* The block of a task of the program's (fn, data, ...), its head first, its call after
 * the program's data, on w's LIFO.  Only taskloop and a detached task have libgomp
 * read or write the block's front (front: mirror it). */
static __attribute__((noinline)) struct cprof_task_call *block_new(struct cprof_worker *w,
    void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
    unsigned flags, int taskloop)
{
    const struct cprof_site *s = cprof_omp_take(CPROF_CONSTRUCT_TASK);
    reap(w);
    long align = arg_align > (long)_Alignof(struct task_head) ? arg_align
                                                               : (long)_Alignof(struct task_head);
    long off = ((long)sizeof(struct task_head) + align - 1) & -align;    /* a power of two */
    long at = (off + arg_size + (long)_Alignof(struct cprof_task_call) - 1)
              & -(long)_Alignof(struct cprof_task_call);
    struct task_head *h = cprof_lifo_push(w, (size_t)at + sizeof(struct cprof_task_call),
                                          (size_t)align);
    struct cprof_task_call *c = (struct cprof_task_call *)((char *)h + at);
    *h = (struct task_head){ .fn = fn, .cpyfn = cpyfn, .orig = data, .off = (int)off };
    cprof_task_made(&h->o, w, s, 1);
    c->h = h;
    c->below = w->blocks;
    c->size = off + arg_size;
    c->align = align;
    c->flags = flags;
    w->blocks = c;
    /* What libgomp reads of the front is the program's; what it writes there, the
     * body's data takes: all of it for a byte copy of the program's block, else only
     * taskloop's bounds (a copy function made the rest from the program's block, a
     * detached task's event included, copy_task). */
    h->detached = !taskloop && (flags & FLAG_DETACH) && data;
    if (taskloop || h->detached) {
        if (!cpyfn) {
            h->back = arg_size < (long)sizeof h->front ? (unsigned char)arg_size : sizeof h->front;
            memcpy(h->front, data, h->back);
        } else if (taskloop) {
            h->back = 2 * sizeof(long);
            if (flags & FLAG_REDUCTION)
                h->front[2] = ((const long *)data)[2];
        }
    }
    if (!cpyfn && arg_size)
        memcpy((char *)h + off, data, (size_t)arg_size);
    return c;
}

void __real_GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                      long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
                      void *detach);

/* ---- if(0) tasks: no block of ours ----
 * An undeferred task's body runs before GOMP_task returns, on this thread, with the
 * program's data: when libgomp is sure to run it (if(0), no copy function, no
 * cancellation that would skip it), its head waits on the worker's LIFO and the
 * wrapper hands over to libgomp in a tail call, so that a recursion of if(0) tasks
 * costs the stack gcc's build does but for run_task_inline's frame. */
struct cprof_inline_task {
    struct task_head h;
    struct cprof_body b;
    int followed;
    struct cprof_inline_task *outer;
};

static __attribute__((noinline)) struct cprof_inline_task *inline_open(void *data, const void *sp)
{
    struct cprof_worker *w = cprof_self;
    struct cprof_inline_task *p = w ? w->inline_tasks : 0;
    if (!p || p->h.orig != data) {
        fputs("cprof: internal error: an if(0) task's body ran without its head\n", stderr);
        abort();
    }
    w->inline_tasks = p->outer;
    p->followed = cprof_omp_counting();
    if (p->followed)
        cprof_task_begin(&p->b, w, &p->h.o, sp);
    return p;
}

static __attribute__((noinline)) void inline_close(struct cprof_inline_task *p)
{
    struct cprof_worker *w = (struct cprof_worker *)p->h.o.creator;
    if (p->followed)
        cprof_task_close(&p->b);
    reap(w);
    cprof_lifo_pop(w, p);
}

static void run_task_inline(void *data)
{
    struct cprof_inline_task *p = inline_open(data, __builtin_dwarf_cfa());
    p->h.fn(p->h.orig);     /* data: one register less kept across the call */
    inline_close(p);
}

/* libgomp skips a task construct met after a cancellation, without running it; 1 or
 * 0 once known. */
static int known_cancellation = -1;
static int cancellation(void)
{
    if (known_cancellation < 0)
        known_cancellation = omp_get_cancellation();
    return known_cancellation;
}

static __attribute__((noinline)) struct cprof_task_call *task_begin(struct cprof_worker *w,
    void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
    bool if_clause, unsigned flags, void **depend, int priority, void *detach)
{
    struct cprof_task_call *c = block_new(w, fn, data, cpyfn, arg_size, arg_align, flags, 0);
    c->h->held = 1;
    c->if_clause = if_clause;
    c->depend = depend;
    c->priority = priority;
    c->detach = detach;
    return c;
}

/* A task whose block is held across GOMP_task: its arguments, so that the wrapper
 * still hands over in a tail call, and a frame that keeps only the call. */
static __attribute__((noinline)) void task_followed(struct cprof_worker *w, void (*fn)(void *),
    void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool if_clause,
    unsigned flags, void **depend, int priority, void *detach)
{
    struct cprof_task_call *c = task_begin(w, fn, data, cpyfn, arg_size, arg_align, if_clause,
                                           flags, depend, priority, detach);
    __real_GOMP_task(run_task, c->h, c->h->cpyfn ? copy_task : 0, c->size, c->align, c->if_clause,
                     c->flags, c->depend, c->priority, c->detach);
    /* What libgomp wrote to the front is in the program's block too, as under gcc (a
     * detached task's event). */
    if (c->h->detached)
        memcpy(c->h->orig, c->h->front, sizeof(void *));
    c->h->held = 0;
    reap((struct cprof_worker *)c->h->o.creator);
}

/* A task in a team: its head goes straight into the block libgomp makes of it, through
 * a copy function of cprof's that reads it from here (libgomp calls it on this thread
 * before GOMP_task returns), with the program's data or what its copy function makes;
 * no block of cprof's to keep. */
struct task_spec {
    struct task_head h;
    void *data;
    void (*cpyfn)(void *, void *);
    long arg_size, align;               /* the program's data's; the block's alignment */
};
static __thread struct task_spec spec;

static void copy_spec(void *to, void *from)
{
    const struct task_spec *sp = from;
    memcpy(to, &sp->h, sizeof sp->h);
    char *data = (char *)to + sp->h.off;
    if (sp->cpyfn)
        sp->cpyfn(data, sp->data);
    else
        memcpy(data, sp->data, (size_t)sp->arg_size);
}

static __attribute__((noinline)) struct task_spec *spec_fill(struct cprof_worker *w,
    void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align)
{
    struct task_spec *sp = &spec;
    /* back, held and detached stay 0: no task of this path has them */
    if (__builtin_expect(arg_align > (long)_Alignof(struct task_head), 0)) {
        sp->align = arg_align;
        sp->h.off = (int)(((long)sizeof(struct task_head) + arg_align - 1) & -arg_align);
    } else {
        sp->align = _Alignof(struct task_head);
        sp->h.off = sizeof(struct task_head);
    }
    sp->h.fn = fn;
    cprof_task_made(&sp->h.o, w, cprof_omp_take(CPROF_CONSTRUCT_TASK), 1);
    sp->data = data;
    sp->cpyfn = cpyfn;
    sp->arg_size = arg_size;
    return sp;
}

/* Every task the straight path below does not take: not followed, with depend or
 * detach clauses, if(0), made outside any team or after a cancellation. */
static __attribute__((noinline)) void task_general(void (*fn)(void *), void *data,
    void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool if_clause, unsigned flags,
    void **depend, int priority, void *detach)
{
    struct cprof_worker *w;
    if (cprof_omp_source != CPROF_OMP_LINK)
        return __real_GOMP_task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
                                priority, detach);
    if (!(w = cprof_omp_follower())) {
        cprof_omp_take(CPROF_CONSTRUCT_TASK);
        return __real_GOMP_task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
                                priority, detach);
    }
    if (flags & (FLAG_DEPEND | FLAG_DETACH))
        return task_followed(w, fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
                             priority, detach);
    /* libgomp runs a task at once, on the program's data when it has no copy function,
     * if it is if(0) or made outside any team; a cancellation may skip it. */
    if (cpyfn || cancellation() || (if_clause && omp_get_level())) {
        struct task_spec *sp = spec_fill(w, fn, data, cpyfn, arg_size, arg_align);
        return __real_GOMP_task(run_task, sp, copy_spec, sp->h.off + arg_size, sp->align,
                                if_clause, flags, depend, priority, detach);
    }
    const struct cprof_site *s = cprof_omp_take(CPROF_CONSTRUCT_TASK);
    struct cprof_inline_task *p = cprof_lifo_push(w, sizeof *p, _Alignof(struct cprof_inline_task));
    p->h = (struct task_head){ .fn = fn, .orig = data };
    cprof_task_made(&p->h.o, w, s, 1);
    p->outer = w->inline_tasks;
    w->inline_tasks = p;
    return __real_GOMP_task(run_task_inline, data, 0, arg_size, arg_align, if_clause, flags,
                            depend, priority, detach);
}

/* The straight path: a task made in a team (the worker runs a region's body, or a
 * task's made in one: an undeferred task may run outside any team), its head put
 * together here and handed to libgomp in a tail call. */
void __wrap_GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                      long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
                      void *detach)
{
    struct cprof_worker *w = cprof_pending.worker;
    if (__builtin_expect(cprof_omp_source != CPROF_OMP_LINK || w == &cprof_no_worker ||
                         !cprof_following() || !if_clause || !w->running || !w->running->team ||
                         (flags & (FLAG_DEPEND | FLAG_DETACH)) || known_cancellation, 0))
        return task_general(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
                            priority, detach);
    struct task_spec *sp = spec_fill(w, fn, data, cpyfn, arg_size, arg_align);
    return __real_GOMP_task(run_task, sp, copy_spec, sp->h.off + arg_size, sp->align, if_clause,
                            flags, depend, priority, detach);
}

#define TASKLOOP(name, type) \
    void __real_GOMP_##name(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), \
                            long arg_size, long arg_align, unsigned flags, unsigned long num_tasks, \
                            int priority, type start, type end, type step); \
    void __wrap_GOMP_##name(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), \
                            long arg_size, long arg_align, unsigned flags, unsigned long num_tasks, \
                            int priority, type start, type end, type step) \
    { \
        _Static_assert(sizeof(type) == sizeof(long), "taskloop bounds are the front's words"); \
        if (cprof_omp_source != CPROF_OMP_LINK) \
            return __real_GOMP_##name(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, \
                                      priority, start, end, step); \
        struct cprof_worker *w = cprof_omp_follower(); \
        if (!w) { \
            cprof_omp_take(CPROF_CONSTRUCT_TASK); \
            return __real_GOMP_##name(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, \
                                      priority, start, end, step); \
        } \
        struct cprof_task_call *c = block_new(w, fn, data, cpyfn, arg_size, arg_align, flags, 1); \
        return __real_GOMP_##name(run_task, c->h, cpyfn ? copy_task : 0, c->size, c->align, \
                                  flags, num_tasks, priority, start, end, step); \
    }
TASKLOOP(taskloop, long)
TASKLOOP(taskloop_ull, unsigned long long)
