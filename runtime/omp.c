/* omp.c: parallel regions and tasks, seen where the program asks libgomp for them.
 *
 * libgomp has no OMPT, and a parallel loop that calls no routine runs no hook of
 * ours.  So cprof-cc links profiled programs with `ld --wrap` for libgomp's entry
 * points that start a team (GOMP_parallel and the combined constructs' forms), create
 * a task (GOMP_task, GOMP_taskloop) and wait at a barrier (the list is the __wrap_
 * functions below: the Makefile derives the linker's options from this object).  Each
 * __wrap_ function hands libgomp a body of ours that runs the program's on every
 * thread that runs it (docs/semantics.md, "Parallel regions and tasks"):
 *  - the body is timed on each worker, and the calls made in it hang from a context
 *    for the construct under the opener's (or the task's creator's) context, found or
 *    made in the running worker's own tree from the other worker's, so every thread of
 *    a team sees the opener's whole path;
 *  - the waits at barriers inside the body, the wait at the region's closing barrier
 *    (from the member's end to the opener's return from libgomp) and, for the
 *    opener, the slowest and the mean member's busy time of each execution.
 * The construct is named by its site, which the rewritten code leaves in
 * cprof_pending.construct just before it; a construct cprof-cc did not compile (or one
 * whose clauses opened another region first) is unnamed.
 *
 * Only the owner writes a worker's records, but for end_wait, which the opener of an
 * execution adds to each member's record atomically (and reads its task time).  Nothing here runs per loop
 * iteration: per region execution and member, per task, per barrier.
 */
#include <omp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

_Static_assert((int)CPROF_CONSTRUCT_PARALLEL == (int)CPROF_REGION_PARALLEL
               && (int)CPROF_CONSTRUCT_TASK == (int)CPROF_REGION_TASK
               && (int)CPROF_CONSTRUCT_BARRIER == (int)CPROF_REGION_BARRIER,
               "a site's construct is its regions row's kind");

/* One execution of a region's body on one worker, or of a task: the innermost one a
 * worker runs takes the waits at the barriers it meets. */
struct cprof_execution {
    struct cprof_construct_rec *rec;
    uint64_t barrier_wait;
    uint64_t last_sync;             /* its start, or the end of the last barrier in it */
    struct cprof_execution *outer;
};

/* What a member tells the opener of its execution: its time then, and the time it
 * had spent in tasks, which it runs while it waits at the closing barrier. */
struct member {
    struct cprof_construct_rec *rec;    /* null: no such member, or not counted */
    const struct cprof_worker *w;
    uint64_t busy, end, tasks;
};

/* One execution of a parallel region, on the opener's stack: what the members run
 * instead of the program's fn and data.  libgomp reads the first word of
 * GOMP_parallel_reductions' data (the reductions' array), so that word is the
 * program's. */
struct team {
    void *front;
    void (*fn)(void *);
    void *data;
    const struct cprof_site *construct;
    const struct cprof_node *ctx;       /* the opener's context, in its worker's tree */
    const struct cprof_worker *opener;
    int side;                           /* the opener entered concurrently: C-S (2), else 0 */
    int cap;
    struct member *members;             /* by thread number, cap of them */
};

/* Profiled units are loaded (the profile is not written yet), the program has not
 * stopped profiling, and this thread may count. */
static int counting(void)
{
    return cprof_may_count() && !__atomic_load_n(&cprof_stopped, __ATOMIC_RELAXED)
           && cprof_units_loaded();
}

static struct cprof_construct_rec *rec_of(struct cprof_worker *w, const struct cprof_site *s,
                                          int kind)
{
    struct cprof_construct_rec *c;
    if (s && s->id >= 0 && s->id < w->constructs_cap && (c = w->constructs[s->id]))
        return c;
    return cprof_construct_rec_slow(w, s, kind);
}

/* The construct left for the next request of kind, taken. */
static const struct cprof_site *take_construct(int kind)
{
    const struct cprof_site *s = cprof_pending.construct;
    if (!s || s->construct != kind)
        return 0;
    cprof_pending.construct = 0;
    return s;
}

/* The case of construct s met now, as a call from its site would have: whether the
 * routine around it was entered concurrently (its active levels but those of its own
 * constructs around s), then whether one of those is active. */
static int case_here(const struct cprof_site *s)
{
    int al = omp_get_active_level();
    int k = s && s->d && al ? cprof_active_levels_within(s->d) : 0;
    return (al - k > 0) * 2 + (k > 0);
}

/* The context of the top activation, where a construct met now belongs. */
static const struct cprof_node *context_here(struct cprof_worker *w)
{
    return w->top[-1].ctx;
}

/* ---- another worker's context, in this worker's tree ---- */

#define MAPPED 256

static struct cprof_node *child(struct cprof_worker *w, struct cprof_node *parent,
                                struct cprof_call_rec *key)
{
    struct cprof_node *n = parent->last;
    return n->key == key ? n : cprof_node_slow(w, parent, key);
}

/* This worker's record standing for key, a record of another worker's. */
static struct cprof_call_rec *same_key(struct cprof_worker *w, const struct cprof_call_rec *key)
{
    if (key->callee < 0) {
        struct cprof_construct_rec *theirs = (struct cprof_construct_rec *)key;
        const struct cprof_site *s = key->site >= 0 ? cprof_site_by_id(key->site) : 0;
        return &rec_of(w, s, theirs->kind)->key;
    }
    struct cprof_routine_rec *rec = key->callee < w->routines_cap && w->routines[key->callee]
                                        ? w->routines[key->callee]
                                        : cprof_routine_rec_slow(w, key->callee);
    if (key == &key->rec->ext)
        return &rec->ext;
    struct cprof_call_rec *c = cprof_call_rec_slow(w, key->site, key->callee);
    c->rec = rec;
    return c;
}

/* n's path made in w's tree (a canonical context for n's canonical one).  Another
 * worker's contexts never change their key or parent once made, and the one handed
 * here was made before libgomp passed it on. */
static struct cprof_node *map(struct cprof_worker *w, const struct cprof_node *n)
{
    if (!n || !n->parent)
        return w->root;
    if (!w->mapped) {
        pthread_mutex_lock(&w->lock);
        w->mapped = cprof_worker_alloc(w, MAPPED * sizeof *w->mapped);
        pthread_mutex_unlock(&w->lock);
    }
    size_t slot = ((uintptr_t)n >> 6) % MAPPED;
    if (w->mapped[slot].theirs == n)
        return w->mapped[slot].mine;
    struct cprof_node *parent = map(w, n->parent), *mine;
    if (!n->key)
        mine = parent;              /* past the other worker's limit: its <other> */
    else
        mine = child(w, parent, same_key(w, n->key))->canon;
    w->mapped[slot].theirs = n;
    w->mapped[slot].mine = mine;
    return mine;
}

/* ---- a body: a region's on one member, or a task's ---- */

struct body {
    struct cprof_worker *w;
    struct cprof_frame *frame;
    struct cprof_execution e;
    uint64_t t0, tasks0;            /* its start, and the worker's task time then */
    uint64_t calls0;                /* the worker's calls then */
    struct cprof_body_nest in;      /* at its end: its frame's time, and the activations
                                       nested directly in it */
};

/* This thread's worker, made if need be; null if it may not count. */
static struct cprof_worker *self(void)
{
    return cprof_self ? cprof_self : cprof_self_slow();
}

/* Opens the body of construct s (kind) on worker w, met at context ctx of worker owner
 * (w or another), case kase. */
static __attribute__((noinline)) void body_begin(struct body *b, struct cprof_worker *w, const struct cprof_site *s,
                       int kind, const struct cprof_node *ctx, const struct cprof_worker *owner,
                       int kase, const void *sp)
{
    struct cprof_construct_rec *c = rec_of(w, s, kind);
    b->w = w;
    b->frame = 0;
    if (cprof_clock == CPROF_CLOCK_NONE) {
        c->key.count[kase]++;
    } else {
        struct cprof_node *n = 0;
        if (cprof_paths_on)
            n = child(w, w == owner ? (struct cprof_node *)ctx : map(w, ctx), &c->key);
        b->frame = cprof_body_open(w, c, n, kase, sp);
        if (!b->frame)
            c->key.count[kase]++;
    }
    b->tasks0 = w->task_ticks;
    b->calls0 = w->calls;
    b->t0 = cprof_ticks();
    b->e = (struct cprof_execution){ c, 0, b->t0, w->running };
    w->running = &b->e;
    cprof_placement_observe(w, 0);
}

/* Closes it: returns the busy time (the body's, less its barriers' waits). */
static __attribute__((noinline)) uint64_t body_end(struct body *b, uint64_t now)
{
    struct cprof_worker *w = b->w;
    w->running = b->e.outer;
    b->in = b->frame ? cprof_body_close(w, b->frame) : (struct cprof_body_nest){ 0, 0, 0 };
    return now - b->t0 - b->e.barrier_wait;
}

/* ---- parallel regions ---- */

/* The size of the team running c now, among those it ran with. */
static void count_team(struct cprof_construct_rec *c)
{
    int size = omp_get_num_threads();
    c->sum.team_sum += (uint64_t)size;
    if (size < c->team_min)
        c->team_min = size;
    if (size > c->team_max)
        c->team_max = size;
}

/* Its owner adds to it, the opener of a region reads it when the team has joined. */
static uint64_t tasks_of(const struct cprof_worker *w)
{
    return __atomic_load_n(&w->task_ticks, __ATOMIC_RELAXED);
}

/* Contexts of the opener's path looked at for a member's team time: a region opened
 * deeper leaves the routines above them out. */
#define TEAM_PATH_MAX 64

/* On a member that did not open the region, the routines its body works for
 * (docs/semantics.md, "Team time"): those on the opener's path (its canonical
 * contexts: each routine once, and through the body of an outer region or a task, on
 * to their opener's or creator's), or without contexts the routine whose body has the
 * construct; self, the one of them whose body has it (the innermost one when the
 * construct is unnamed), -1 if none.  Each one's records on this worker, and the time
 * it had been open on this thread when the body began: its activations in the body
 * count that time themselves. */
struct team_path {
    int n, self;
    struct cprof_routine_rec *rec[TEAM_PATH_MAX];
    uint64_t open0[TEAM_PATH_MAX];
};

static uint64_t open_time(const struct cprof_routine_rec *r)
{
    return r->side[CPROF_SIDE_S].time + r->side[CPROF_SIDE_C].time +
           r->side[CPROF_SIDE_C].thread_time;
}

static void team_path_add(struct team_path *p, struct cprof_worker *w, int routine, int self)
{
    struct cprof_routine_rec *r = routine < w->routines_cap && w->routines[routine]
                                      ? w->routines[routine]
                                      : cprof_routine_rec_slow(w, routine);
    if (self)
        p->self = p->n;
    p->rec[p->n] = r;
    p->open0[p->n++] = open_time(r);
}

static void team_path_begin(struct team_path *p, const struct team *t, struct cprof_worker *w)
{
    const struct cprof_routine *named = t->construct ? t->construct->caller : 0;
    int self = named ? named->id : -1, steps = 0;
    p->n = 0;
    p->self = -1;
    if (!cprof_paths_on) {
        if (self >= 0)
            team_path_add(p, w, self, 1);
        return;
    }
    for (const struct cprof_node *c = t->ctx; c && c->parent && steps < TEAM_PATH_MAX;
         c = c->parent, steps++) {
        int id = c->key ? c->key->callee : -1;
        if (id < 0)
            continue;           /* <other>, or a region's or task's context */
        if (self < 0)
            self = id;
        team_path_add(p, w, id, id == self);
    }
}

/* The body ended: its frame's time (its context's on this worker) is team time of the
 * path's routines, less what their own activations in it counted; and, less the
 * activations nested directly in it, team self time of the routine that has it. */
static void team_path_end(const struct team_path *p, const struct body *b)
{
    uint64_t dt = b->in.elapsed, nested = b->w->calls - b->calls0;
    for (int i = 0; i < p->n; i++) {
        uint64_t own = open_time(p->rec[i]) - p->open0[i];
        struct cprof_side *s = &p->rec[i]->side[CPROF_SIDE_TEAM];
        s->time += dt > own ? dt - own : 0;
        s->nested += nested;
    }
    if (p->self < 0)
        return;
    struct cprof_side *s = &p->rec[p->self]->side[CPROF_SIDE_TEAM];
    s->self_time += dt > b->in.time ? dt - b->in.time : 0;
    s->direct += b->in.direct;
}

static void run_member(void *arg)
{
    struct team *t = arg;
    struct body b;
    struct cprof_worker *w;
    if (!counting() || !(w = self())) {
        t->fn(t->data);
        return;
    }
    /* The body runs concurrently if the region or a construct of the opener's around it
     * is active: only known in the team. */
    int d = t->construct ? t->construct->d : 0;
    int kase = t->side + (cprof_active_levels_within(d + 1) > 0);
    body_begin(&b, w, t->construct, CPROF_REGION_PARALLEL, t->ctx, t->opener, kase,
               __builtin_dwarf_cfa());
    struct cprof_construct_rec *c = b.e.rec;
    count_team(c);
    struct team_path path;
    path.n = 0;
    if (b.w != t->opener && b.frame)
        team_path_begin(&path, t, b.w);
    t->fn(t->data);
    /* A worksharing construct whose barrier gcc left out (the region's end is one). */
    cprof_pending.construct = 0;
    uint64_t now = cprof_ticks();
    uint64_t busy = body_end(&b, now);
    cprof_placement_observe(b.w, b.w != t->opener);     /* a member then waits for work */
    if (path.n)
        team_path_end(&path, &b);
    int me = omp_get_thread_num();
    if (me < t->cap)
        t->members[me] = (struct member){ c, b.w, busy, now, tasks_of(b.w) };
}

/* An upper bound of the team's size: what it asks for, or the default. */
static int team_cap(unsigned num_threads)
{
    int n = num_threads ? (int)num_threads : omp_get_max_threads();
    return n < 1 ? 1 : n > 1024 ? 1024 : n;
}

static int team_begin(struct team *t, void (*fn)(void *), void *data, struct member *m, int cap)
{
    const struct cprof_site *s = take_construct(CPROF_CONSTRUCT_PARALLEL);
    struct cprof_worker *w;
    if (!counting() || !(w = self()))
        return 0;
    memset(m, 0, (size_t)cap * sizeof *m);
    *t = (struct team){ 0, fn, data, s, context_here(w), w, case_here(s) & CPROF_CS, cap, m };
    return 1;
}

/* After the team joined: each member's wait at the closing barrier, and the
 * execution's imbalance for the opener. */
static void team_end(struct team *t)
{
    uint64_t now = cprof_ticks(), max = 0, sum = 0;
    int n = 0;
    for (int i = 0; i < t->cap; i++) {
        struct member *m = &t->members[i];
        if (!m->rec)
            continue;
        /* The tasks a member ran at the closing barrier are the region's work, done
         * there rather than in its body: busy, not waiting. */
        uint64_t tasks = tasks_of(m->w) - m->tasks, busy = m->busy + tasks;
        __atomic_fetch_add(&m->rec->sum.end_wait, now - m->end - tasks, __ATOMIC_RELAXED);
        __atomic_fetch_add(&m->rec->sum.end_tasks, tasks, __ATOMIC_RELAXED);
        if (busy > max)
            max = busy;
        sum += busy;
        n++;
    }
    struct cprof_worker *w = cprof_self;
    if (!n || !w)
        return;
    struct cprof_construct_rec *c = rec_of(w, t->construct, CPROF_REGION_PARALLEL);
    c->sum.opened++;
    c->sum.max_busy += max;
    c->sum.mean_busy += sum / (uint64_t)n;
}

void __real_GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
void __wrap_GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    int cap = team_cap(num_threads);
    struct member m[cap];
    struct team t;
    if (!team_begin(&t, fn, data, m, cap))
        return __real_GOMP_parallel(fn, data, num_threads, flags);
    __real_GOMP_parallel(run_member, &t, num_threads, flags);
    team_end(&t);
}

unsigned __real_GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads,
                                         unsigned flags);
unsigned __wrap_GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads,
                                         unsigned flags)
{
    int cap = team_cap(num_threads);
    struct member m[cap];
    struct team t;
    if (!team_begin(&t, fn, data, m, cap))
        return __real_GOMP_parallel_reductions(fn, data, num_threads, flags);
    t.front = *(void **)data;
    unsigned r = __real_GOMP_parallel_reductions(run_member, &t, num_threads, flags);
    team_end(&t);
    return r;
}

void __real_GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                   unsigned count, unsigned flags);
void __wrap_GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                   unsigned count, unsigned flags)
{
    int cap = team_cap(num_threads);
    struct member m[cap];
    struct team t;
    if (!team_begin(&t, fn, data, m, cap))
        return __real_GOMP_parallel_sections(fn, data, num_threads, count, flags);
    __real_GOMP_parallel_sections(run_member, &t, num_threads, count, flags);
    team_end(&t);
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
        int cap = team_cap(num_threads); \
        struct member m[cap]; \
        struct team t; \
        if (!team_begin(&t, fn, data, m, cap)) \
            return __real_GOMP_parallel_loop_##name(fn, data, num_threads, start, end, incr, \
                                                    __VA_ARGS__); \
        __real_GOMP_parallel_loop_##name(run_member, &t, num_threads, start, end, incr, \
                                         __VA_ARGS__); \
        team_end(&t); \
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

/* ---- barriers: a wait of the innermost execution on this worker, and of the
 * construct that ends there ---- */

struct wait {
    struct cprof_worker *w;
    const struct cprof_site *construct;     /* null: a barrier cprof-cc did not name */
    uint64_t t0, tasks0;
};

/* The construct left for the next barrier: a worksharing construct's (without nowait)
 * or a barrier's. */
static const struct cprof_site *take_barrier_construct(void)
{
    const struct cprof_site *s = cprof_pending.construct;
    if (!s || s->construct < CPROF_CONSTRUCT_FOR)
        return 0;
    cprof_pending.construct = 0;
    return s;
}

static void wait_begin(struct wait *x)
{
    x->construct = take_barrier_construct();
    x->w = cprof_self;
    if (x->w && x->w->running) {
        x->tasks0 = x->w->task_ticks;
        x->t0 = cprof_ticks();
    }
}

/* The wait, less the tasks the thread ran meanwhile (a barrier runs the team's pending
 * tasks), is the execution's; the construct's are the wait and the time since the
 * worker's last synchronization, its work in the construct. */
static void wait_end(struct wait *x)
{
    struct cprof_worker *w = x->w;
    if (!w || !w->running)
        return;
    uint64_t now = cprof_ticks();
    uint64_t dt = now - x->t0 - (w->task_ticks - x->tasks0);
    struct cprof_execution *e = w->running;
    e->barrier_wait += dt;
    e->rec->sum.barriers++;
    e->rec->sum.barrier_wait += dt;
    const struct cprof_site *s = x->construct;
    struct cprof_construct_rec *c = rec_of(w, s, s ? s->construct : CPROF_REGION_BARRIER);
    int kase = case_here(s);
    c->key.count[kase]++;
    c->key.time[kase] += x->t0 - e->last_sync + dt;
    c->sum.barriers++;
    c->sum.barrier_wait += dt;
    count_team(c);
    e->last_sync = now;
    cprof_placement_observe(w, 0);
}

#define BARRIER(type, name) \
    type __real_GOMP_##name(void); \
    type __wrap_GOMP_##name(void) \
    { \
        struct wait x; \
        wait_begin(&x); \
        type r = (type)__real_GOMP_##name(); \
        wait_end(&x); \
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
        struct wait x; \
        wait_begin(&x); \
        __real_GOMP_##name(); \
        wait_end(&x); \
    }
BARRIER(barrier)
BARRIER(loop_end)
BARRIER(sections_end)

/* ---- tasks ---- */

/* A worker's task state, off its thread's stack: a task's block (head and the
 * program's data) while libgomp takes it, and a task body's record while it runs.  The
 * tasks a thread runs nest, so a LIFO serves, in chunks that are kept once made; on
 * the thread's stack they would make each nested task cost more stack than gcc's
 * build (bench/task_stack.sh). */
struct cprof_lifo {
    struct cprof_lifo *prev, *next;
    char *top, *end;
};

#define LIFO_CHUNK (64u << 10)

static __attribute__((noinline)) struct cprof_lifo *lifo_chunk(struct cprof_lifo *after,
                                                             size_t need)
{
    size_t size = sizeof(struct cprof_lifo) + need > LIFO_CHUNK ? sizeof(struct cprof_lifo) + need
                                                                 : LIFO_CHUNK;
    struct cprof_lifo *c = cprof_alloc(size);
    c->top = (char *)(c + 1);
    c->end = (char *)c + size;
    c->prev = after;
    if (after) {
        c->next = after->next;
        after->next = c;
        if (c->next)
            c->next->prev = c;
    }
    return c;
}

/* The chunk after c (or the first) with room for size bytes aligned to align, made if
 * none is, and the worker's current one from now on. */
static __attribute__((noinline)) void *lifo_push_slow(struct cprof_worker *w, size_t size,
                                                      size_t align)
{
    struct cprof_lifo *c = w->lifo, *next = c ? c->next : 0;
    size_t need = size + align + sizeof(char *);
    if (!next || next->end - next->top < (ptrdiff_t)need)
        next = lifo_chunk(c, need);
    w->lifo = next;
    uintptr_t at = ((uintptr_t)next->top + sizeof(char *) + align - 1) & ~(uintptr_t)(align - 1);
    char *p = (char *)at;
    ((char **)p)[-1] = next->top;
    next->top = p + size;
    return p;
}

/* size bytes aligned to align (a power of two), until lifo_pop(w, them); each keeps
 * the top it was pushed at just below it. */
static inline void *lifo_push(struct cprof_worker *w, size_t size, size_t align)
{
    struct cprof_lifo *c = w->lifo;
    if (__builtin_expect(!c, 0))
        return lifo_push_slow(w, size, align);
    uintptr_t at = ((uintptr_t)c->top + sizeof(char *) + align - 1) & ~(uintptr_t)(align - 1);
    char *p = (char *)at;
    if (__builtin_expect(p > c->end || size > (size_t)(c->end - p), 0))
        return lifo_push_slow(w, size, align);
    ((char **)p)[-1] = c->top;
    c->top = p + size;
    return p;
}

static void lifo_pop(struct cprof_worker *w, void *p)
{
    struct cprof_lifo *c = w->lifo;
    c->top = ((char **)p)[-1];
    if (c->top == (char *)(c + 1) && c->prev)
        w->lifo = c->prev;
}

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
    const struct cprof_site *construct;
    const struct cprof_node *ctx;       /* the creator's context, in its worker's tree */
    const struct cprof_worker *creator;
    int off;                            /* where the program's data starts */
    unsigned char kase;                 /* of the body: as a call at the construct, not a
                                           parallel construct of the creator's */
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
static void reap(struct cprof_worker *w)
{
    struct cprof_task_call *c;
    while ((c = w->blocks) && !c->h->held && (char *)(c + 1) == w->lifo->top) {
        w->blocks = c->below;
        lifo_pop(w, c->h);
    }
}

/* The body of task h begins on this thread: its record, on the worker's LIFO; null if
 * the task is not followed (the program stopped profiling, or the thread may not
 * count).  Apart from its callers, as task_close is: their frames, under the program's,
 * keep the least stack. */
static __attribute__((noinline)) struct body *task_open(struct task_head *h, const void *sp)
{
    struct cprof_worker *w;
    h->held++;
    if (!counting() || !(w = self()))
        return 0;
    struct body *b = lifo_push(w, sizeof *b, _Alignof(struct body));
    body_begin(b, w, h->construct, CPROF_REGION_TASK, h->ctx, h->creator, h->kase, sp);
    return b;
}

/* It ended; pop: its record is on the LIFO, under the blocks of the tasks it made. */
static __attribute__((noinline)) void task_close(struct body *b, int pop)
{
    uint64_t now = cprof_ticks();
    body_end(b, now);
    /* The worker's task time counts each task once: this one's less the tasks it ran
     * inside (a taskwait, a barrier in it), which counted themselves. */
    struct cprof_worker *w = b->w;
    uint64_t inside = w->task_ticks - b->tasks0;
    b->e.rec->sum.tasks_inside += inside;
    __atomic_store_n(&w->task_ticks, w->task_ticks + (now - b->t0 - inside), __ATOMIC_RELAXED);
    if (pop) {
        reap(w);
        lifo_pop(w, b);
    }
}

static void run_task(void *arg)
{
    struct task_head *h = arg;
    void *data = (char *)arg + h->off;
    memcpy(data, h->front, h->back);
    struct body *b = task_open(h, __builtin_dwarf_cfa());
    h->fn(data);
    h->held--;
    if (b)
        task_close(b, 1);
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
 * the program's data, on this thread's worker's LIFO (the caller knows it has one). */
static __attribute__((noinline)) struct cprof_task_call *block_new(void (*fn)(void *), void *data,
    void (*cpyfn)(void *, void *), long arg_size, long arg_align, unsigned flags, int taskloop)
{
    struct cprof_worker *w = cprof_self;
    const struct cprof_site *s = take_construct(CPROF_CONSTRUCT_TASK);
    reap(w);
    long align = arg_align > (long)_Alignof(struct task_head) ? arg_align
                                                               : (long)_Alignof(struct task_head);
    long off = ((long)sizeof(struct task_head) + align - 1) & -align;    /* a power of two */
    long at = (off + arg_size + (long)_Alignof(struct cprof_task_call) - 1)
              & -(long)_Alignof(struct cprof_task_call);
    struct task_head *h = lifo_push(w, (size_t)at + sizeof(struct cprof_task_call), (size_t)align);
    struct cprof_task_call *c = (struct cprof_task_call *)((char *)h + at);
    rec_of(w, s, CPROF_REGION_TASK)->sum.opened++;
    *h = (struct task_head){ .fn = fn, .cpyfn = cpyfn, .orig = data, .construct = s,
                             .ctx = context_here(w), .creator = w,
                             .kase = (unsigned char)case_here(s), .off = (int)off };
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
    if (!cpyfn && arg_size >= (long)sizeof h->front) {
        h->back = sizeof h->front;
        memcpy(h->front, data, sizeof h->front);
    } else if (!cpyfn) {
        h->back = (unsigned char)arg_size;
        memcpy(h->front, data, h->back);
    } else if (taskloop) {
        h->back = 2 * sizeof(long);
        if (flags & FLAG_REDUCTION)
            h->front[2] = ((const long *)data)[2];
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
    struct body b;
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
    p->followed = counting();
    if (p->followed)
        body_begin(&p->b, w, p->h.construct, CPROF_REGION_TASK, p->h.ctx, w, p->h.kase, sp);
    return p;
}

static __attribute__((noinline)) void inline_close(struct cprof_inline_task *p)
{
    struct cprof_worker *w = (struct cprof_worker *)p->h.creator;
    if (p->followed)
        task_close(&p->b, 0);
    reap(w);
    lifo_pop(w, p);
}

static void run_task_inline(void *data)
{
    struct cprof_inline_task *p = inline_open(data, __builtin_dwarf_cfa());
    p->h.fn(p->h.orig);     /* data: one register less kept across the call */
    inline_close(p);
}

/* libgomp skips a task construct met after a cancellation, without running it. */
static int cancellation(void)
{
    static int known = -1;
    if (known < 0)
        known = omp_get_cancellation();
    return known;
}

static __attribute__((noinline)) struct cprof_task_call *task_begin(void (*fn)(void *), void *data,
    void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool if_clause, unsigned flags,
    void **depend, int priority, void *detach)
{
    struct cprof_task_call *c = block_new(fn, data, cpyfn, arg_size, arg_align, flags, 0);
    c->h->held = 1;
    c->if_clause = if_clause;
    c->depend = depend;
    c->priority = priority;
    c->detach = detach;
    return c;
}

/* A task whose block is held across GOMP_task: its arguments, so that the wrapper
 * still hands over in a tail call, and a frame that keeps only the call. */
static __attribute__((noinline)) void task_followed(void (*fn)(void *), void *data,
    void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool if_clause, unsigned flags,
    void **depend, int priority, void *detach)
{
    struct cprof_task_call *c = task_begin(fn, data, cpyfn, arg_size, arg_align, if_clause, flags,
                                           depend, priority, detach);
    __real_GOMP_task(run_task, c->h, c->h->cpyfn ? copy_task : 0, c->size, c->align, c->if_clause,
                     c->flags, c->depend, c->priority, c->detach);
    /* What libgomp wrote to the front is in the program's block too, as under gcc (a
     * detached task's event). */
    if (c->h->detached)
        memcpy(c->h->orig, c->h->front, sizeof(void *));
    c->h->held = 0;
    reap((struct cprof_worker *)c->h->creator);
}

void __wrap_GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                      long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
                      void *detach)
{
    struct cprof_worker *w;
    if (!counting() || !(w = self())) {
        take_construct(CPROF_CONSTRUCT_TASK);
        return __real_GOMP_task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
                                priority, detach);
    }
    if (flags & (FLAG_DEPEND | FLAG_DETACH))
        return task_followed(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
                             priority, detach);
    if (if_clause || cpyfn || cancellation()) {
        struct cprof_task_call *c = block_new(fn, data, cpyfn, arg_size, arg_align, flags, 0);
        return __real_GOMP_task(run_task, c->h, cpyfn ? copy_task : 0, c->size, c->align,
                                if_clause, flags, depend, priority, detach);
    }
    const struct cprof_site *s = take_construct(CPROF_CONSTRUCT_TASK);
    struct cprof_inline_task *p = lifo_push(w, sizeof *p, _Alignof(struct cprof_inline_task));
    rec_of(w, s, CPROF_REGION_TASK)->sum.opened++;
    p->h = (struct task_head){ .fn = fn, .orig = data, .construct = s, .ctx = context_here(w),
                               .creator = w, .kase = (unsigned char)case_here(s) };
    p->outer = w->inline_tasks;
    w->inline_tasks = p;
    return __real_GOMP_task(run_task_inline, data, 0, arg_size, arg_align, 0, flags, depend,
                            priority, detach);
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
        if (!counting() || !self()) { \
            take_construct(CPROF_CONSTRUCT_TASK); \
            return __real_GOMP_##name(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, \
                                      priority, start, end, step); \
        } \
        struct cprof_task_call *c = block_new(fn, data, cpyfn, arg_size, arg_align, flags, 1); \
        return __real_GOMP_##name(run_task, c->h, cpyfn ? copy_task : 0, c->size, c->align, \
                                  flags, num_tasks, priority, start, end, step); \
    }
TASKLOOP(taskloop, long)
TASKLOOP(taskloop_ull, unsigned long long)
