/* facade.c: what runs at every call of an instrumented routine.
 *
 * The call site sets cprof_pending (site, target) after its arguments are evaluated;
 * the callee's first statement calls cprof_enter(), which accepts the site only if the
 * target is itself.  Otherwise the routine was entered from code cprof did not compile
 * (main, a qsort comparator, an uninstrumented function pointer call) and counts under
 * <external>.  The callee's exit runs cprof_leave() through a cleanup variable, so every
 * return path is covered; exit() and longjmp are handled by closing frames left open.
 *
 * States (semantics.md): with al = omp_get_active_level() at the call and d the number of
 * the caller's own parallel constructs around the site, k of those d innermost levels
 * are active; the callee call is concurrent iff k > 0, the caller was entered
 * concurrently iff al - k > 0, and the callee is entered concurrently iff al > 0.
 */
#include <omp.h>
#include "internal.h"

__thread struct cprof_pending cprof_pending;

static int active_levels_within(int d)
{
    int level = omp_get_level(), k = 0;
    for (int l = level - d + 1; l <= level; l++)
        if (l >= 1 && omp_get_team_size(l) > 1)
            k++;
    return k;
}

static inline int depth_load(const int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

/* Sequential depths are shared by all workers but written only in sequential state;
 * relaxed loads and stores keep that race-free without a locked instruction. */
static inline int seq_depth_add(struct cprof_routine *r, int delta)
{
    int v = depth_load(&r->seq_depth) + delta;
    __atomic_store_n(&r->seq_depth, v, __ATOMIC_RELAXED);
    return v;
}

static void close_frame(struct cprof_worker *w, struct cprof_frame *f, uint64_t now)
{
    uint64_t dt = now - f->t0;
    *f->time_slot += dt;
    /* Self time per thread: what this activation did not spend in activations nested
     * in it on this thread.  A callee running on another worker (a parallel region's
     * team) has no frame below it there: it is not subtracted, it overlaps. */
    f->rec->self_time[f->concurrent] += dt - f->children;
    uint64_t nested = w->calls - f->calls0;
    *f->nested_slot += nested;
    f->rec->direct[f->concurrent] += f->direct;
    if (f->outermost) {
        f->rec->time[f->concurrent] += dt;
        f->rec->nested[f->concurrent] += nested;
    }
    if (f > w->stack) {
        f[-1].children += dt;
        f[-1].direct++;
    }
    if (f->concurrent)
        f->rec->depth--;
    else
        seq_depth_add(f->routine, -1);
    w->top = f;
}

/* Frames above the live one at `keep` were skipped by longjmp: close them now. */
static void unwind_to(struct cprof_worker *w, struct cprof_frame *keep, uint64_t now)
{
    while (w->top > keep)
        close_frame(w, w->top - 1, now);
}

struct cprof_frame *cprof_enter(struct cprof_routine *r)
{
    struct cprof_worker *w = cprof_self;
    if (__builtin_expect(!w, 0))
        w = cprof_worker_create(1);
    const struct cprof_site *site = cprof_pending.site;
    /* A null target without a callee: a call of an implicitly declared function,
     * which the call site could not name. */
    int from_site = site && (site->callee ? site->callee == r
                                          : cprof_pending.target == r->self || !cprof_pending.target);
    cprof_pending.site = 0;

    /* A frame deeper in the stack than this entry was left by a longjmp from code that
     * cprof did not see (the rewritten longjmp calls unwind exactly). */
    const void *sp = __builtin_frame_address(0);
    if (__builtin_expect(w->top > w->stack && w->top[-1].sp < sp, 0)) {
        struct cprof_frame *keep = w->top;
        while (keep > w->stack && keep[-1].sp < sp)
            keep--;
        unwind_to(w, keep, cprof_ticks());
    }

    if (__builtin_expect(r->id < 0, 0))
        cprof_routine_id_slow(r);
    int id = r->id;
    struct cprof_routine_rec *rec;
    if (__builtin_expect(id >= w->routines_cap || !(rec = w->routines[id]), 0))
        rec = cprof_routine_rec_slow(w, id);

    int al = omp_get_active_level();
    int concurrent = al > 0;
    uint64_t *slot, *nested_slot;
    if (from_site) {
        int k = site->d ? active_levels_within(site->d) : 0;
        int kase = (al - k > 0) * 2 + (k > 0);
        int sid = site->id;
        if (__builtin_expect(sid < 0, 0)) {
            cprof_site_id_slow((struct cprof_site *)site);
            sid = site->id;
        }
        struct cprof_call_rec *c;
        if (__builtin_expect(sid >= w->sites_cap || !(c = w->sites[sid]) || c->callee != id, 0))
            c = cprof_call_rec_slow(w, sid, id);
        c->count[kase]++;
        slot = &c->time[kase];
        nested_slot = &c->nested[kase];
    } else {
        rec->ext[concurrent]++;
        slot = &rec->ext_time[concurrent];
        nested_slot = &rec->ext_nested[concurrent];
    }
    w->calls++;
    rec->entries[concurrent]++;

    /* A sequential entry counts on every worker (paper 4.4.1): the depth that decides
     * "outermost" is the shared sequential depth plus this worker's own. */
    int depth = concurrent ? ++rec->depth + depth_load(&r->seq_depth)
                           : seq_depth_add(r, 1) + rec->depth;
    if (depth > rec->max_depth)
        rec->max_depth = depth;

    if (__builtin_expect(w->top == w->stack_end, 0)) {
        /* Deeper than any thread stack allows: count, but keep no frame. */
        if (concurrent)
            rec->depth--;
        else
            seq_depth_add(r, -1);
        return 0;
    }
    struct cprof_frame *f = w->top++;
    f->time_slot = slot;
    f->rec = rec;
    f->routine = r;
    f->sp = sp;
    f->concurrent = concurrent;
    f->outermost = depth == 1;
    f->nested_slot = nested_slot;
    f->children = 0;
    f->calls0 = w->calls;
    f->direct = 0;
    f->t0 = cprof_ticks();
    return f;
}

void cprof_leave(struct cprof_frame *f)
{
    uint64_t now = cprof_ticks();
    struct cprof_worker *w = cprof_self;
    if (!f || f < w->stack || f >= w->top)
        return;     /* no frame kept, or already closed by an unwind */
    unwind_to(w, f + 1, now);
    close_frame(w, f, now);
}

/* setjmp remembers which frame is live; a later longjmp to the same buffer closes the
 * frames above it.  The few most recent buffers per worker are kept. */
void *cprof_setjmp_mark(void *env)
{
    struct cprof_worker *w = cprof_self;
    if (!w)
        w = cprof_worker_create(1);
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
            unwind_to(w, w->jmp[i].top, cprof_ticks());
    return env;
}

void cprof_close_open_frames(void)
{
    uint64_t now = cprof_ticks();
    for (struct cprof_worker *w = cprof_workers(); w; w = w->next)
        unwind_to(w, w->stack, now);
}

/* The cost of a facade, measured where it runs, so that reports can estimate the
 * profiler's share of the run.  A probe routine (id 0 of a scratch shard, never
 * registered) goes through the real entry and exit; best of a few short rounds, timed
 * with CLOCK_MONOTONIC (the facade may read no clock at all). */
double cprof_facade_cost_ns(void)
{
    static struct cprof_routine probe = { "<probe>", "<cprof>", 0, 0, 0, 0 };
    enum { ROUNDS = 5, CALLS = 2000 };
    struct cprof_worker *saved = cprof_self;
    struct cprof_worker *w = cprof_worker_create(0);
    cprof_self = w;
    uint64_t best = UINT64_MAX;
    for (int round = 0; round < ROUNDS; round++) {
        uint64_t t0 = cprof_monotonic_ns();
        for (int i = 0; i < CALLS; i++) {
            cprof_leave(cprof_enter(&probe));
        }
        uint64_t t = cprof_monotonic_ns() - t0;
        if (t < best)
            best = t;
    }
    cprof_self = saved;
    cprof_worker_destroy(w);
    return (double)best / CALLS;
}
