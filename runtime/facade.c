/* facade.c: what runs at every call of an instrumented routine.
 *
 * The call site sets cprof_pending.site after its arguments are evaluated (and the
 * target, when the callee is not a routine of the same unit); the callee's first
 * statement calls cprof_enter(), which accepts the site only if the site names the
 * routine or the target is the routine itself.  Otherwise the routine was entered from
 * code cprof did not compile (main, a qsort comparator, an uninstrumented function
 * pointer call) and counts under <external>.  The callee's exit runs cprof_leave()
 * through a cleanup variable, so every return path is covered; exit() and longjmp are
 * handled by closing frames left open.
 *
 * States (semantics.md): with al = omp_get_active_level() at the call and d the number of
 * the caller's own parallel constructs around the site, k of those d innermost levels
 * are active; the callee call is concurrent iff k > 0, the caller was entered
 * concurrently iff al - k > 0, and the callee is entered concurrently iff al > 0.
 *
 * The common call (a site of the same unit, no parallel construct of the caller around
 * it, a shard that already has the site's record) takes the straight path through
 * cprof_enter; everything else branches off it.  docs/performance.md counts its
 * instructions.
 */
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* Where a consumed handshake points: it names no callee and no target, so an entry
 * that finds it counts as external without testing for null first. */
static const struct cprof_site no_site = { .id = -1 };
/* Its context is none of a worker's until the thread has one: no counted site's cache
 * matches it. */
__thread struct cprof_pending cprof_pending = { .site = &no_site, .context = &no_site };

__attribute__((noinline)) int cprof_active_levels_within(int d)
{
    int level = omp_get_level(), k = 0;
    for (int l = level - d + 1; l <= level; l++)
        if (l >= 1 && omp_get_team_size(l) > 1)
            k++;
    return k;
}

static inline int depth_load(const int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

/* A signal handler may open and close frames on this thread between any two of our
 * instructions, in the slots from w->top up.  So a slot is taken before it is filled
 * and read before it is given back; the compiler is kept from moving stores across
 * those points (no instruction is added). */
#define cprof_signal_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* A routine's shared sequential depth is written by the initial thread alone, so a
 * plain load and store keep it exact without a locked instruction.  The depth is
 * lowered after the frame leaves the stack: every frame on it counts in its depth. */
static inline void close_frame(struct cprof_worker *w, struct cprof_frame *f, uint64_t now,
                               int trace)
{
    if (trace)
        cprof_trace_exit(w, f, now);
    if (__builtin_expect(f->saved_site != 0, 0)) {
        cprof_pending.site = f->saved_site;
        cprof_pending.target = f->saved_target;
    }
    uint64_t dt = now - f->t0;
    uint64_t nested = w->calls - f->calls0;
    struct cprof_side *s = f->side;
    struct cprof_node *ctx = f->ctx;
    f->slot[0] += dt;
    f->slot[CPROF_NCASES] += nested;
    /* Self time per thread: what this activation did not spend in activations nested
     * in it on this thread.  A callee running on another worker (a parallel region's
     * team) has no frame below it there: it is not subtracted, it overlaps.  The same
     * to the context its calls are made in: every stretch of the thread's time there
     * once. */
    uint64_t self = dt - f->children;
    s->self_time += self;
    s->direct += f->direct;
    ctx->self_time += self;
    ctx->self_direct += f->direct;
    if (__builtin_expect(f->outermost, 1)) {
        s->time += dt;
        s->nested += nested;
    } else if (*f->depth > 1 || w->initial) {
        /* Nested in an activation of its routine on this thread: all the initial
         * thread's depths are its own; on another thread *f->depth is, and the rest
         * (else) is the initial thread's sequential depth alone. */
        f->slot[2 * CPROF_NCASES] += dt;
        f->slot[3 * CPROF_NCASES] += nested;
    } else {
        s->thread_time += dt;
        s->thread_nested += nested;
    }
    f[-1].children += dt;
    f[-1].direct++;
    int *depth = f->depth;
    w->top = f;
    cprof_signal_fence();
    --*depth;       /* the shared one too: only its one writer closes its frames */
    /* Last: a store to thread-local storage would make gcc load the frame's fields
     * again after it. */
    cprof_pending.context = f[-1].ctx;
}

/* CPROF_TRACE=1 (chosen at start-up with the facade): the traced facade is every
 * other one compiled with trace 1. */
static int trace_on;

/* Frames above the live one at `keep` were skipped by longjmp: close them now. */
static void unwind_to(struct cprof_worker *w, struct cprof_frame *keep, uint64_t now, int trace)
{
    while (w->top > keep)
        close_frame(w, w->top - 1, now, trace);
}

/* Opens a frame for an entry of call record c (case kase), counted in its calling
 * context, under the caller's (or, from outside, the worker's root).  Everything it
 * calls is a tail call, so the straight path saves no register. */
static inline __attribute__((always_inline)) struct cprof_frame *
open_frame(struct cprof_worker *w, struct cprof_routine *r, struct cprof_call_rec *c, int kase,
           int concurrent, enum cprof_clock_kind clock, const void *sp, int external, int paths,
           int trace);

/* CPROF_PATHS=0: no calling contexts (chosen at start-up with the facade). */
int cprof_paths_on = 1;
int cprof_paths_max = 100000;

static __attribute__((noinline)) struct cprof_frame *
open_frame_unwinding(struct cprof_worker *w, struct cprof_routine *r, struct cprof_call_rec *c,
                     int kase, int concurrent, enum cprof_clock_kind clock, const void *sp,
                     int external, int paths, int trace)
{
    struct cprof_frame *keep = w->top;
    while (keep[-1].sp < sp)
        keep--;
    unwind_to(w, keep, cprof_ticks_of(clock), trace);
    return open_frame(w, r, c, kase, concurrent, clock, sp, external, paths, trace);
}

/* Deeper than any thread stack allows: counted, but no frame kept. */
static __attribute__((noinline)) struct cprof_frame *too_deep(int *depth)
{
    --*depth;
    return 0;
}

/* The frame of an entry in context n (null: past the node limit, counted in c itself);
 * ctx is the context of the calls it makes. */
static inline __attribute__((always_inline)) struct cprof_frame *
open_in(struct cprof_worker *w, struct cprof_routine *r, struct cprof_call_rec *c, int kase,
        int concurrent, enum cprof_clock_kind clock, const void *sp, struct cprof_node *n,
        struct cprof_node *ctx, int trace)
{
    struct cprof_frame *f = w->top;
    struct cprof_routine_rec *rec = c->rec;
    if (n)
        n->count[kase]++;
    else
        c->count[kase]++;
    /* A sequential entry of the initial thread counts on every worker (paper 4.4.1):
     * it goes to the routine's shared sequential depth, which a concurrent entry adds
     * to its own.  Every other thread that runs sequentially (a plain pthread) is a
     * program of its own: its sequential entries count on it alone. */
    int shared = !concurrent && w->initial;
    int *mine = shared ? &r->seq_depth : &rec->depth;
    int depth = ++*mine + (shared ? rec->depth : concurrent ? depth_load(&r->seq_depth) : 0);
    if (__builtin_expect(depth > rec->max_depth, 0))
        rec->max_depth = depth;
    if (__builtin_expect(f == w->stack_end, 0))
        return too_deep(mine);
    /* Taken before it is filled: a handler that interrupts the filling opens its frame
     * above this one, not in it (it may see this one half filled: docs/semantics.md). */
    w->top = f + 1;
    cprof_signal_fence();
    f->slot = n ? &n->time[kase] : &c->time[kase];
    f->ctx = ctx;
    f->side = &rec->side[concurrent];
    f->depth = mine;
    f->sp = sp;
    f->outermost = depth == 1;
    f->children = 0;
    f->direct = 0;
    f->saved_site = 0;
    f->calls0 = ++w->calls;
    f->t0 = cprof_ticks_of(clock);
    cprof_pending.context = ctx;    /* last, as in close_frame */
    return trace ? cprof_trace_enter(w, r, f, c, kase) : f;
}

/* A context the parent's cache did not hold: found, made, or past the limit (the
 * parent's <other> node, whose calls count in their records alone). */
static inline __attribute__((always_inline)) struct cprof_frame *
open_context(struct cprof_worker *w, struct cprof_routine *r, struct cprof_call_rec *c,
             int kase, int concurrent, enum cprof_clock_kind clock, const void *sp,
             struct cprof_node *parent, int trace)
{
    struct cprof_node *n = cprof_node_slow(w, parent, c);
    if (!n->key)
        return open_in(w, r, c, kase, concurrent, clock, sp, 0, n, trace);
    return open_in(w, r, c, kase, concurrent, clock, sp, n, n->canon, trace);
}

/* The off-path functions the straight path calls have a twin for the traced facade,
 * so that the others run exactly the instructions they would without tracing. */
static __attribute__((noinline)) struct cprof_frame *
open_frame_context(struct cprof_worker *w, struct cprof_routine *r, struct cprof_call_rec *c,
                   int kase, int concurrent, enum cprof_clock_kind clock, const void *sp,
                   struct cprof_node *parent)
{
    return open_context(w, r, c, kase, concurrent, clock, sp, parent, 0);
}

static __attribute__((noinline)) struct cprof_frame *
open_frame_context_traced(struct cprof_worker *w, struct cprof_routine *r,
                          struct cprof_call_rec *c, int kase, int concurrent,
                          enum cprof_clock_kind clock, const void *sp, struct cprof_node *parent)
{
    return open_context(w, r, c, kase, concurrent, clock, sp, parent, 1);
}

/* sp: where the entry hook's caller's stack ends (the hook's canonical frame address),
 * the same wherever in the runtime the frame is opened. */
static inline __attribute__((always_inline)) struct cprof_frame *
open_frame(struct cprof_worker *w, struct cprof_routine *r, struct cprof_call_rec *c, int kase,
           int concurrent, enum cprof_clock_kind clock, const void *sp, int external, int paths,
           int trace)
{
    /* A frame deeper in the stack than this entry was left by a longjmp from code that
     * cprof did not see (the rewritten longjmp calls unwind exactly). */
    struct cprof_frame *f = w->top;
    if (__builtin_expect(f[-1].sp < sp, 0))
        return open_frame_unwinding(w, r, c, kase, concurrent, clock, sp, external, paths, trace);
    if (!paths)
        return open_in(w, r, c, kase, concurrent, clock, sp, 0, w->root, trace);
    struct cprof_node *parent = external ? w->root : f[-1].ctx;
    struct cprof_node *n = parent->last;
    if (__builtin_expect(n->key != c, 0))
        return (trace ? open_frame_context_traced : open_frame_context)(w, r, c, kase, concurrent,
                                                                       clock, sp, parent);
    return open_in(w, r, c, kase, concurrent, clock, sp, n, n->canon, trace);
}

/* The call record of an entry from a site of another unit, through a pointer or
 * unknown to this worker so far, or of an external entry. */
static __attribute__((noinline)) struct cprof_call_rec *
call_rec(struct cprof_worker *w, struct cprof_routine *r, const struct cprof_site *site)
{
    if (__builtin_expect(r->id < 0, 0))
        cprof_routine_id_slow(r);
    int id = r->id;
    struct cprof_routine_rec *rec;
    if (id >= w->routines_cap || !(rec = w->routines[id]))
        rec = cprof_routine_rec_slow(w, id);
    void (*target)(void) = cprof_pending.target;
    int from_site = site->callee ? site->callee == r
                                 : site->caller && (target == r->self || !target ||
                                                    (r->self && cprof_plt_target(target) == r->self));
    if (!from_site)
        return &rec->ext;
    if (site->id < 0)
        cprof_site_id_slow((struct cprof_site *)site);
    int sid = site->id;
    struct cprof_call_rec *c;
    if (sid >= w->sites_cap || !(c = w->sites[sid]) || c->callee != id) {
        c = cprof_call_rec_slow(w, sid, id);
        c->rec = rec;
    }
    return c;
}

/* The case of a call from site at active level al.  A site inside one parallel
 * construct of the caller (a parallel loop's body) only needs the team size of the
 * current level, omp_get_num_threads(). */
static inline __attribute__((always_inline)) int case_of(const struct cprof_site *site, int al)
{
    int k = !site->d || !al ? 0 : site->d == 1 ? omp_get_num_threads() > 1
                                                : cprof_active_levels_within(site->d);
    return (al - k > 0) * 2 + (k > 0);
}

/* Every entry that leaves the straight path. */
static inline __attribute__((always_inline)) struct cprof_frame *
enter_slow_body(struct cprof_routine *r, const struct cprof_site *site, int al,
                enum cprof_clock_kind clock, const void *sp, int trace)
{
    struct cprof_worker *w = cprof_self;
    if (!w && !(w = cprof_self_slow()))
        return 0;
    struct cprof_call_rec *c;
    int sid = site->id;
    if (site->callee != r || (unsigned)sid >= (unsigned)w->sites_cap || !(c = w->sites[sid]))
        c = call_rec(w, r, site);
    if (c != &c->rec->ext) {
        int kase = case_of(site, al);
        if (clock == CPROF_CLOCK_NONE) {
            c->count[kase]++;
            return 0;
        }
        return open_frame(w, r, c, kase, al > 0, clock, sp, 0, cprof_paths_on, trace);
    }
    /* From outside: the handshake it found was not for it.  Left for the call it may
     * belong to, and given back at this entry's exit (its own calls consume theirs). */
    void (*target)(void) = cprof_pending.target;
    cprof_pending.site = site;
    int kase = al > 0 ? CPROF_CS : CPROF_SS;
    if (clock == CPROF_CLOCK_NONE) {
        c->count[kase]++;
        return 0;
    }
    struct cprof_frame *f = open_frame(w, r, c, kase, al > 0, clock, sp, 1, cprof_paths_on, trace);
    if (f && site != &no_site) {
        f->saved_site = site;
        f->saved_target = target;
    }
    return f;
}

static __attribute__((noinline)) struct cprof_frame *
enter_slow(struct cprof_routine *r, const struct cprof_site *site, int al,
           enum cprof_clock_kind clock, const void *sp)
{
    return enter_slow_body(r, site, al, clock, sp, 0);
}

static __attribute__((noinline)) struct cprof_frame *
enter_slow_traced(struct cprof_routine *r, const struct cprof_site *site, int al,
                  enum cprof_clock_kind clock, const void *sp)
{
    return enter_slow_body(r, site, al, clock, sp, 1);
}

/* The straight path of a site inside one or more parallel constructs of the caller:
 * only the case differs. */
static inline __attribute__((always_inline)) struct cprof_frame *
in_construct(struct cprof_routine *r, const struct cprof_site *site, int al,
             enum cprof_clock_kind clock, const void *sp, int trace)
{
    int kase = case_of(site, al);
    struct cprof_worker *w = cprof_self;
    int sid = site->id;
    struct cprof_call_rec *c;
    if (__builtin_expect(!w || site->callee != r || (unsigned)sid >= (unsigned)w->sites_cap ||
                         !(c = w->sites[sid]), 0))
        return (trace ? enter_slow_traced : enter_slow)(r, site, al, clock, sp);
    if (clock == CPROF_CLOCK_NONE) {
        c->count[kase]++;
        return 0;
    }
    return open_frame(w, r, c, kase, al > 0, clock, sp, 0, cprof_paths_on, trace);
}

static __attribute__((noinline)) struct cprof_frame *
enter_in_construct(struct cprof_routine *r, const struct cprof_site *site, int al,
                   enum cprof_clock_kind clock, const void *sp)
{
    return in_construct(r, site, al, clock, sp, 0);
}

static __attribute__((noinline)) struct cprof_frame *
enter_in_construct_traced(struct cprof_routine *r, const struct cprof_site *site, int al,
                          enum cprof_clock_kind clock, const void *sp)
{
    return in_construct(r, site, al, clock, sp, 1);
}

/* Where a counted call of record c made now on w counts: in the context of the calls
 * the top activation makes (docs/semantics.md), or in the record where there is none
 * (CPROF_PATHS=0, CPROF_MODE=count, past the node limit). */
static unsigned long long *counts_in_context(struct cprof_worker *w, struct cprof_call_rec *c)
{
    if (!cprof_paths_on || cprof_clock == CPROF_CLOCK_NONE)
        return c->count;
    struct cprof_node *parent = w->top[-1].ctx, *n = parent->last;
    if (n->key != c)
        n = cprof_node_slow(w, parent, c);
    return n->key ? n->count : c->count;
}

/* Counting at the call site, off the straight path. */
static __attribute__((noinline)) void count_slow(const struct cprof_site *site, int al)
{
    struct cprof_worker *w = cprof_self;
    if (!w && !(w = cprof_self_slow()))
        return;
    struct cprof_call_rec *c;
    int sid = site->id;
    if ((unsigned)sid >= (unsigned)w->sites_cap || !(c = w->sites[sid]))
        c = call_rec(w, site->callee, site);
    counts_in_context(w, c)[case_of(site, al)]++;
}

int cprof_stopped;

void cprof_count(const struct cprof_site *site)
{
    if (__builtin_expect(__atomic_load_n(&cprof_stopped, __ATOMIC_RELAXED), 0)) {
        cprof_pending.case0 = omp_get_active_level() > 0 ? CPROF_CS : CPROF_SS;
        return;
    }
    int al = omp_get_active_level();
    struct cprof_worker *w = cprof_self;
    int sid = site->id;
    struct cprof_call_rec *c;
    if (__builtin_expect(!w || (unsigned)sid >= (unsigned)w->sites_cap || !(c = w->sites[sid]), 0))
        count_slow(site, al);
    else
        counts_in_context(w, c)[site->d && al ? case_of(site, al) : al > 0 ? CPROF_CS : CPROF_SS]++;
    /* after count_slow, which may start the runtime (and its probe enters) */
    cprof_pending.case0 = al > 0 ? CPROF_CS : CPROF_SS;
}

int cprof_count_miss(const struct cprof_site *site, struct cprof_count_slot *slot)
{
    int al = omp_get_active_level();
    /* Stopped: the case, for the cache, but no count and no slot, so the next call
     * misses too (a slot set before the stop keeps counting: control.c takes those
     * counts out). */
    if (__atomic_load_n(&cprof_stopped, __ATOMIC_RELAXED)) {
        cprof_pending.case0 = al > 0 ? CPROF_CS : CPROF_SS;
        return case_of(site, al);
    }
    struct cprof_worker *w = cprof_self;
    /* No worker may be made yet (an ifunc resolver before thread-local storage is set
     * up) or now (the runtime's own code): count nothing, cache nothing. */
    if (!w && !(w = cprof_self_slow()))
        return -1;
    struct cprof_call_rec *c;
    int sid = site->id;
    if ((unsigned)sid >= (unsigned)w->sites_cap || !(c = w->sites[sid]))
        c = call_rec(w, site->callee, site);
    int kase = case_of(site, al);
    unsigned long long *counts = counts_in_context(w, c);
    counts[kase]++;
    /* Records and contexts never move. */
    slot->counts = counts;
    slot->not_context = ~(unsigned long)cprof_pending.context;
    cprof_pending.case0 = al > 0 ? CPROF_CS : CPROF_SS;
    return kase;
}

/* The straight path: a call of a routine of the same unit, outside any parallel
 * construct of the caller, whose record this worker has. */
static inline __attribute__((always_inline)) struct cprof_frame *
enter(struct cprof_routine *r, enum cprof_clock_kind clock, int paths, int trace)
{
    int al = omp_get_active_level();
    struct cprof_pending *p = &cprof_pending;
    struct cprof_worker *w = p->worker;
    const struct cprof_site *site = p->site;
    p->site = &no_site;
    p->case0 = al > 0 ? CPROF_CS : CPROF_SS;
    int sid = site->id;
    struct cprof_call_rec *c;
    /* Inside the caller's constructs, with no active level, every case is S-S. */
    if (__builtin_expect(site->d != 0 && al, 0))
        return (trace ? enter_in_construct_traced : enter_in_construct)(r, site, al, clock,
                                                                         __builtin_dwarf_cfa());
    if (__builtin_expect(!w || site->callee != r || (unsigned)sid >= (unsigned)w->sites_cap ||
                         !(c = w->sites[sid]), 0))
        return (trace ? enter_slow_traced : enter_slow)(r, site, al, clock, __builtin_dwarf_cfa());
    int concurrent = al > 0;
    int kase = concurrent ? CPROF_CS : CPROF_SS;
    if (clock == CPROF_CLOCK_NONE) {
        c->count[kase]++;
        return 0;
    }
    return open_frame(w, r, c, kase, concurrent, clock, __builtin_dwarf_cfa(), 0, paths, trace);
}

/* A frame that is not the top one: those above it were skipped by longjmp, or it was
 * itself closed by an unwind already. */
static __attribute__((noinline)) void leave_unwinding(struct cprof_worker *w,
                                                      struct cprof_frame *f, uint64_t now)
{
    if (f < w->stack + 1 || f >= w->top)
        return;
    unwind_to(w, f + 1, now, trace_on);
    close_frame(w, f, now, trace_on);
}

static inline __attribute__((always_inline)) void leave(struct cprof_frame *f,
                                                        enum cprof_clock_kind clock, int trace)
{
    uint64_t now = cprof_ticks_of(clock);
    struct cprof_worker *w = cprof_self;
    if (__builtin_expect(f != w->top - 1, 0))
        return leave_unwinding(w, f, now);
    /* The caller's context, once the clock is read: from here on the times give
     * cprof's code to the caller, and so does a CPU sample (resources.c), which takes
     * the context this names over a frame whose own is not it.  After the read, not
     * before: the entry's read ends before its frame's context is set, so each
     * activation's samples hold one clock read, as its time does.  close_frame names
     * it again last, for a signal handler's calls in between. */
    cprof_pending.context = f[-1].ctx;
    close_frame(w, f, now, trace);
}

static struct cprof_frame *enter_tsc(struct cprof_routine *r) { return enter(r, CPROF_CLOCK_TSC, 1, 0); }
static struct cprof_frame *enter_tsc_flat(struct cprof_routine *r) { return enter(r, CPROF_CLOCK_TSC, 0, 0); }
static struct cprof_frame *enter_monotonic(struct cprof_routine *r) { return enter(r, CPROF_CLOCK_MONOTONIC, 1, 0); }
static struct cprof_frame *enter_monotonic_flat(struct cprof_routine *r) { return enter(r, CPROF_CLOCK_MONOTONIC, 0, 0); }
static struct cprof_frame *enter_count(struct cprof_routine *r) { return enter(r, CPROF_CLOCK_NONE, 0, 0); }
static void leave_tsc(struct cprof_frame *f) { leave(f, CPROF_CLOCK_TSC, 0); }
static void leave_monotonic(struct cprof_frame *f) { leave(f, CPROF_CLOCK_MONOTONIC, 0); }
/* CPROF_TRACE=1 */
static struct cprof_frame *enter_tsc_traced(struct cprof_routine *r) { return enter(r, CPROF_CLOCK_TSC, 1, 1); }
static struct cprof_frame *enter_tsc_flat_traced(struct cprof_routine *r) { return enter(r, CPROF_CLOCK_TSC, 0, 1); }
static struct cprof_frame *enter_monotonic_traced(struct cprof_routine *r) { return enter(r, CPROF_CLOCK_MONOTONIC, 1, 1); }
static struct cprof_frame *enter_monotonic_flat_traced(struct cprof_routine *r) { return enter(r, CPROF_CLOCK_MONOTONIC, 0, 1); }
static void leave_tsc_traced(struct cprof_frame *f) { leave(f, CPROF_CLOCK_TSC, 1); }
static void leave_monotonic_traced(struct cprof_frame *f) { leave(f, CPROF_CLOCK_MONOTONIC, 1); }

/* Before the runtime starts (an instrumented constructor that runs before any unit
 * registered): start it, then take the entry it chose.  Not while the program is being
 * relocated (an ifunc resolver): nothing is counted then (workers.c). */
static struct cprof_frame *enter_first(struct cprof_routine *r)
{
    if (!cprof_may_count())
        return 0;
    if (r->id < 0)
        cprof_routine_id_slow(r);   /* starts the runtime, which selects the facade */
    if (cprof_facade.enter != enter_first)
        return cprof_facade.enter(r);
    cprof_pending.case0 = omp_get_active_level() > 0 ? CPROF_CS : CPROF_SS;
    return 0;
}

/* ---- CPROF_DEBUG=1: the same entry and exit, checking the books at every call ---- */

static __attribute__((noinline, noreturn)) void broken(const char *what, const struct cprof_routine *r)
{
    fprintf(stderr, "cprof: internal error: %s (routine %s, %s:%d)\n", what,
            r ? r->name : "?", r ? r->file : "?", r ? r->line : 0);
    abort();
}

#define CHECK(cond, r) ((cond) ? (void)0 : broken(#cond, r))

/* What must hold of the top frame of w after an entry, and of every frame below it
 * down to the sentinel in the few that are checked per call. */
static void check_stack(const struct cprof_worker *w, const struct cprof_routine *r)
{
    CHECK(w->top > w->stack && w->top <= w->stack_end, r);
    CHECK(w->stack->sp == (const void *)UINTPTR_MAX, r);
    for (const struct cprof_frame *f = w->top - 1; f > w->stack && f > w->top - 4; f--) {
        CHECK(f->sp <= f[-1].sp, r);                     /* deeper frames lower */
        CHECK(*f->depth >= 1, r);                        /* its entry is counted */
        CHECK(f->outermost == 0 || f->outermost == 1, r);
        CHECK(f->saved_site == 0 || f->saved_site->caller || f->saved_site->id >= 0, r);
        CHECK(f->ctx != 0 && f->ctx->canon == f->ctx, r);   /* calls hang from canonical ones */
    }
    CHECK(cprof_pending.context == w->top[-1].ctx, r);      /* counted sites' caches see it */
}

static struct cprof_frame *enter_debug(struct cprof_routine *r)
{
    struct cprof_frame *f = enter(r, cprof_clock, cprof_paths_on, trace_on);
    struct cprof_worker *w = cprof_self;
    CHECK(w != 0 || (f == 0 && !cprof_may_count()), r);
    if (!w)
        return f;       /* inside the runtime: not counted */
    CHECK(cprof_pending.site == &no_site || f == 0 || f->saved_site, r);
    if (cprof_clock == CPROF_CLOCK_NONE) {
        CHECK(f == 0, r);
        return f;
    }
    check_stack(w, r);
    /* A signal handler may have run in between and left: f is still the top. */
    CHECK(f == 0 || f == w->top - 1, r);
    return f;
}

static void leave_debug(struct cprof_frame *f)
{
    struct cprof_worker *w = cprof_self;
    CHECK(w != 0 && f > w->stack && f < w->stack_end, 0);
    struct cprof_frame *top = w->top;
    int *depth = f < top ? f->depth : 0;
    int before = depth ? *depth : 0;
    leave(f, cprof_clock, trace_on);
    CHECK(w->top <= f || f >= top, 0);
    if (depth && f == top - 1)
        CHECK(*depth == before - 1 && *depth >= 0, 0);
    check_stack(w, 0);
}

/* Stopped: the handshake is consumed (it must not reach a later entry) and the case
 * left for the routine's counted calls; no count, no frame. */
static struct cprof_frame *enter_stopped(struct cprof_routine *r)
{
    (void)r;
    cprof_pending.site = &no_site;
    cprof_pending.case0 = omp_get_active_level() > 0 ? CPROF_CS : CPROF_SS;
    return 0;
}

struct cprof_facade cprof_facade = { enter_first, leave_tsc };
static struct cprof_frame *(*running_enter)(struct cprof_routine *);

void cprof_facade_select(void)
{
    static const struct cprof_facade by_clock[][2] = {
        [CPROF_CLOCK_TSC] = { { enter_tsc_flat, leave_tsc }, { enter_tsc, leave_tsc } },
        [CPROF_CLOCK_MONOTONIC] = { { enter_monotonic_flat, leave_monotonic },
                                    { enter_monotonic, leave_monotonic } },
        /* no frame: never left, and no context */
        [CPROF_CLOCK_NONE] = { { enter_count, leave_tsc }, { enter_count, leave_tsc } },
    };
    static const struct cprof_facade traced[][2] = {   /* never with CPROF_CLOCK_NONE */
        [CPROF_CLOCK_TSC] = { { enter_tsc_flat_traced, leave_tsc_traced },
                              { enter_tsc_traced, leave_tsc_traced } },
        [CPROF_CLOCK_MONOTONIC] = { { enter_monotonic_flat_traced, leave_monotonic_traced },
                                    { enter_monotonic_traced, leave_monotonic_traced } },
    };
    static const char *const off_on[] = { "0", "1", 0 };
    cprof_paths_on = cprof_setting_word("CPROF_PATHS", off_on, 1, "calling contexts are kept");
    unsigned long long max = (unsigned long long)cprof_paths_max;
    if (cprof_paths_on && cprof_setting_number("CPROF_PATHS_MAX", 1, INT_MAX - 1, &max,
                                               "100000 contexts per worker") == 0)
        cprof_paths_max = (int)max;
    trace_on = cprof_trace_start();
    if (cprof_setting_word("CPROF_DEBUG", off_on, 0, "the invariants are not checked"))
        cprof_facade = (struct cprof_facade){ enter_debug, leave_debug };
    else
        cprof_facade = (trace_on ? traced : by_clock)[cprof_clock][cprof_paths_on];
    if (cprof_sizes_facade)     /* linked only with -fcprof-input-size */
        cprof_facade = cprof_sizes_facade(cprof_facade);
    running_enter = cprof_facade.enter;
}

/* Other threads may be calling through cprof_facade.enter: one pointer, stored whole. */
void cprof_facade_stop(int stopped)
{
    __atomic_store_n(&cprof_stopped, stopped, __ATOMIC_RELAXED);
    __atomic_store_n(&cprof_facade.enter, stopped ? enter_stopped : running_enter,
                     __ATOMIC_RELAXED);
}

/* setjmp remembers which frame is live; a later longjmp to the same buffer closes the
 * frames above it.  The few most recent buffers per worker are kept. */
void *cprof_setjmp_mark(void *env)
{
    struct cprof_worker *w = cprof_self;
    if (!w && !(w = cprof_self_slow()))
        return env;
    int slot = -1;
    for (int i = 0; i < CPROF_JMP_MARKS; i++)
        if (w->jmp[i].env == env)
            slot = i;
    if (slot < 0) {
        slot = w->jmp_next;
        w->jmp_next = (w->jmp_next + 1) % CPROF_JMP_MARKS;
    }
    w->jmp[slot].env = env;
    w->jmp[slot].top = w->top;
    return env;
}

void *cprof_longjmp_unwind(void *env)
{
    struct cprof_worker *w = cprof_self;
    if (!w)
        return env;
    for (int i = 0; i < CPROF_JMP_MARKS; i++)
        if (w->jmp[i].env == env && w->jmp[i].top <= w->top)
            unwind_to(w, w->jmp[i].top, cprof_ticks(), trace_on);
    return env;
}

/* A body's frame opened and closed, traced (trace 1) or not: the traced twins are apart,
 * so that the untraced ones run the instructions they would without tracing, but for
 * the test that picks them. */
static inline __attribute__((always_inline)) struct cprof_frame *
body_open(struct cprof_worker *w, struct cprof_construct_rec *c, struct cprof_node *n, int kase,
          const void *sp, int trace)
{
    struct cprof_frame *f = w->top;
    if (f == w->stack_end)
        return 0;
    /* Past the node limit n is its parent's <other>: counted in the record, as a call
     * is (open_context), and the calls made in the body hang from that <other>. */
    struct cprof_node *own = n && n->key ? n : 0;
    if (own)
        own->count[kase]++;
    else
        c->key.count[kase]++;
    w->top = f + 1;
    cprof_signal_fence();
    f->slot = own ? &own->time[kase] : &c->key.time[kase];
    f->ctx = n ? n->canon : w->root;
    cprof_pending.context = f->ctx;
    f->side = &c->own.side[kase & 1];    /* in an active team: concurrent, as its calls */
    f->depth = &c->own.depth;
    ++c->own.depth;
    f->sp = sp;
    f->outermost = 1;
    f->children = 0;
    f->direct = 0;
    f->saved_site = 0;
    f->calls0 = w->calls;       /* not a call: the calls nested around it are unchanged */
    f->t0 = cprof_ticks();
    return trace ? cprof_trace_body(w, f, c, kase) : f;
}

static __attribute__((noinline)) struct cprof_frame *
body_open_traced(struct cprof_worker *w, struct cprof_construct_rec *c, struct cprof_node *n,
                 int kase, const void *sp)
{
    return body_open(w, c, n, kase, sp, 1);
}

struct cprof_frame *cprof_body_open(struct cprof_worker *w, struct cprof_construct_rec *c,
                                    struct cprof_node *n, int kase, const void *sp)
{
    if (__builtin_expect(trace_on, 0))
        return body_open_traced(w, c, n, kase, sp);
    return body_open(w, c, n, kase, sp, 0);
}

static inline __attribute__((always_inline)) struct cprof_body_nest
body_close(struct cprof_worker *w, struct cprof_frame *f, int trace)
{
    uint64_t now = cprof_ticks();
    if (f < w->stack + 1 || f >= w->top)
        return (struct cprof_body_nest){ 0, 0, 0 };
    unwind_to(w, f + 1, now, trace);
    /* Read before the slot is given back (a signal handler may reuse it). */
    struct cprof_body_nest in = { now - f->t0, f->children, f->direct };
    struct cprof_node *ctx = f->ctx;
    /* What nested in the body nested in the frame below, as without the body's frame. */
    uint64_t children = f[-1].children;
    uint32_t direct = f[-1].direct;
    close_frame(w, f, now, trace);
    f[-1].children = children + in.time;
    f[-1].direct = direct + (uint32_t)in.direct;
    /* The body's own self time is no context's of its own, as it is no routine's: the
     * frame below's has it (it did not count the body as a child), and on a team's
     * other member the context whose routine has the construct, as its team self time
     * (docs/semantics.md, "Team time").  A task run outside any frame keeps it: no
     * routine has it. */
    uint64_t self = in.elapsed - in.time;
    int below = f - 1 > w->stack;
    if (ctx->key && (below || (ctx->parent && ((const struct cprof_construct_rec *)ctx->key)->kind
                                                  == CPROF_REGION_PARALLEL))) {
        ctx->self_time -= self;
        ctx->self_direct -= in.direct;
        if (!below) {
            ctx->parent->self_time += self;
            ctx->parent->self_direct += in.direct;
        }
    }
    return in;
}

static __attribute__((noinline)) struct cprof_body_nest
body_close_traced(struct cprof_worker *w, struct cprof_frame *f)
{
    return body_close(w, f, 1);
}

struct cprof_body_nest cprof_body_close(struct cprof_worker *w, struct cprof_frame *f)
{
    if (__builtin_expect(trace_on, 0))
        return body_close_traced(w, f);
    return body_close(w, f, 0);
}

void cprof_close_open_frames(void)
{
    uint64_t now = cprof_ticks();
    for (struct cprof_worker *w = cprof_workers(); w; w = w->next)
        unwind_to(w, w->stack + 1, now, trace_on);
}

/* The cost of a facade, measured where it runs, so that reports can estimate the
 * profiler's share of the run.  A probe routine (id 0 of a scratch shard, never
 * registered) goes through the real entry and exit from a site of its own, and through
 * the call-site count as a unit inlines it (cprof_count_cached, its slot thread-local;
 * the barrier keeps gcc from summing the loop's counts into one add); best of a few
 * short rounds, timed with CLOCK_MONOTONIC (the facade may read no clock at all). */
static __thread struct cprof_count_slot probe_counts;

struct cprof_costs cprof_facade_cost_ns(void)
{
    static struct cprof_routine probe = { .name = "<probe>", .file = "<cprof>" };
    static struct cprof_site site = { .caller = &probe, .callee = &probe, .file = "<cprof>" };
    enum { ROUNDS = 5, CALLS = 2000 };
    struct cprof_worker *saved = cprof_self;
    const void *saved_context = cprof_pending.context;
    struct cprof_worker *w = cprof_worker_create(0);
    cprof_self = w;
    uint64_t best[2] = { UINT64_MAX, UINT64_MAX };
    for (int round = 0; round < ROUNDS; round++) {
        uint64_t t0 = cprof_monotonic_ns();
        for (int i = 0; i < CALLS; i++) {
            cprof_pending.site = &site;
            struct cprof_frame *f = cprof_facade.enter(&probe);
            if (f)
                cprof_facade.leave(f);
        }
        uint64_t t1 = cprof_monotonic_ns();
        probe_counts = (struct cprof_count_slot){ 0 };
        for (int i = 0, kase = CPROF_SS; i < CALLS; i++) {
            kase = cprof_count_cached(&site, &probe_counts, kase);
            __asm__ volatile("" ::: "memory");
        }
        uint64_t t2 = cprof_monotonic_ns();
        if (t1 - t0 < best[0])
            best[0] = t1 - t0;
        if (t2 - t1 < best[1])
            best[1] = t2 - t1;
    }
    cprof_self = saved;
    cprof_pending.context = saved_context;
    probe_counts = (struct cprof_count_slot){ 0 };
    cprof_worker_destroy(w);
    return (struct cprof_costs){ (double)best[0] / CALLS, (double)best[1] / CALLS };
}
