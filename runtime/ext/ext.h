/* ext.h: what the runtime's extensions offer each other and start.c (not installed):
 * OpenMP's regions and tasks, tracing, resources, signals, input sizes, control,
 * placement and topology, the stack, the profile's writing.  The core (core/core.h)
 * names none of it (docs/architecture.md, "Rules of the folders"). */
#ifndef CPROF_EXT_H
#define CPROF_EXT_H

#include "../core/core.h"

/* ompt.c's ompt_start_tool, which openmp.c checks the runtime will call. */
struct ompt_start_tool_result_t;
struct ompt_start_tool_result_t *cprof_ompt_start_tool(unsigned int omp_version,
                                                       const char *runtime_version);

/* ---- topology.c: the machine, as the profile describes it (docs/placement.md) ---- */

struct cprof_json;
/* The "machine" section, its topology from cprof-topology (run once, at the first
 * profile written), or why there is none. */
void cprof_topology_write(struct cprof_json *j);
int cprof_topology_core_of(int pu);     /* the logical index of its core; -1 if unknown */

/* ---- control.c: cprof_stop(), cprof_start(), cprof_reset() from the program ---- */

/* A call record's figures that a reset or a stop took out: its figures as they were at
 * the last reset, plus the calls counted while stopped; and the counts (timed and
 * untimed) at the last stop. */
struct cprof_call_base {
    uint64_t v[CPROF_NFIGS][CPROF_NCASES];
    uint64_t adj[CPROF_NADJ];           /* a context's */
    unsigned long long stop_count[2][CPROF_NCASES];
    uint64_t samples[];             /* a context's, cprof_node_extra bytes */
};
/* Start-up: CPROF_START=off begins stopped. */
void cprof_control_start(void);
/* What the profile shows of a record: the record less what was taken out (and a call
 * record's plus its contexts').  The record itself when nothing is, else scratch. */
const struct cprof_call_rec *cprof_call_now(const struct cprof_call_rec *c,
                                            struct cprof_call_rec *scratch);
const struct cprof_routine_rec *cprof_routine_now(const struct cprof_routine_rec *r,
                                                  struct cprof_routine_rec *scratch);
const struct cprof_node *cprof_node_now(const struct cprof_node *n, struct cprof_node *scratch);
/* Its samples[i], less what a reset took out. */
uint64_t cprof_node_samples(const struct cprof_node *n, int i);

/* ---- resources.c: resources beyond time, CPROF_RESOURCES (docs/resources.md) ---- */

struct cprof_resource {
    const char *name, *unit, *event;
    uint32_t type;
    uint64_t config;
    uint64_t period;            /* units per sample; 0: counted only */
    int sampled;                /* charged to contexts by sampling, else counted only */
    int monitored;              /* sampled by the monitor thread (csw, migrations) */
    int available;              /* else reason says why not */
    int opened;                 /* by some worker */
    char reason[400];           /* why not available, or not sampled as asked; what
                                   happened to its sampling signal */
};
/* Start-up, before the first worker: reads CPROF_RESOURCES, installs the handler. */
void cprof_resources_start(void);
/* Whether samples are charged to calling contexts (the facade then keeps each frame's
 * case, by which the side a sample goes to is known). */
int cprof_resources_sampled(void);
/* The resources asked for, in order. */
int cprof_resources(const struct cprof_resource **r);
/* On a listed worker's own thread, at its creation: its counters. */
void cprof_resources_open(struct cprof_worker *w);
/* Worker w's total of resource r so far; *ok 0 if it has no counter. */
uint64_t cprof_resource_read(const struct cprof_worker *w, int r, int *ok);
/* The program is about to set the action of sig (its call named): if cprof samples
 * with it, the sampling moves to another signal first.  Whether cprof samples with it. */
void cprof_resources_signal_taken(int sig, const char *call);
int cprof_resources_signal_owned(int sig);
/* As the profile is written: whether the sampling signal still has cprof's handler. */
void cprof_resources_signals_check(void);
/* Every worker's counters on or off (cprof_start, cprof_stop). */
void cprof_resources_enable(int on);
/* The calling thread's counters off (1) while it writes the profile, on again (0). */
void cprof_resources_writing(int writing);

/* ---- signals.c: the program's sigaction, signal... (ld --wrap), kept off cprof's ---- */

struct sigaction;
/* sigaction itself, for cprof's own actions. */
int cprof_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* The highest realtime signal whose action is the default and that the program never
 * set, other than avoid; 0 if none. */
int cprof_signal_free(int avoid);
/* Who samples with signals (resources.c registers itself as it starts): the program is
 * about to set sig's action by call; whether it samples with sig.  Null: no one. */
struct cprof_signal_owner {
    void (*taken)(int sig, const char *call);
    int (*owned)(int sig);
};
extern struct cprof_signal_owner cprof_signal_owner;

/* ---- trace.c: CPROF_TRACE, a time-stamped trace per worker (docs/tracing.md) ---- */

/* Start-up, the clock known: reads CPROF_TRACE and the rest; whether to trace. */
int cprof_trace_start(void);
int cprof_tracing(void);
/* The traced facade's: frame f of worker w just opened for an entry of routine r (its
 * record rec, case kase) from site id site (-1: from outside), returned; and a frame
 * closing at now. */
struct cprof_frame *cprof_trace_enter(struct cprof_worker *w, const struct cprof_routine *r,
                                      struct cprof_frame *f, struct cprof_routine_rec *rec,
                                      int kase, int site);
void cprof_trace_exit(struct cprof_worker *w, const struct cprof_frame *f, uint64_t now);
/* Frame f just opened for the body of construct c (a parallel region's on one member
 * of its team, or a task's), case kase; returned. */
struct cprof_frame *cprof_trace_body(struct cprof_worker *w, struct cprof_frame *f,
                                     struct cprof_construct_rec *c, int kase);
/* A new worker's trace (tracing on), and an unlisted worker's, at its release. */
void cprof_trace_new(struct cprof_worker *w);
void cprof_trace_free(struct cprof_worker *w);
/* Writes the trace file at path (profile.c names it), with the profile's ns per tick: 0,
 * or -1 after one line on stderr.  *bytes: its size. */
int cprof_trace_write(const char *path, double npt, uint64_t *bytes);
/* The profile's "trace" section (the file at path, named by its base name if beside
 * the profile), and a worker's. */
void cprof_trace_describe(struct cprof_json *j, const char *path, int beside, uint64_t bytes);
void cprof_trace_worker(struct cprof_json *j, const struct cprof_worker *w);

/* ---- placement.c: where each worker ran (docs/placement.md) ---- */

/* Start-up, after the clock: the launch's binding settings and affinity mask. */
void cprof_placement_start(void);
/* On a listed worker's own thread, as it is made: its first observation. */
void cprof_placement_new(struct cprof_worker *w);
/* On w's own thread: the PU it runs on now; idle: it waits for work from here (a team
 * member after its region), and the time until its next observation is no one's. */
void cprof_placement_observe(struct cprof_worker *w, int idle);
/* The same from a signal handler on w's thread (a CPU sample). */
void cprof_placement_sample(struct cprof_worker *w);
/* The PU w was placed on longest. */
int cprof_placement_main_pu(const struct cprof_worker *w);
/* The header's "placement" (the writing thread observed first), and worker w's (w->lock
 * held), with the profile's ns per tick. */
void cprof_placement_write(struct cprof_json *j, double npt);
void cprof_placement_write_worker(struct cprof_json *j, const struct cprof_worker *w, double npt);

/* ---- omp.c: the model of parallel regions and tasks (docs/semantics.md, "Parallel
 * regions and tasks"), which two sources feed: gomp.c, libgomp's entry points wrapped
 * at the link, and ompt.c, libomp's OMPT callbacks.  Each hands the model the same
 * moments: a team opened and joined, a member's body begun and ended, a task made,
 * a task's body begun and ended, a barrier's wait; the rest is the model's. ---- */

/* Profiled units are loaded, the program has not stopped profiling, and this thread
 * may count; and this thread's worker, made if need be (null if it may not count). */
int cprof_omp_counting(void);
struct cprof_worker *cprof_omp_self(void);
/* The construct the rewritten code left for the next request of kind on this thread,
 * taken (null: none, or one of another kind). */
const struct cprof_site *cprof_omp_take(int kind);

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

/* One execution of a region's body on one worker, or of a task: the innermost one a
 * worker runs takes the waits at the barriers it meets. */
struct cprof_execution {
    struct cprof_construct_rec *rec;
    uint64_t barrier_wait;
    uint64_t last_sync;             /* its start, or the end of the last barrier in it */
    struct cprof_execution *outer;
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
};
/* A task construct s met on w, the creator: its origin, and the construct's count of
 * tasks opened (a taskloop's counts once, for all its tasks). */
void cprof_task_made(struct cprof_task_origin *o, struct cprof_worker *w,
                     const struct cprof_site *s, int opened);
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


/* ---- profile.c ---- */

/* Start-up, the facade chosen: its cost measured, the profile's and trace's names
 * found, worker 0 made, the writes at exit registered. */
void cprof_profile_start(void);
/* The last loaded unit unregistered (at exit: its destructor was the last). */
void cprof_last_unit_gone(void);
/* stack.c: lets the initial thread's stack grow past the soft limit it started with. */
void cprof_stack_start(void);
/* stack.c: on another thread's first profiled call: where its stack runs out, one line. */
void cprof_stack_thread(void);

/* ---- sizes.c: input-sensitive profiles (-fcprof-input-size, docs/input-size.md) ----
 * Weak: only a program with a unit compiled with -fcprof-input-size (whose memory
 * accesses call sizes.c's __tsan_* entry points) links sizes.c; in any other these
 * are null and none of it runs. */
/* The facade that wraps chosen with the input sizes' entry and exit, or chosen itself
 * when no instrumented unit started (or in count mode: no frame to size). */
struct cprof_facade cprof_sizes_facade(struct cprof_facade chosen) __attribute__((weak));
/* Whether sizes are kept this run; the header's and worker w's "sizes" sections. */
int cprof_sizes_kept(void) __attribute__((weak));
void cprof_sizes_write_header(struct cprof_json *j) __attribute__((weak));
void cprof_sizes_write_worker(struct cprof_json *j, struct cprof_worker *w, double npt)
    __attribute__((weak));
/* cprof_reset(): the tuples and the header's counts from now on. */
void cprof_sizes_reset(void) __attribute__((weak));
/* libcalls.c: a library call's read (write 0) or write of size bytes at a. */
void cprof_sizes_access(const void *a, size_t size, int write);

#endif
