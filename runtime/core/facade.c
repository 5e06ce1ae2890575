/* facade.c: what runs at every call of an instrumented routine.
 *
 * The call site sets cprof_pending.site after its arguments are evaluated (and the
 * target, when the callee is not a routine of the same unit); the callee's first
 * statement calls the entry, which accepts the site only if the site names the
 * routine or the target is the routine itself.  Otherwise the routine was entered from
 * code cprof did not compile (main, a qsort comparator, an uninstrumented function
 * pointer call) and counts under <external>.  The callee's exit runs the exit hook
 * through a cleanup variable, so every return path is covered; exit() and longjmp are
 * handled by closing frames left open.
 *
 * States (semantics.md): with al = omp_get_active_level() at the call and d the number of
 * the caller's own parallel constructs around the site, k of those d innermost levels
 * are active; the callee call is concurrent iff k > 0, the caller was entered
 * concurrently iff al - k > 0, and the callee is entered concurrently iff al > 0.
 *
 * The call site passes the call's case with its handshake where it knows it
 * (cprof_pending.kase, site->passes_case: docs/rewriting.md), so that the entry asks
 * OpenMP nothing; other sites' entries ask (enter_asked_*, apart).
 *
 * The common call (a site of the same unit whose calls this worker made last in the
 * same calling context) takes the straight path: the worker's cache of the site (its
 * slot) has the figures the call counts in and the context of the calls it makes, so
 * the entry looks nothing up.  Everything else branches off it, into enter_slow, which
 * fills the slot.  The exit's common path adds the activation's figures to its slot and
 * its parent frame; what a rarer activation needs (recursion, an entry from outside,
 * an <other> context, a sample) is marked in its frame.  docs/performance.md counts
 * the instructions.
 */
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"

__attribute__((noinline)) int cprof_active_levels_within(int d)
{
    int level = omp_get_level(), k = 0;
    for (int l = level - d + 1; l <= level; l++)
        if (l >= 1 && omp_get_team_size(l) > 1)
            k++;
    return k;
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

/* The case0 of a routine entered at active level al, or with a call's case al (a case
 * is not S-S iff the active level is not 0). */
static inline int case0_of(int al)
{
    return al > 0 ? CPROF_CS : CPROF_SS;
}

static inline int depth_load(const int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

/* A signal handler may open and close frames on this thread between any two of our
 * instructions, in the slots from w->top up.  So a slot is taken before it is filled
 * and read before it is given back; the compiler is kept from moving stores across
 * those points (no instruction is added). */
#define cprof_signal_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* CPROF_PATHS=0: no calling contexts (the slow path makes none). */
int cprof_paths_on = 1;
/* CPROF_TRACE=1 (chosen at start-up with the facade): the traced facade is every
 * other one compiled with trace 1, which calls the tracer that registered (trace.c). */
static int trace_on;
struct cprof_tracer cprof_tracer;
/* CPROF_RESOURCES sampled (chosen with the facade): frames keep their case. */
static int side_on;
/* CPROF_TIMING (docs/semantics.md, "Sampled timing"): the rule's figures, and its
 * threshold in ticks. */
struct cprof_timing cprof_timing = { .period = 32, .min_activations = 16, .tries = 64,
                                     .short_costs = 4 };
static uint64_t short_ticks;

/* ---- closing a frame ---- */

/* The side (0 sequential, 1 concurrent entry) of an activation frame f of w, whose
 * slot is in its context's figures or, for a recursive one, in those of a context that
 * folds into it. */
int cprof_frame_side(const struct cprof_worker *w, const struct cprof_frame *f)
{
    const struct cprof_node *c = f->ctx;
    if (f->slot >= c->time && f->slot < c->time + CPROF_NCASES)
        return f->slot != &c->time[CPROF_SS];
    for (const struct cprof_node *n = w->nodes; n; n = n->made_next)
        if (n->canon == c && f->slot >= n->time && f->slot < n->time + CPROF_NCASES)
            return f->slot != &n->time[CPROF_SS];
    return 0;
}

/* Whether frame f's self time is the tree's to give (docs/semantics.md): an
 * activation with calling contexts, whose calls hang from a context of its routine,
 * not past the limit. */
int cprof_tree_frame(const struct cprof_frame *f)
{
    const struct cprof_node *c = f->ctx;
    return cprof_paths_on && c->key && c->key->callee >= 0 &&
           !((f->depth & CPROF_FRAME_RARE) && (f->rare & CPROF_RARE_OTHER));
}

/* Frame below (f[-1]) of a frame closing or a body ending with children time dt and
 * direct calls n, which the tree does not show as children of its context: taken out
 * of its self time there (tree frames only: the others count their children). */
static void below_adjust(const struct cprof_worker *w, struct cprof_frame *below, uint64_t dt,
                         uint64_t n)
{
    if (below <= w->stack || !cprof_tree_frame(below))
        return;
    int side = cprof_frame_side(w, below);
    below->ctx->adj[CPROF_ADJ_SELF_S + side] -= dt;
    below->ctx->adj[CPROF_ADJ_DIRECT_S + side] += n;
}

/* A timed activation of a slot the sampled-timing rule watches (CPROF_RARE_SAMPLE), of
 * time dt, nested calls nested, inner if nested in one of its routine's: a short one
 * goes to the sample; short ones in a row make the slot sampled, a long one starts the
 * run again (docs/semantics.md, "Sampled timing"). */
static void sample_rule(uint64_t *slot, uint64_t dt, uint64_t nested, int inner)
{
    struct cprof_sampling *st = (struct cprof_sampling *)(slot + CPROF_SLOT(CPROF_FIG_SAMPLING));
    if (st->left < 0)
        return;
    int long_one = inner || nested || dt > short_ticks;
    if (!long_one) {
        slot[CPROF_SLOT_OF(sample_n)]++;
        slot[CPROF_SLOT_OF(sample_sum)] += dt;
        ((double *)slot)[CPROF_SLOT_OF(sq)] += (double)dt * (double)dt;
    }
    if (long_one) {
        st->run = 0;
        /* Never sampled in as many timed ones (count[case]): timed, unmarked, for good. */
        if (!st->once && slot[-CPROF_NCASES] >= (uint64_t)cprof_timing.tries)
            st->left = -1;
    } else if (++st->run >= cprof_timing.min_activations) {
        st->run = (int16_t)cprof_timing.min_activations;
        st->once = 1;
        st->left = cprof_timing.period - 1;
    }
}

/* The rarer exits: an activation nested in one of its routine's (its time to the
 * recursion's columns), past the node limit (its self time to <other>, its figures the
 * record's), an entry from outside that gives back the handshake it found, one the
 * sampled-timing rule watches. */
static __attribute__((noinline)) void close_marked(struct cprof_worker *w, struct cprof_frame *f,
                                                    uint64_t dt, uint64_t nested)
{
    uint64_t *slot = f->slot;
    uintptr_t marks = f->depth & CPROF_FRAME_MARKS;
    if (marks & CPROF_FRAME_RARE) {
        if (f->rare & CPROF_RARE_SAMPLE)
            sample_rule(slot, dt, nested, marks & CPROF_FRAME_INNER);
        if (f->rare & CPROF_RARE_SAVED) {
            cprof_pending.site = f->saved_site;
            cprof_pending.target = f->saved_target;
            cprof_pending.kase = f->saved_kase;
            cprof_pending.case0 = f->saved_case0;
        }
        /* Nested in the frame below on this thread, though not its child in the tree:
         * if that frame was whole when this one began (a signal handler may interrupt
         * the filling of one, whose fields are then another's). */
        if ((f->rare & CPROF_RARE_EXTERNAL) && cprof_paths_on && f[-1].ctx == f->saved_context)
            below_adjust(w, f - 1, dt, 1);
        if ((f->rare & CPROF_RARE_OTHER) && cprof_paths_on) {
            uint64_t self = dt - f->children;
            f->ctx->adj[CPROF_ADJ_SELF] += self;
            f->ctx->adj[CPROF_ADJ_DIRECT] += f->direct;
            slot[CPROF_SLOT(CPROF_FIG_SELF)] += self;
            slot[CPROF_SLOT(CPROF_FIG_DIRECT)] += f->direct;
            below_adjust(w, f - 1, dt, 1);
        }
    }
    if (!(marks & CPROF_FRAME_INNER))
        return;
    if (*cprof_frame_depth(f) > 1 || w->initial) {
        /* Nested in an activation of its routine on this thread: all the initial
         * thread's depths are its own; on another thread *depth is, and the rest (else)
         * is the initial thread's sequential depth alone. */
        slot[CPROF_SLOT(CPROF_FIG_REC_TIME)] += dt;
        slot[CPROF_SLOT(CPROF_FIG_REC_NESTED)] += nested;
    } else {
        slot[CPROF_SLOT(CPROF_FIG_THREAD_TIME)] += dt;
        slot[CPROF_SLOT(CPROF_FIG_THREAD_NESTED)] += nested;
    }
}

/* A routine's shared sequential depth is written by the initial thread alone, so a
 * plain load and store keep it exact without a locked instruction.  The depth is
 * lowered after the frame leaves the stack: every frame on it counts in its depth.
 * marked: the frame may have marks (else it has none); flat: no calling contexts
 * (CPROF_PATHS=0), so the activation's self time and direct calls go to its figures
 * now, where the tree would give them when the profile is written. */
static inline __attribute__((always_inline)) void close_frame_as(struct cprof_worker *w,
                                                                 struct cprof_frame *f,
                                                                 uint64_t now, int trace,
                                                                 int marked, int flat)
{
    if (trace)
        cprof_tracer.exit(w, f, now);
    uint64_t dt = now - f->t0;
    uint64_t nested = w->calls - f->calls0;
    uint64_t *slot = f->slot;
    uintptr_t depth = f->depth;
    slot[0] += dt;
    slot[CPROF_SLOT(CPROF_FIG_NESTED)] += nested;
    if (flat) {
        /* Self time per thread: what this activation did not spend in activations
         * nested in it on this thread.  A callee running on another worker (a parallel
         * region's team) has no frame below it there: it is not subtracted, it
         * overlaps. */
        slot[CPROF_SLOT(CPROF_FIG_SELF)] += dt - f->children;
        slot[CPROF_SLOT(CPROF_FIG_DIRECT)] += f->direct;
    }
    /* Sampled, an entry from outside gives back the context it found: the frame
     * below's, or an untimed activation's, which has no frame. */
    const void *found = 0;
    if (marked && (depth & CPROF_FRAME_MARKS)) {
        close_marked(w, f, dt, nested);
        if ((depth & CPROF_FRAME_RARE) && (f->rare & CPROF_RARE_EXTERNAL) && cprof_timing.sampled)
            found = f->saved_context;
    }
    f[-1].children += dt;
    f[-1].direct++;
    w->top = f;
    cprof_signal_fence();
    /* the shared one too: only its one writer closes its frames */
    --*(int *)(marked ? depth & ~(uintptr_t)CPROF_FRAME_MARKS : depth);
    /* Last: a store to thread-local storage would make gcc load the frame's fields
     * again after it. */
    cprof_pending.context = marked && found ? found : f[-1].ctx;
}

static inline __attribute__((always_inline)) void close_frame(struct cprof_worker *w,
                                                              struct cprof_frame *f,
                                                              uint64_t now, int trace)
{
    close_frame_as(w, f, now, trace, 1, !cprof_paths_on);
}

/* Frames above the live one at `keep` were skipped by longjmp: close them now. */
static void unwind_to(struct cprof_worker *w, struct cprof_frame *keep, uint64_t now, int trace)
{
    while (w->top > keep)
        close_frame(w, w->top - 1, now, trace);
}

/* ---- opening a frame ---- */

/* What an entry of routine r counted in figures fig with case kase, whose calls are
 * made in context ctx, needs: a slot's contents (its key aside). */
static struct cprof_slot slot_for(struct cprof_worker *w, struct cprof_routine *r,
                                  struct cprof_figures *fig, struct cprof_node *ctx, int kase)
{
    struct cprof_routine_rec *rec = fig->rec;
    /* A sequential entry of the initial thread counts on every worker (paper 4.4.1):
     * it goes to the routine's shared sequential depth, which a concurrent entry adds
     * to its own.  Every other thread that runs sequentially (a plain pthread) is a
     * program of its own: its sequential entries count on it alone. */
    int concurrent = kase != CPROF_SS, shared = !concurrent && w->initial;
    return (struct cprof_slot){
        .time = &fig->time[kase], .ctx = ctx, .routine = r, .rec = rec, .case0 = case0_of(kase),
        .mine = shared ? &r->seq_depth : &rec->depth,
        .other = shared ? &rec->depth : concurrent ? &r->seq_depth : &w->zero,
    };
}

/* Deeper than any thread stack allows: counted, but no frame kept. */
static __attribute__((noinline)) struct cprof_frame *too_deep(void)
{
    return 0;
}

/* Fills the frame f just taken on w (its depth raised: the marks say how) for an entry
 * of routine r as slot s describes it.  The slot is none of what the frame's stores
 * reach (restrict): its fields are loaded where they are stored, not kept in
 * registers. */
static inline __attribute__((always_inline)) struct cprof_frame *
fill_frame(struct cprof_worker *w, struct cprof_frame *f, struct cprof_routine *r,
           const struct cprof_slot *restrict s, int kase, uintptr_t marks,
           enum cprof_clock_kind clock, const void *sp, int site, int trace, int side)
{
    f->slot = s->time;
    f->depth = (uintptr_t)s->mine | marks;
    f->children = 0;
    f->direct_rare = 0;
    if (side)
        f->kase = (uint16_t)kase;
    f->ctx = s->ctx;
    f->calls0 = ++w->calls;
    f->sp = sp;
    f->t0 = cprof_ticks_of(clock);
    cprof_pending.context = s->ctx;     /* last, as in close_frame */
    return trace ? cprof_tracer.enter(w, r, f, s->rec, kase, site) : f;
}

/* An activation nested in another of its routine's on this thread, or in one of the
 * initial thread's sequential ones: the deepest recursion seen; marked.  Its depth,
 * marks and case come packed (no argument on the stack: the straight path reaches it
 * by a tail call). */
static __attribute__((noinline)) struct cprof_frame *
fill_inner(struct cprof_worker *w, struct cprof_frame *f, struct cprof_routine *r,
           const struct cprof_slot *s, const void *sp, unsigned packed)
{
    int depth = (int)(packed >> 8), kase = packed & 3;
    if (depth > s->rec->max_depth)
        s->rec->max_depth = depth;
    uintptr_t marks = CPROF_FRAME_INNER | (packed >> 4 & CPROF_FRAME_MARKS);
    /* A slot not the worker's is an entry's own: from outside, or past the limit. */
    int site = s >= w->slots && s < w->slots + w->nslots ? (int)(s - w->slots) : -1;
    return fill_frame(w, f, r, s, kase, marks, cprof_clock, sp, site, trace_on, side_on);
}

/* Opens a frame on w's top (which no longjmp skipped) for an entry of routine r as
 * slot s describes it, case kase, with the marks given.  site: the site's id, for a
 * trace (-1: from outside); side: the resources' variant keeps the case in the frame. */
static inline __attribute__((always_inline)) struct cprof_frame *
open_frame(struct cprof_worker *w, struct cprof_routine *r, const struct cprof_slot *restrict s,
           int kase, uintptr_t marks, enum cprof_clock_kind clock, const void *sp, int site,
           int trace, int side)
{
    struct cprof_frame *f = w->top;
    s->time[-CPROF_NCASES]++;       /* count[case] */
    if (__builtin_expect(f == w->stack_end, 0))
        return too_deep();
    int depth = ++*s->mine + __atomic_load_n(s->other, __ATOMIC_RELAXED);
    /* Taken before it is filled: a handler that interrupts the filling opens its frame
     * above this one, not in it (it may see this one half filled: docs/semantics.md). */
    w->top = f + 1;
    cprof_signal_fence();
    if (__builtin_expect(depth != 1, 0))
        return fill_inner(w, f, r, s, sp, (unsigned)depth << 8 | (unsigned)marks << 4 | (unsigned)kase);
    return fill_frame(w, f, r, s, kase, marks, clock, sp, site, trace, side);
}

/* ---- entering ---- */

/* The sampled-timing state of the entries slot s counts. */
static inline struct cprof_sampling *sampling_of(const struct cprof_slot *s)
{
    return (struct cprof_sampling *)(s->time + CPROF_SLOT(CPROF_FIG_SAMPLING));
}

/* The slot of a site that counts a leaf's untimed calls itself (site->leaf, cprof.h's
 * cprof_leaf_untimed), given what the entry just counted in (slot s of worker w), so
 * that the next calls there in the same context and case call no hook; st: the
 * figures' sampling state, or null under CPROF_MODE=count. */
static __attribute__((noinline)) struct cprof_frame *
fill_leaf(const struct cprof_site *site, struct cprof_worker *w, struct cprof_slot *s,
          struct cprof_sampling *st)
{
    struct cprof_leaf_slot *ls = site->leaf_slots() + site->leaf - 1;
    /* CPROF_MODE=count (no sampling state): every call counted as the entry counts
     * it, in count[case]; the countdown only sends the site to the hook now and then. */
    if (!st) {
        w->count_left = INT_MAX;
        ls->left = &w->count_left;
        ls->untimed = (unsigned long long *)&s->time[-CPROF_NCASES];
    } else {
        ls->left = &st->left;
        ls->untimed = (unsigned long long *)&s->time[CPROF_SLOT(CPROF_FIG_UNTIMED)];
    }
    ls->calls = (unsigned long long *)&w->calls;
    ls->key = s->key;
    return 0;       /* the entry's, by a tail call: the untimed path keeps no stack frame */
}

/* An entry of a sampled slot between two timed ones: counted (untimed), the calls it
 * makes given their context, no frame and no clock.  What it returns is the caller's
 * context tagged (bit 0), which the exit names again; contexts are 8-aligned.  A leaf
 * routine's (CPROF_ROUTINE_LEAF) makes no call that needs its context or its case0
 * (cprof_pending's): neither, and no exit call; from a site that counts such calls
 * itself, it fills the site's slot.  The worker's calls count it, as the timed ones
 * nested around it count their calls. */
static inline __attribute__((always_inline)) struct cprof_frame *
enter_untimed(const struct cprof_routine *r, const struct cprof_site *site, struct cprof_worker *w,
              struct cprof_slot *s, struct cprof_sampling *st, int32_t left, const void *caller)
{
    st->left = left - 1;
    s->time[CPROF_SLOT(CPROF_FIG_UNTIMED)]++;
    w->calls++;
    if (r->flags & CPROF_ROUTINE_LEAF) {
        if (__builtin_expect(site->leaf != 0, 0))
            return fill_leaf(site, w, s, st);
        return 0;
    }
    cprof_pending.case0 = (int)s->case0;
    cprof_pending.context = s->ctx;
    return (struct cprof_frame *)((uintptr_t)caller | 1);
}

/* The figures the calls of record c made now under the context parent count in, and
 * the context of the calls they make (ctx); past the node limit, their record's,
 * under <other> (CPROF_RARE_OTHER in *rare). */
static struct cprof_figures *figures_of(struct cprof_worker *w, struct cprof_call_rec *c,
                                        struct cprof_node *parent, struct cprof_node **ctx,
                                        int *rare)
{
    if (!cprof_paths_on || cprof_clock == CPROF_CLOCK_NONE) {
        *ctx = w->root;
        return &c->fig;
    }
    struct cprof_node *n = cprof_node_slow(w, parent, c);
    if (!n->key) {
        *ctx = n;
        *rare |= CPROF_RARE_OTHER;
        return &c->fig;
    }
    *ctx = n->canon;
    return &n->fig;
}

/* Every entry that leaves the straight path: a thread with no worker yet, a site this
 * worker's cache does not hold in the current context, a call through a pointer, a
 * frame left by longjmp, an entry from outside.  The handshake is consumed. */
static inline __attribute__((always_inline)) struct cprof_frame *
enter_slow_body(struct cprof_routine *r, const struct cprof_site *site,
                enum cprof_clock_kind clock, const void *sp, int trace, int side, int sampled)
{
    struct cprof_pending *p = &cprof_pending;
    int al = omp_get_active_level();
    struct cprof_worker *w = cprof_self;
    if (!w && !(w = cprof_self_slow())) {
        p->case0 = case0_of(al);
        return 0;
    }
    /* A frame deeper in the stack than this entry was left by a longjmp from code that
     * cprof did not see (the rewritten longjmp calls unwind exactly). */
    if (__builtin_expect(w->top[-1].sp < sp, 0)) {
        struct cprof_frame *keep = w->top;
        while (keep[-1].sp < sp)
            keep--;
        unwind_to(w, keep, cprof_ticks_of(clock), trace);
        p->context = w->top[-1].ctx;
    }
    if (__builtin_expect(r->id < 0, 0))
        cprof_routine_id_slow(r);
    struct cprof_routine_rec *rec = cprof_routine_rec(w, r->id);
    void (*target)(void) = p->target;
    int from_site = site->callee ? site->callee == r
                                 : site->caller && (target == r->self || !target ||
                                                    (r->self && cprof_plt_target(target) == r->self));
    struct cprof_node *ctx;
    struct cprof_figures *fig;
    int rare = 0;
    if (from_site) {
        if (__builtin_expect(site->id < 0, 0))
            cprof_site_id_slow((struct cprof_site *)site);
        int kase = site->passes_case ? (int)p->kase : case_of(site, al);
        p->case0 = case0_of(al);
        struct cprof_slot *s = cprof_slot_slow(w, site->id), scratch;
        /* the top activation's, or an untimed one's (which has no frame) */
        struct cprof_node *parent = (struct cprof_node *)p->context;
        uintptr_t key = (uintptr_t)parent | (uintptr_t)kase;
        if (s->key != key || s->routine != r) {
            struct cprof_call_rec *c = cprof_call_rec_slow(w, site->id, r->id);
            fig = figures_of(w, c, parent, &ctx, &rare);
            scratch = slot_for(w, r, fig, ctx, kase);
            scratch.key = key;
            if (!rare)
                *s = scratch;
            else
                s = &scratch;
        }
        if (clock == CPROF_CLOCK_NONE) {
            s->time[-CPROF_NCASES]++;
            return 0;
        }
        if (sampled) {
            struct cprof_sampling *st = sampling_of(s);
            if (st->left > 0)
                return enter_untimed(r, site, w, s, st, st->left, parent);
            if (!st->left)
                rare |= CPROF_RARE_SAMPLE;
        }
        struct cprof_frame *f = open_frame(w, r, s, kase, rare ? CPROF_FRAME_RARE : 0, clock, sp,
                                           site->id, trace, side);
        if (f && rare)
            f->rare = (uint16_t)rare;
        return f;
    }
    /* From outside: the handshake it found was not for it.  Left for the call it may
     * belong to, and given back at this entry's exit (its own calls consume theirs). */
    int kase = case0_of(al), case0_found = p->case0;
    long kase_found = p->kase;
    const void *context_found = p->context;
    p->site = site;
    p->case0 = kase;
    fig = figures_of(w, &rec->ext, w->root, &ctx, &rare);
    struct cprof_slot s = slot_for(w, r, fig, ctx, kase);
    if (clock == CPROF_CLOCK_NONE) {
        s.time[-CPROF_NCASES]++;
        return 0;
    }
    rare |= CPROF_RARE_EXTERNAL | (site != &cprof_no_site ? CPROF_RARE_SAVED : 0);
    struct cprof_frame *f = open_frame(w, r, &s, kase, CPROF_FRAME_RARE, clock, sp, -1, trace, side);
    if (f) {
        f->rare = (uint16_t)rare;
        f->saved_site = site;
        f->saved_target = target;
        f->saved_kase = kase_found;
        f->saved_case0 = case0_found;
        f->saved_context = context_found;
    }
    return f;
}

/* The slow path's twins: the straight path calls the one of its own variant. */
#define ENTER_SLOW(name, trace, side, sampled) \
    static __attribute__((noinline)) struct cprof_frame * \
    name(struct cprof_routine *r, const struct cprof_site *site, enum cprof_clock_kind clock, \
         const void *sp) \
    { \
        return enter_slow_body(r, site, clock, sp, trace, side, sampled); \
    }
ENTER_SLOW(enter_slow, 0, 0, 0)
ENTER_SLOW(enter_slow_traced, 1, 0, 0)
ENTER_SLOW(enter_slow_side, 0, 1, 0)
ENTER_SLOW(enter_slow_traced_side, 1, 1, 0)
ENTER_SLOW(enter_slow_sampled, 0, 0, 1)

/* A sampled facade's timed entry on the straight path, apart, so that the untimed
 * path saves no register for it.  A slot timed on every activation (left < 0) opens
 * its frame as the plain facade's entries do, by tail calls only; one the rule watches
 * (left 0) is marked, in a function of its own, where the frame's mark takes a
 * register across the opening. */
#define ENTER_SAMPLED_TIMED(name, watched, clock) \
    static __attribute__((noinline)) struct cprof_frame * \
    watched(struct cprof_worker *w, struct cprof_routine *r, const struct cprof_site *site, \
            struct cprof_slot *s, int kase, const void *sp) \
    { \
        struct cprof_frame *f = open_frame(w, r, s, kase, CPROF_FRAME_RARE, clock, sp, site->id, \
                                           0, 0); \
        if (f) \
            f->rare = CPROF_RARE_SAMPLE; \
        return f; \
    } \
    static __attribute__((noinline)) struct cprof_frame * \
    name(struct cprof_routine *r, const struct cprof_site *site, struct cprof_slot *s, int kase, \
         int32_t left, const void *sp) \
    { \
        struct cprof_worker *w = cprof_pending.worker; \
        if (__builtin_expect(w->top[-1].sp < sp, 0)) \
            return enter_slow_sampled(r, site, clock, sp); \
        if (__builtin_expect(!left, 0)) \
            return watched(w, r, site, s, kase, sp); \
        return open_frame(w, r, s, kase, 0, clock, sp, site->id, 0, 0); \
    }
ENTER_SAMPLED_TIMED(enter_sampled_timed_tsc, enter_sampled_watched_tsc, CPROF_CLOCK_TSC)
ENTER_SAMPLED_TIMED(enter_sampled_timed_monotonic, enter_sampled_watched_monotonic, CPROF_CLOCK_MONOTONIC)

/* The straight path: a site of the same unit for r whose slot on this worker holds
 * the context the call is made in and its case, and no frame left by longjmp. */
static inline __attribute__((always_inline)) struct cprof_frame *
enter_known(struct cprof_routine *r, const struct cprof_site *site, int kase,
            enum cprof_clock_kind clock, const void *sp, int trace, int side, int sampled)
{
    struct cprof_pending *p = &cprof_pending;
    struct cprof_worker *w = p->worker;
    unsigned sid = (unsigned)site->id;
    const void *caller = p->context;
    uintptr_t key = (uintptr_t)caller | (uintptr_t)kase;
    struct cprof_slot *s;
    struct cprof_frame *(*slow)(struct cprof_routine *, const struct cprof_site *,
                                enum cprof_clock_kind, const void *) =
        sampled ? enter_slow_sampled
                : trace ? side ? enter_slow_traced_side : enter_slow_traced
                        : side ? enter_slow_side : enter_slow;
    /* An untimed entry needs no frame: frames a longjmp skipped are looked for at the
     * next timed one. */
    if (__builtin_expect(site->callee != r || sid >= w->nslots ||
                         (clock != CPROF_CLOCK_NONE && !sampled && w->top[-1].sp < sp) ||
                         (s = &w->slots[sid])->key != key, 0))
        return slow(r, site, clock, sp);
    if (sampled) {
        struct cprof_sampling *st = sampling_of(s);
        int32_t left = st->left;
        if (__builtin_expect(left > 0, 1))
            return enter_untimed(r, site, w, s, st, left, caller);
        p->case0 = (int)s->case0;
        return (clock == CPROF_CLOCK_TSC ? enter_sampled_timed_tsc
                                         : enter_sampled_timed_monotonic)(r, site, s, kase, left, sp);
    }
    p->case0 = (int)s->case0;
    if (clock == CPROF_CLOCK_NONE) {
        s->time[-CPROF_NCASES]++;
        if (__builtin_expect(site->leaf != 0, 0) && (r->flags & CPROF_ROUTINE_LEAF))
            return fill_leaf(site, w, s, 0);
        return 0;
    }
    return open_frame(w, r, s, kase, 0, clock, sp, (int)sid, trace, side);
}

/* A site that does not pass its case (a call through a pointer, in a task, where the
 * site may not name the runtime's variables...): asked of OpenMP, apart, so that the
 * straight path calls nothing. */
#define ENTER_ASKED(name, clock, trace, side, sampled) \
    static __attribute__((noinline)) struct cprof_frame * \
    name(struct cprof_routine *r, const struct cprof_site *site, const void *sp) \
    { \
        return enter_known(r, site, case_of(site, omp_get_active_level()), clock, sp, trace, \
                           side, sampled); \
    }

/* The entry: the handshake consumed, the case the site passed. */
#define ENTER(name, asked, clock, trace, side, sampled) \
    ENTER_ASKED(asked, clock, trace, side, sampled) \
    static struct cprof_frame *name(struct cprof_routine *r) \
    { \
        struct cprof_pending *p = &cprof_pending; \
        const struct cprof_site *site = p->site; \
        const void *sp = __builtin_dwarf_cfa(); \
        p->site = &cprof_no_site; \
        if (__builtin_expect(!site->passes_case, 0)) \
            return asked(r, site, sp); \
        return enter_known(r, site, (int)p->kase, clock, sp, trace, side, sampled); \
    }

/* ---- leaving ---- */

/* A frame that is not the top one (those above it were skipped by longjmp, or it was
 * itself closed by an unwind already), or one whose marks take it off the common path. */
static __attribute__((noinline)) void leave_slow(struct cprof_worker *w, struct cprof_frame *f,
                                                 uint64_t now)
{
    if (f < w->stack + 1 || f >= w->top)
        return;
    unwind_to(w, f + 1, now, trace_on);
    cprof_pending.context = f[-1].ctx;
    close_frame(w, f, now, trace_on);
}

/* An untimed entry's exit (CPROF_TIMING=sampled): its caller's context named again. */
static inline __attribute__((always_inline)) int leave_untimed(struct cprof_frame *f)
{
    if (!((uintptr_t)f & 1))
        return 0;
    cprof_pending.context = (const void *)((uintptr_t)f & ~(uintptr_t)1);
    return 1;
}

static inline __attribute__((always_inline)) void leave(struct cprof_frame *f,
                                                        enum cprof_clock_kind clock, int trace,
                                                        int flat, int side)
{
    uint64_t now = cprof_ticks_of(clock);
    struct cprof_worker *w = cprof_pending.worker;
    if (__builtin_expect(f != w->top - 1 || (f->depth & CPROF_FRAME_MARKS), 0))
        return leave_slow(w, f, now);
    /* The resources' variant names the caller's context once the clock is read: from
     * there on the times give cprof's code to the caller, and so does a CPU sample
     * (resources.c), which takes the context this names over a frame whose own is not
     * it.  After the read, not before: the entry's read ends before its frame's context
     * is set, so each activation's samples hold one clock read, as its time does.
     * close_frame names it again last, for a signal handler's calls in between. */
    if (side)
        cprof_pending.context = f[-1].ctx;
    close_frame_as(w, f, now, trace, 0, flat);
}

/* The facades, one per clock and extension: CPROF_TRACE=1 (traced), CPROF_RESOURCES
 * (side: the frame keeps its case, by which a sample's context is charged), and
 * CPROF_PATHS=0 (flat: no calling contexts, so the exit keeps self times itself). */
#define FACADE(suffix, clock, trace, flat, side) \
    ENTER(enter_##suffix, enter_asked_##suffix, clock, trace, side, 0) \
    static void leave_##suffix(struct cprof_frame *f) \
    { \
        leave(f, clock, trace, flat, side); \
    }
/* CPROF_TIMING=sampled: the plain facade (no extension's variant) with untimed entries. */
#define FACADE_SAMPLED(suffix, clock) \
    ENTER(enter_##suffix, enter_asked_##suffix, clock, 0, 0, 1) \
    static void leave_##suffix(struct cprof_frame *f) \
    { \
        if (!leave_untimed(f)) \
            leave(f, clock, 0, 0, 0); \
    }
#define FACADES(suffix, clock) \
    FACADE(suffix, clock, 0, 0, 0) \
    FACADE(suffix##_flat, clock, 0, 1, 0) \
    FACADE(suffix##_traced, clock, 1, 0, 0) \
    FACADE(suffix##_flat_traced, clock, 1, 1, 0) \
    FACADE(suffix##_side, clock, 0, 0, 1) \
    FACADE(suffix##_flat_side, clock, 0, 1, 1) \
    FACADE(suffix##_traced_side, clock, 1, 0, 1) \
    FACADE(suffix##_flat_traced_side, clock, 1, 1, 1)
FACADES(tsc, CPROF_CLOCK_TSC)
FACADES(monotonic, CPROF_CLOCK_MONOTONIC)
FACADE_SAMPLED(tsc_sampled, CPROF_CLOCK_TSC)
FACADE_SAMPLED(monotonic_sampled, CPROF_CLOCK_MONOTONIC)
/* CPROF_MODE=count: no frame, never left, no context, never traced (trace.c). */
ENTER(enter_count, enter_asked_count, CPROF_CLOCK_NONE, 0, 0, 0)
static void leave_count(struct cprof_frame *f) { (void)f; }

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
    cprof_pending.case0 = case0_of(omp_get_active_level());
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
        CHECK(*cprof_frame_depth(f) >= 1, r);            /* its entry is counted */
        CHECK(!(f->depth & CPROF_FRAME_RARE) ||
              (f->rare && !(f->rare & ~(CPROF_RARE_OTHER | CPROF_RARE_SAMPLE | CPROF_RARE_SAVED |
                                        CPROF_RARE_EXTERNAL))), r);
        CHECK(!(f->depth & CPROF_FRAME_RARE) || !(f->rare & CPROF_RARE_SAVED) ||
              f->saved_site->caller || f->saved_site->id >= 0, r);
        CHECK(f->ctx != 0 && (f->ctx->canon == f->ctx || !f->ctx->key), r);   /* calls hang from canonical ones */
    }
    CHECK(cprof_pending.context == w->top[-1].ctx, r);      /* counted sites' caches see it */
}

/* Any clock, traced or not, as the run chose. */
ENTER(enter_any, enter_asked_any, cprof_clock, trace_on, 0, 0)

static struct cprof_frame *enter_debug(struct cprof_routine *r)
{
    const struct cprof_site *site = cprof_pending.site;
    if (site->passes_case && site->callee == r && cprof_self)
        CHECK(cprof_pending.kase == case_of(site, omp_get_active_level()), r);
    struct cprof_frame *f = enter_any(r);
    struct cprof_worker *w = cprof_self;
    CHECK(w != 0 || (f == 0 && !cprof_may_count()), r);
    if (!w)
        return f;       /* inside the runtime: not counted */
    CHECK(cprof_pending.site == &cprof_no_site || f == 0 ||
          ((f->depth & CPROF_FRAME_RARE) && (f->rare & CPROF_RARE_SAVED)), r);
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
    int *depth = f < top ? cprof_frame_depth(f) : 0;
    int before = depth ? *depth : 0;
    if (trace_on)
        leave(f, cprof_clock, 1, !cprof_paths_on, 0);
    else
        leave(f, cprof_clock, 0, !cprof_paths_on, 0);
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
    cprof_pending.site = &cprof_no_site;
    cprof_pending.case0 = case0_of(omp_get_active_level());
    return 0;
}

struct cprof_facade cprof_facade = { enter_first, leave_count };
static struct cprof_frame *(*running_enter)(struct cprof_routine *);
/* The facade CPROF_TIMING=sampled takes once the call's cost is measured, if the run's
 * is the plain one. */
static struct cprof_facade sampled_facade;

void cprof_facade_select(int traced, int side,
                         struct cprof_facade (*wrap)(struct cprof_facade))
{
#define BY_EXTENSION(c) { { { { enter_##c, leave_##c }, { enter_##c##_side, leave_##c##_side } }, \
                            { { enter_##c##_traced, leave_##c##_traced }, \
                              { enter_##c##_traced_side, leave_##c##_traced_side } } }, \
                          { { { enter_##c##_flat, leave_##c##_flat }, \
                              { enter_##c##_flat_side, leave_##c##_flat_side } }, \
                            { { enter_##c##_flat_traced, leave_##c##_flat_traced }, \
                              { enter_##c##_flat_traced_side, leave_##c##_flat_traced_side } } } }
    /* [clock][flat][traced][side] */
    static const struct cprof_facade facades[][2][2][2] = {
        [CPROF_CLOCK_TSC] = BY_EXTENSION(tsc),
        [CPROF_CLOCK_MONOTONIC] = BY_EXTENSION(monotonic),
    };
#undef BY_EXTENSION
    static const char *const off_on[] = { "0", "1", 0 };
    cprof_paths_on = cprof_setting_word("CPROF_PATHS", off_on, 1, "calling contexts are kept");
    unsigned long long max = (unsigned long long)cprof_paths_max;
    if (cprof_paths_on && cprof_setting_number("CPROF_PATHS_MAX", 1, INT_MAX - 1, &max,
                                               "100000 contexts per worker") == 0)
        cprof_paths_max = (int)max;
    trace_on = traced;
    side_on = side;
    if (cprof_setting_word("CPROF_DEBUG", off_on, 0, "the invariants are not checked"))
        cprof_facade = (struct cprof_facade){ enter_debug, leave_debug };
    else if (cprof_clock == CPROF_CLOCK_NONE)
        cprof_facade = (struct cprof_facade){ enter_count, leave_count };
    else
        cprof_facade = facades[cprof_clock][!cprof_paths_on][trace_on][side_on];
    if (wrap)
        cprof_facade = wrap(cprof_facade);
    sampled_facade = (struct cprof_facade){ 0, 0 };
    if (cprof_clock != CPROF_CLOCK_NONE && cprof_facade.enter == facades[cprof_clock][0][0][0].enter)
        sampled_facade = cprof_clock == CPROF_CLOCK_TSC
                             ? (struct cprof_facade){ enter_tsc_sampled, leave_tsc_sampled }
                             : (struct cprof_facade){ enter_monotonic_sampled, leave_monotonic_sampled };
    running_enter = cprof_facade.enter;
}

void cprof_frame_timed_always(struct cprof_frame *f)
{
    ((struct cprof_sampling *)(f->slot + CPROF_SLOT(CPROF_FIG_SAMPLING)))->left = -1;
}

/* Other threads may be calling through cprof_facade.enter: one pointer, stored whole. */
void cprof_facade_stop(int stopped)
{
    __atomic_store_n(&cprof_stopped, stopped, __ATOMIC_RELAXED);
    cprof_following_update();
    __atomic_store_n(&cprof_facade.enter, stopped ? enter_stopped : running_enter,
                     __ATOMIC_RELAXED);
}

/* ---- counted call sites ---- */

/* Where a counted call of site made now on w with case kase counts: in the context of
 * the calls the top activation makes (docs/semantics.md), or in the record where there
 * is none (CPROF_PATHS=0, CPROF_MODE=count, past the node limit).  The site's slot
 * keeps it. */
static unsigned long long *counts_in_context(struct cprof_worker *w, const struct cprof_site *site,
                                             int kase)
{
    struct cprof_routine *callee = site->callee;
    struct cprof_slot *s = cprof_slot_slow(w, site->id);
    /* the top activation's, or an untimed one's (which has no frame) */
    struct cprof_node *parent = (struct cprof_node *)cprof_pending.context;
    uintptr_t key = (uintptr_t)parent | (uintptr_t)kase;
    if (s->key == key && s->routine == callee)
        return (unsigned long long *)s->time - CPROF_NCASES - kase;
    if (__builtin_expect(callee->id < 0, 0))
        cprof_routine_id_slow(callee);
    struct cprof_call_rec *c = cprof_call_rec_slow(w, site->id, callee->id);
    struct cprof_node *ctx;
    int rare = 0;
    struct cprof_figures *fig = figures_of(w, c, parent, &ctx, &rare);
    if (!rare) {
        *s = slot_for(w, callee, fig, ctx, kase);
        s->key = key;
    }
    return fig->count;
}

int cprof_site_case(const struct cprof_site *site)
{
    return case_of(site, omp_get_active_level());
}

/* The runtime's count of a counted call from site: its case (-1: not counted), the
 * active level al, and where it counted.  No OpenMP call before the thread may count:
 * an ifunc resolver runs before libomp is relocated. */
static int count_now(const struct cprof_site *site, int *al, unsigned long long **counts)
{
    struct cprof_worker *w = cprof_self;
    /* No worker may be made yet (an ifunc resolver before thread-local storage is set
     * up, or libomp relocated) or now (the runtime's own code): count nothing, ask
     * OpenMP nothing. */
    if (!w && !(w = cprof_self_slow()))
        return -1;
    /* after cprof_self_slow, which may start the runtime (and its probe enters) */
    *al = omp_get_active_level();
    if (__builtin_expect(site->id < 0, 0))
        cprof_site_id_slow((struct cprof_site *)site);
    int kase = case_of(site, *al);
    *counts = counts_in_context(w, site, kase);
    (*counts)[kase]++;
    return kase;
}

void cprof_count(const struct cprof_site *site)
{
    int al;
    unsigned long long *counts;
    if (__builtin_expect(__atomic_load_n(&cprof_stopped, __ATOMIC_RELAXED), 0))
        al = omp_get_active_level();
    else if (count_now(site, &al, &counts) < 0)
        return;
    cprof_pending.case0 = case0_of(al);
}

/* A counted routine's entry that did not come from its unit's sites (cprof.h): counted
 * as CPROF_MODE=count counts an entry (the handshake consumed, case0 set for the
 * routine's own counted calls, no frame), whatever the run's timing; stopped, or
 * before the runtime starts, as the facade does then. */
void cprof_count_entry(struct cprof_routine *r)
{
    struct cprof_frame *(*enter)(struct cprof_routine *) =
        __atomic_load_n(&cprof_facade.enter, __ATOMIC_RELAXED);
    if (__builtin_expect(enter == enter_first, 0)) {
        if (!cprof_may_count())
            return;
        if (r->id < 0)
            cprof_routine_id_slow(r);   /* starts the runtime */
        enter = __atomic_load_n(&cprof_facade.enter, __ATOMIC_RELAXED);
        if (enter == enter_first) {
            cprof_pending.case0 = case0_of(omp_get_active_level());
            return;
        }
    }
    if (enter == enter_stopped)
        enter_stopped(r);
    else
        enter_count(r);
}

int cprof_count_miss(const struct cprof_site *site, struct cprof_count_slot *slot)
{
    /* Stopped: the case, for the cache, but no count and no slot, so the next call
     * misses too (a slot set before the stop keeps counting: control.c takes those
     * counts out). */
    if (__atomic_load_n(&cprof_stopped, __ATOMIC_RELAXED)) {
        int al = omp_get_active_level();
        cprof_pending.case0 = case0_of(al);
        return case_of(site, al);
    }
    unsigned long long *counts;
    int al, kase = count_now(site, &al, &counts);
    if (kase < 0)
        return -1;
    /* Records and contexts never move. */
    slot->counts = counts;
    slot->not_context = ~(unsigned long)cprof_pending.context;
    cprof_pending.case0 = case0_of(al);
    return kase;
}

/* ---- setjmp and longjmp ---- */

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
    w->jmp[slot].context = cprof_pending.context;
    return env;
}

void *cprof_longjmp_unwind(void *env)
{
    struct cprof_worker *w = cprof_self;
    if (!w)
        return env;
    for (int i = 0; i < CPROF_JMP_MARKS; i++)
        if (w->jmp[i].env == env && w->jmp[i].top <= w->top) {
            unwind_to(w, w->jmp[i].top, cprof_ticks(), trace_on);
            /* the context at the setjmp: an untimed activation's has no frame */
            cprof_pending.context = w->jmp[i].context;
        }
    return env;
}

/* ---- the bodies of parallel regions and tasks (omp.c) ---- */

/* A body's frame opened and closed, traced (trace 1) or not: the traced twins are apart,
 * so that the untraced ones run the instructions they would without tracing, but for
 * the test that picks them. */
static inline __attribute__((always_inline)) struct cprof_frame *
body_open(struct cprof_worker *w, struct cprof_construct_rec *c, uint64_t *time,
          struct cprof_node *ctx, int kase, const void *sp, int trace)
{
    struct cprof_frame *f = w->top;
    time[-CPROF_NCASES]++;          /* count[case]: its executions */
    if (cprof_clock == CPROF_CLOCK_NONE || f == w->stack_end)
        return 0;
    w->top = f + 1;
    cprof_signal_fence();
    f->slot = time;
    f->ctx = ctx;
    cprof_pending.context = ctx;
    f->depth = (uintptr_t)&w->bodies;
    ++w->bodies;
    f->sp = sp;
    f->children = 0;
    f->direct_rare = 0;
    f->kase = (uint16_t)kase;
    f->calls0 = w->calls;       /* not a call: the calls nested around it are unchanged */
    f->t0 = cprof_ticks();
    return trace ? cprof_tracer.body(w, f, c, kase) : f;
}

static __attribute__((noinline)) struct cprof_frame *
body_open_traced(struct cprof_worker *w, struct cprof_construct_rec *c, uint64_t *time,
                 struct cprof_node *ctx, int kase, const void *sp)
{
    return body_open(w, c, time, ctx, kase, sp, 1);
}

struct cprof_frame *cprof_body_open(struct cprof_worker *w, struct cprof_construct_rec *c,
                                    uint64_t *time, struct cprof_node *ctx, int kase,
                                    const void *sp)
{
    if (__builtin_expect(trace_on, 0))
        return body_open_traced(w, c, time, ctx, kase, sp);
    return body_open(w, c, time, ctx, kase, sp, 0);
}

/* A body that ran at the bottom of its thread's stack: its own time goes to its
 * context, or a region's to the context that has the construct (docs/semantics.md,
 * "Team time"). */
static __attribute__((noinline)) void body_bottom(struct cprof_node *ctx, struct cprof_body_nest in)
{
    struct cprof_node *to = ctx;
    if (ctx->parent && ((const struct cprof_construct_rec *)ctx->key)->kind == CPROF_REGION_PARALLEL)
        to = ctx->parent;
    to->adj[CPROF_ADJ_SELF] += in.elapsed - in.time;
    to->adj[CPROF_ADJ_DIRECT] += in.direct;
}

static inline __attribute__((always_inline)) struct cprof_body_nest
body_close(struct cprof_worker *w, struct cprof_frame *f, int trace)
{
    uint64_t now = cprof_ticks();
    if (f < w->stack + 1 || f >= w->top)
        return (struct cprof_body_nest){ 0, 0, 0 };
    if (__builtin_expect(f != w->top - 1, 0))
        unwind_to(w, f + 1, now, trace);
    if (trace)
        cprof_tracer.exit(w, f, now);
    /* Read before the slot is given back (a signal handler may reuse it). */
    struct cprof_body_nest in = { now - f->t0, f->children, f->direct };
    uint64_t *slot = f->slot;
    slot[0] += in.elapsed;
    slot[CPROF_SLOT(CPROF_FIG_NESTED)] += w->calls - f->calls0;
    w->top = f;
    cprof_signal_fence();
    --w->bodies;
    cprof_pending.context = f[-1].ctx;
    /* What nested in the body nested in the frame below, as without the body's frame:
     * its self time is the frame below's (docs/semantics.md). */
    f[-1].children += in.time;
    f[-1].direct += (uint32_t)in.direct;
    /* Its calls are no children of the frame below's context in the tree: they are
     * taken out of its self time there; the body's own time is the frame below's. */
    if (cprof_paths_on) {
        if (f - 1 > w->stack)
            below_adjust(w, f - 1, in.time, in.direct);
        else if (f->ctx->key)
            body_bottom(f->ctx, in);
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

/* The probe: a routine and a site of their own (never registered) on a scratch worker
 * (a shard of its own, id 0), through which the facades' costs are measured where the
 * program runs; the thread's worker and context are put back after. */
static struct cprof_routine probe = { .name = "<probe>", .file = "<cprof>" };
static struct cprof_site probe_site = { .caller = &probe, .callee = &probe, .file = "<cprof>" };
enum { PROBE_ROUNDS = 5, PROBE_CALLS = 2000 };

struct probe_run {
    struct cprof_worker *saved, *w;
    const void *saved_context;
};

static struct probe_run probe_begin(void)
{
    struct probe_run r = { cprof_self, cprof_worker_create(0), cprof_pending.context };
    cprof_self_set(r.w);
    cprof_pending.context = r.w->root;
    return r;
}

static void probe_end(struct probe_run *r)
{
    cprof_self_set(r->saved);
    cprof_pending.context = r->saved_context;
    cprof_worker_destroy(r->w);
}

/* PROBE_CALLS calls of the probe through facade fc, from the probe's site: their ns. */
static uint64_t probe_calls(struct cprof_facade fc)
{
    uint64_t t0 = cprof_monotonic_ns();
    for (int i = 0; i < PROBE_CALLS; i++) {
        cprof_pending.site = &probe_site;
        struct cprof_frame *f = fc.enter(&probe);
        if (f)
            fc.leave(f);
    }
    return cprof_monotonic_ns() - t0;
}

/* The cost of a facade, measured where it runs, so that reports can estimate the
 * profiler's share of the run: the probe through the real entry and exit, and through
 * the call-site count as a unit inlines it (cprof_count_cached, its slot thread-local;
 * the barrier keeps gcc from summing the loop's counts into one add); best of a few
 * short rounds, timed with CLOCK_MONOTONIC (the facade may read no clock at all). */
static __thread struct cprof_count_slot probe_counts;

struct cprof_costs cprof_facade_cost_ns(void)
{
    struct probe_run run = probe_begin();
    uint64_t best[2] = { UINT64_MAX, UINT64_MAX };
    for (int round = 0; round < PROBE_ROUNDS; round++) {
        uint64_t called = probe_calls(cprof_facade);
        uint64_t t1 = cprof_monotonic_ns();
        probe_counts = (struct cprof_count_slot){ 0 };
        for (int i = 0, kase = CPROF_SS; i < PROBE_CALLS; i++) {
            kase = cprof_count_cached(&probe_site, &probe_counts, kase);
            __asm__ volatile("" ::: "memory");
        }
        uint64_t counted = cprof_monotonic_ns() - t1;
        if (called < best[0])
            best[0] = called;
        if (counted < best[1])
            best[1] = counted;
    }
    probe_counts = (struct cprof_count_slot){ 0 };
    probe_end(&run);
    return (struct cprof_costs){ (double)best[0] / PROBE_CALLS, (double)best[1] / PROBE_CALLS };
}

/* What the time of an untimed call is estimated from (docs/semantics.md, "Sampled
 * timing"): a timed activation's time holds the part of the timed facade between its two
 * clock reads, an untimed call costs its caller the untimed facade whole.  Both
 * measured on the probe, as the call's cost: the mean time of its empty timed
 * activations (the best round, here), and a call's cost once its slot is sampled (every
 * 32nd timed: untimed_call_ns).  The correction is their difference, or none. */
static double timed_inner_ns(void)
{
    struct probe_run run = probe_begin();
    double inner = 1e300;
    for (int round = 0; round < PROBE_ROUNDS; round++) {
        cprof_pending.context = run.w->root;
        uint64_t ticks0 = 0, n0 = 0;
        struct cprof_slot *s = probe_site.id >= 0 ? cprof_slot_slow(run.w, probe_site.id) : 0;
        if (s && s->time)
            ticks0 = s->time[0], n0 = s->time[-CPROF_NCASES];
        probe_calls(cprof_facade);
        s = cprof_slot_slow(run.w, probe_site.id);
        if (s->time[-CPROF_NCASES] > n0) {
            double mean = (double)(s->time[0] - ticks0) * cprof_ns_per_tick() /
                          (double)(s->time[-CPROF_NCASES] - n0);
            if (mean < inner)
                inner = mean;
        }
    }
    probe_end(&run);
    return inner;
}

/* A round counts only if the probe's slot was sampled throughout (no activation found
 * long in it): one found long in the warm-up (the sampled facade's code cold, an
 * interrupt) leaves the slot timed on every call, and the round would measure a timed
 * call, not an untimed one (the correction then came out 0 on most runs, and every
 * sampled estimate high).  Each try on a worker of its own, whose slot the rule has not
 * given up on. */
static double untimed_call_ns(void)
{
    double untimed = 1e300;
    for (int tries = 0, good = 0; tries < 4 * PROBE_ROUNDS && good < PROBE_ROUNDS; tries++) {
        struct probe_run run = probe_begin();
        probe_calls(sampled_facade);     /* the warm-up: the slot becomes sampled */
        cprof_pending.context = run.w->root;
        uint64_t *untimed_n = cprof_slot_slow(run.w, probe_site.id)->time +
                              CPROF_SLOT(CPROF_FIG_UNTIMED);
        uint64_t n0 = *untimed_n;
        double ns = (double)probe_calls(sampled_facade) / PROBE_CALLS;
        if (*untimed_n - n0 + 1 + PROBE_CALLS / cprof_timing.period >= PROBE_CALLS) {
            good++;
            if (ns < untimed)
                untimed = ns;
        }
        probe_end(&run);
    }
    return untimed;
}

/* The cost of an untimed call that its site counts (cprof_leaf_untimed, inline as a
 * unit has it, its slot thread-local): what the call costs its caller beyond the
 * routine's copy, which it then calls as a plain build calls the routine.  Best of a
 * few rounds, as the others. */
static __thread struct cprof_leaf_slot probe_leaf;

static double site_untimed_ns(void)
{
    int left = INT_MAX;
    unsigned long long untimed = 0, calls = 0;
    uint64_t best = UINT64_MAX;
    unsigned long key = (unsigned long)cprof_pending.context | CPROF_SS;
    for (int round = 0; round < PROBE_ROUNDS; round++) {
        probe_leaf = (struct cprof_leaf_slot){ key, &left, &untimed, &calls };
        uint64_t t0 = cprof_monotonic_ns();
        for (int i = 0; i < PROBE_CALLS; i++) {
            int hit = cprof_leaf_untimed(&probe_leaf, CPROF_SS);
            __asm__ volatile("" : : "r"(hit) : "memory");
        }
        uint64_t ns = cprof_monotonic_ns() - t0;
        if (ns < best)
            best = ns;
    }
    probe_leaf = (struct cprof_leaf_slot){ 0 };
    return (double)best / PROBE_CALLS;
}

void cprof_facade_timing(double call_cost_ns)
{
    static const char *const modes[] = { "sampled", "every", 0 };
    int every = cprof_setting_word("CPROF_TIMING", modes, 0,
                                   "short activations of hot routines are timed on a sample");
    cprof_timing.call_cost_ns = call_cost_ns;
    cprof_timing.short_ns = cprof_timing.short_costs * call_cost_ns;
    short_ticks = (uint64_t)(cprof_timing.short_ns / cprof_ns_per_tick());
    cprof_timing.sampled = !every && sampled_facade.enter;
    /* Asked for by name, but the run's facade is an extension's, which has no sampled
     * variant: said, not ignored. */
    if (!every && !sampled_facade.enter && getenv("CPROF_TIMING"))
        fprintf(stderr, "cprof: CPROF_TIMING=sampled: this run's facade (CPROF_TRACE, "
                        "CPROF_RESOURCES, CPROF_PATHS=0, CPROF_DEBUG or input sizes) times "
                        "every activation\n");
    if (!cprof_timing.sampled)
        return;
    double inner = timed_inner_ns(), untimed = untimed_call_ns(), site = site_untimed_ns();
    if (inner < 1e300 && untimed < 1e300) {
        cprof_timing.inner_ns = inner;
        cprof_timing.untimed_ns = untimed;
        cprof_timing.correction_ns = inner > untimed ? inner - untimed : 0;
        cprof_timing.site_untimed_ns = site;
        cprof_timing.site_correction_ns = inner > site ? inner - site : 0;
    }
    cprof_facade = sampled_facade;
    running_enter = cprof_facade.enter;
}
