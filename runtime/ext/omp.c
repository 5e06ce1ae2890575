/* omp.c: the model of parallel regions and tasks (docs/semantics.md, "Parallel regions
 * and tasks"), fed by two sources: gomp.c, where the program asks libgomp for them
 * (its entry points wrapped at the link), and ompt.c, where libomp tells its OMPT tool
 * about them.  Each source hands the model the same moments (omp_model.h):
 *  - a team opened and joined (the opener's context and the construct's case);
 *  - each member's body begun and ended: timed on its worker, and the calls made in it
 *    hang from a context for the construct under the opener's (or the task's
 *    creator's) context, found or made in the running worker's own tree from the other
 *    worker's, so every thread of a team sees the opener's whole path;
 *  - a task made, its body begun and ended (tasks nest on a thread);
 *  - a barrier's wait, less the tasks run meanwhile, and at the join each member's wait
 *    from its end to the opener's, and the execution's slowest and mean member.
 * The construct is named by its site, which the rewritten code leaves in
 * cprof_pending.construct just before it; a construct cprof-cc did not compile (or one
 * whose clauses opened another region first) is unnamed.
 *
 * Only the owner writes a worker's records, but for end_wait, which the opener of an
 * execution adds to each member's record atomically (and reads its task time).
 * Nothing here runs per loop iteration: per region execution and member, per task,
 * per barrier.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "omp_model.h"
#include "placement.h"

_Static_assert((int)CPROF_CONSTRUCT_PARALLEL == (int)CPROF_REGION_PARALLEL
               && (int)CPROF_CONSTRUCT_TASK == (int)CPROF_REGION_TASK
               && (int)CPROF_CONSTRUCT_BARRIER == (int)CPROF_REGION_BARRIER,
               "a site's construct is its regions row's kind");

/* Profiled units are loaded (the profile is not written yet), the program has not
 * stopped profiling, and this thread may count. */
int cprof_omp_counting(void)
{
    return cprof_may_count() && cprof_following();
}

struct cprof_worker *cprof_omp_self(void)
{
    return cprof_self ? cprof_self : cprof_self_slow();
}

static struct cprof_construct_rec *rec_of(struct cprof_worker *w, const struct cprof_site *s,
                                          int kind)
{
    struct cprof_construct_rec *c;
    if (s && s->id >= 0 && s->id < w->constructs_cap && (c = w->constructs[s->id]))
        return c;
    return cprof_construct_rec_slow(w, s, kind);
}

/* The case of construct s met now, as a call from its site would have: whether the
 * routine around it was entered concurrently (its active levels but those of its own
 * constructs around s), then whether one of those is active; at active level al. */
static int case_at(const struct cprof_site *s, int al)
{
    int k = s && s->d && al ? cprof_active_levels_within(s->d) : 0;
    return (al - k > 0) * 2 + (k > 0);
}

static int case_here(const struct cprof_site *s)
{
    return case_at(s, omp_get_active_level());
}

/* The context of the top activation, where a construct met now belongs. */
static const struct cprof_node *context_here(struct cprof_worker *w)
{
    (void)w;
    return cprof_pending.context;       /* an untimed activation's has no frame */
}

/* ---- another worker's context, in this worker's tree ---- */

#define MAPPED 256

static struct cprof_node *child(struct cprof_worker *w, struct cprof_node *parent,
                                struct cprof_call_rec *key)
{
    return cprof_node_slow(w, parent, key);
}

/* This worker's record standing for key, a record of another worker's. */
static struct cprof_call_rec *same_key(struct cprof_worker *w, const struct cprof_call_rec *key)
{
    if (key->callee < 0) {
        struct cprof_construct_rec *theirs = (struct cprof_construct_rec *)key;
        const struct cprof_site *s = key->site >= 0 ? cprof_site_by_id(key->site) : 0;
        return &rec_of(w, s, theirs->kind)->key;
    }
    if (key == &key->rec->ext)
        return &cprof_routine_rec(w, key->callee)->ext;
    return cprof_call_rec_slow(w, key->site, key->callee);
}

/* n's path made in w's tree (a canonical context for n's canonical one).  Another
 * worker's contexts never change their key or parent once made, and the one handed
 * here was made before the OpenMP runtime passed it on. */
static struct cprof_node *map(struct cprof_worker *w, const struct cprof_node *n)
{
    if (!n || !n->parent)
        return w->root;
    if (!w->mapped)
        w->mapped = cprof_worker_alloc(w, MAPPED * sizeof *w->mapped);
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

/* The body's frame opened (figures time[case], its calls' context ctx) and its
 * execution begun. */
static void body_open(struct cprof_body *b, struct cprof_worker *w, struct cprof_construct_rec *c,
                      uint64_t *time, struct cprof_node *ctx, int kase, const void *sp,
                      int al, int team)
{
    b->w = w;
    b->counted = time - CPROF_NCASES;   /* count[case], where cprof_body_open counts it */
    b->frame = cprof_body_open(w, c, time, ctx, kase, sp);
    b->tasks0 = w->task_ticks;
    b->calls0 = w->calls;
    b->t0 = cprof_ticks();
    b->e.rec = c;
    b->e.barrier_wait = 0;
    b->e.last_sync = b->t0;
    b->e.outer = w->running;
    b->e.al = al;
    b->e.team = (unsigned char)team;
    b->e.made_ctx = 0;              /* no task made in it yet */
    w->running = &b->e;
}

/* Opens the body of construct s (kind) on worker w, met at context ctx of worker owner
 * (w or another), case kase. */
static __attribute__((noinline)) void body_begin(struct cprof_body *b, struct cprof_worker *w,
    const struct cprof_site *s, int kind, const struct cprof_node *ctx,
    const struct cprof_worker *owner, int kase, const void *sp)
{
    struct cprof_construct_rec *c = rec_of(w, s, kind);
    /* Past the node limit n is its parent's <other>: counted in the record, as a call
     * is, and the calls made in the body hang from that <other>. */
    struct cprof_node *n = 0;
    if (cprof_paths_on && cprof_clock != CPROF_CLOCK_NONE)
        n = child(w, w == owner ? (struct cprof_node *)ctx : map(w, ctx), &c->key);
    body_open(b, w, c, n && n->key ? &n->time[kase] : &c->key.time[kase],
              n ? n->canon : w->root, kase, sp, -1, 1);
}

/* Closes it: returns the busy time (the body's, less its barriers' waits). */
static inline __attribute__((always_inline)) uint64_t body_end(struct cprof_body *b, uint64_t now)
{
    struct cprof_worker *w = b->w;
    w->running = b->e.outer;
    b->in = b->frame ? cprof_body_close(w, b->frame) : (struct cprof_body_nest){ 0, 0, 0 };
    return now - b->t0 - b->e.barrier_wait;
}

/* ---- parallel regions ---- */

/* A team of size running c now, among those it ran with. */
static void count_team(struct cprof_construct_rec *c, int size)
{
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

/* On a member that did not open the region, the routines its body works for
 * (docs/semantics.md, "Team time"): those on the opener's path (its canonical
 * contexts: each routine once, and through the body of an outer region or a task, on
 * to their opener's or creator's), or without contexts the routine whose body has the
 * construct; self, the one of them whose body has it (the innermost one when the
 * construct is unnamed), -1 if none.  Each one's records on this worker, and the time
 * it had been open on this thread when the body began: its activations in the body
 * count that time themselves. */
/* The time a routine's activations were open on this worker: of the ones that
 * closed, those not nested in another of its own on this thread, in its records and
 * their contexts. */
static uint64_t figures_open(const struct cprof_call_rec *c)
{
    uint64_t t = 0;
    for (int k = 0; k < CPROF_NCASES; k++)
        t += c->time[k] - c->rec_time[k];
    for (const struct cprof_node *n = c->nodes; n; n = n->same_key)
        for (int k = 0; k < CPROF_NCASES; k++)
            t += n->time[k] - n->rec_time[k];
    return t;
}

static uint64_t open_time(const struct cprof_routine_rec *r)
{
    uint64_t t = figures_open(&r->ext);
    for (const struct cprof_call_rec *c = r->records; c; c = c->next_of_callee)
        t += figures_open(c);
    return t;
}

static void team_path_add(struct cprof_member_body *p, struct cprof_worker *w, int routine,
                          int self)
{
    struct cprof_routine_rec *r = cprof_routine_rec(w, routine);
    if (self)
        p->self = p->n;
    p->rec[p->n] = r;
    p->open0[p->n++] = open_time(r);
}

static void team_path_begin(struct cprof_member_body *p, const struct cprof_team *t,
                            struct cprof_worker *w)
{
    const struct cprof_routine *named = t->construct ? t->construct->caller : 0;
    int self = named ? named->id : -1, steps = 0;
    if (!cprof_paths_on) {
        if (self >= 0)
            team_path_add(p, w, self, 1);
        return;
    }
    for (const struct cprof_node *c = t->ctx; c && c->parent && steps < CPROF_TEAM_PATH_MAX;
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
static void team_path_end(const struct cprof_member_body *p)
{
    const struct cprof_body *b = &p->b;
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

/* A body not followed (the program stopped profiling) runs in the execution around it
 * on this thread, at another level: the tasks made there were not made in that. */
static void forget_made(void)
{
    struct cprof_worker *w = cprof_self;
    if (w && w->running) {
        w->running->made_ctx = 0;
        w->running->al = -1;
    }
}

void cprof_member_begin(struct cprof_member_body *mb, const struct cprof_team *t, int size,
                        const void *sp)
{
    struct cprof_worker *w;
    mb->followed = cprof_omp_counting() && (w = cprof_omp_self());
    mb->n = 0;
    mb->self = -1;
    if (!mb->followed)
        return forget_made();
    /* The body runs concurrently if the region is active (more than one thread) or a
     * construct of the opener's around it is. */
    int kase = (t->kase & CPROF_CS) + ((t->kase & 1) || size > 1);
    body_begin(&mb->b, w, t->construct, CPROF_REGION_PARALLEL, t->ctx, t->opener, kase, sp);
    cprof_placement_observe(w, 0);
    count_team(mb->b.e.rec, size);
    if (w != t->opener && mb->b.frame)
        team_path_begin(mb, t, w);
}

void cprof_member_end(struct cprof_member_body *mb, const struct cprof_team *t, int index)
{
    /* A worksharing construct whose barrier the compiler left out (the region's end is
     * one). */
    cprof_pending.construct = 0;
    if (!mb->followed)
        return forget_made();
    uint64_t now = cprof_ticks();
    uint64_t busy = body_end(&mb->b, now);
    cprof_placement_observe(mb->b.w, mb->b.w != t->opener);   /* a member then waits for work */
    if (mb->n)
        team_path_end(mb);
    if (index >= 0 && index < t->cap)
        t->members[index] = (struct cprof_member){ mb->b.e.rec, mb->b.w, busy, now,
                                                   tasks_of(mb->b.w) };
}

int cprof_team_cap(unsigned num_threads)
{
    int n = num_threads ? (int)num_threads : omp_get_max_threads();
    return n < 1 ? 1 : n > 1024 ? 1024 : n;
}

int cprof_team_begin(struct cprof_team *t, struct cprof_member *m, int cap)
{
    const struct cprof_site *s = cprof_omp_take(CPROF_CONSTRUCT_PARALLEL);
    struct cprof_worker *w;
    if (!cprof_omp_counting() || !(w = cprof_omp_self()))
        return 0;
    memset(m, 0, (size_t)cap * sizeof *m);
    *t = (struct cprof_team){ s, context_here(w), w, case_here(s), cap, m };
    return 1;
}

void cprof_team_end(struct cprof_team *t)
{
    uint64_t now = cprof_ticks(), max = 0, sum = 0;
    int n = 0;
    for (int i = 0; i < t->cap; i++) {
        struct cprof_member *m = &t->members[i];
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

/* ---- barriers: a wait of the innermost execution on this worker, and of the
 * construct that ends there ---- */

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

void cprof_wait_begin(struct cprof_wait *x)
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
void cprof_wait_end(struct cprof_wait *x)
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
    count_team(c, omp_get_num_threads());
    e->last_sync = now;
    cprof_placement_observe(w, 0);
}

/* ---- the worker's LIFO ---- */

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
__attribute__((noinline)) void *cprof_lifo_push_slow(struct cprof_worker *w, size_t size,
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

/* ---- tasks ---- */

/* The context a task body of construct id (-1: unnamed; record rec on w) has under
 * the context ctx of w's tree, case kase: null where none is kept; past the node
 * limit, an <other>.  A named construct's slot keeps it, as a call site's does, on
 * the worker that made the task and on one that runs it alike. */
static inline __attribute__((always_inline)) struct cprof_node *
task_node(struct cprof_worker *w, int id, struct cprof_construct_rec *rec, struct cprof_node *ctx,
          int kase)
{
    if (!cprof_paths_on || cprof_clock == CPROF_CLOCK_NONE)
        return 0;
    uintptr_t key = (uintptr_t)ctx | (uintptr_t)kase;
    struct cprof_slot *slot = id >= 0 && (unsigned)id < w->nslots ? &w->slots[id] : 0;
    if (slot && slot->key == key)   /* it keeps the node's time[case] */
        return (struct cprof_node *)((char *)(slot->time - kase) - offsetof(struct cprof_node, time));
    struct cprof_node *n = child(w, ctx, &rec->key);
    if (n->key && id >= 0) {
        slot = cprof_slot_slow(w, id);
        *slot = (struct cprof_slot){ .key = key, .time = &n->time[kase], .ctx = n->canon };
    }
    return n;
}

void cprof_task_made_slow(struct cprof_task_origin *o, struct cprof_worker *w,
                          const struct cprof_site *s, int opened)
{
    struct cprof_construct_rec *rec = rec_of(w, s, CPROF_REGION_TASK);
    if (opened)
        rec->sum.opened++;
    /* The execution's active level, asked once in it (its task bodies run at it). */
    struct cprof_execution *e = w->running;
    int al = !e ? omp_get_active_level() : e->al >= 0 ? e->al : (e->al = omp_get_active_level());
    int kase = case_at(s, al);
    struct cprof_node *ctx = (struct cprof_node *)context_here(w);
    *o = (struct cprof_task_origin){ task_node(w, s ? s->id : -1, rec, ctx, kase), rec, w,
                                     (unsigned char)kase, e && e->team, al };
    if (e) {
        e->made_site = s;
        e->made_ctx = ctx;
        e->made = *o;
    }
}

/* What the creator worked out is used as it is by a runner on its worker; another
 * finds the same context in its own tree.  Apart from its callers, as cprof_task_close
 * is: their frames, under the program's, keep the least stack. */
__attribute__((noinline)) void cprof_task_begin(struct cprof_body *b, struct cprof_worker *w,
                                                const struct cprof_task_origin *o, const void *sp)
{
    struct cprof_construct_rec *rec = o->rec;
    struct cprof_node *n = o->node;
    if (w != o->creator) {
        int id = rec->key.site;
        rec = id >= 0 && id < w->constructs_cap && w->constructs[id]
                  ? w->constructs[id]
                  : cprof_construct_rec_slow(w, id >= 0 ? cprof_site_by_id(id) : 0,
                                             CPROF_REGION_TASK);
        /* n's parent: the creator's context (or an <other> mapped as its parent) */
        if (n)
            n = task_node(w, id, rec, map(w, n->parent), o->kase);
    }
    int kase = o->kase;
    body_open(b, w, rec, n && n->key ? &n->time[kase] : &rec->key.time[kase],
              !n ? w->root : n->key ? n->canon : n, kase, sp, o->al, o->team);
    cprof_placement_task(w, b->t0);
}

void cprof_task_uncount(struct cprof_body *b)
{
    --*b->counted;
}

__attribute__((noinline)) void cprof_task_close(struct cprof_body *b)
{
    uint64_t now = cprof_ticks();
    body_end(b, now);
    /* The worker's task time counts each task once: this one's less the tasks it ran
     * inside (a taskwait, a barrier in it), which counted themselves. */
    struct cprof_worker *w = b->w;
    uint64_t inside = w->task_ticks - b->tasks0;
    b->e.rec->sum.tasks_inside += inside;
    __atomic_store_n(&w->task_ticks, w->task_ticks + (now - b->t0 - inside), __ATOMIC_RELAXED);
}
