/* control.c: cprof_stop(), cprof_start() and cprof_reset(), called by the program
 * (docs/control.md), and CPROF_START=off.
 *
 * Neither ever writes another thread's counters: a worker's owner increments them
 * without a lock, and a store from here would race with its increments and lose some.
 * What a reset or a stop takes out is kept beside each record instead (its base,
 * made under the worker's lock) and subtracted when the profile is written.
 *  - A stop points the entry hook at a stub that counts nothing.  Calls of a counted
 *    routine are counted inline at their sites, without a hook: their counts at the
 *    stop are remembered, and what they grew by until the start is taken out.
 *  - A reset makes the base every figure as it is now; the calling thread's open
 *    activations are then counted again (once each) and timed from now on.
 */
#include <stdlib.h>
#include <string.h>
#include "control.h"
#include "overhead.h"
#include "resources.h"
#include "sizes.h"

static pthread_mutex_t control_lock = PTHREAD_MUTEX_INITIALIZER;

/* The figures of a call record or of a calling context (same layout), and its base. */
struct figures {
    uint64_t *v;                    /* CPROF_NFIGS arrays of CPROF_NCASES */
    uint64_t *samples;              /* a context's (resources.c), else null */
    uint64_t *adj;                  /* a context's adjustments (CPROF_NADJ), else null */
    struct cprof_call_base **base;
};

static struct figures of_record(struct cprof_call_rec *c)
{
    return (struct figures){ (uint64_t *)c->count, 0, 0, &c->base };
}

static struct figures of_node(struct cprof_node *n)
{
    return (struct figures){ (uint64_t *)n->count, n->samples, n->adj, &n->base };
}

/* Made by another thread than the worker's: from the runtime's memory, not the
 * worker's arena, which its owner carves without a lock. */
static struct cprof_call_base *base_of(struct figures f)
{
    if (!*f.base)
        *f.base = cprof_alloc(sizeof **f.base + (f.samples ? cprof_node_extra : 0));
    return *f.base;
}

/* fn(w, figures) for every call record and context of every worker, each worker's
 * lock held against the profile writer.  Its owner may make records and contexts
 * meanwhile: those, made after this looked, counted nothing before it. */
static void each_record(void (*fn)(struct cprof_worker *, struct figures))
{
    for (struct cprof_worker *w = cprof_workers(); w; w = w->next) {
        pthread_mutex_lock(&w->lock);
        for (struct cprof_call_rec *c = cprof_published(w->records); c; c = c->made_next)
            fn(w, of_record(c));
        int cap = cprof_published(w->routines_cap);
        struct cprof_routine_rec **routines = cprof_published(w->routines);
        for (int i = 0; i < cap; i++) {
            struct cprof_routine_rec *r = cprof_published(routines[i]);
            if (r)
                fn(w, of_record(&r->ext));
        }
        for (struct cprof_node *n = cprof_published(w->nodes); n; n = n->made_next)
            fn(w, of_node(n));
        for (struct cprof_construct_rec *c = cprof_published(w->construct_list); c; c = c->next)
            fn(w, of_record(&c->key));
        pthread_mutex_unlock(&w->lock);
    }
}

static uint64_t load(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* The figures a counted site (or a sampled routine's unsampled call) adds to without
 * the facade: what a stop cannot keep from growing. */
static const int counted_figures[2] = { CPROF_FIG_COUNT, CPROF_FIG_UNTIMED };

static void remember_counts(struct cprof_worker *w, struct figures f)
{
    (void)w;
    struct cprof_call_base *b = base_of(f);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < CPROF_NCASES; k++)
            b->stop_count[i][k] = load(&f.v[counted_figures[i] * CPROF_NCASES + k]);
}

/* The calls counted at their sites while stopped leave with the base. */
static void take_out_stopped(struct cprof_worker *w, struct figures f)
{
    struct cprof_call_base *b = *f.base;
    (void)w;
    if (!b)
        return;     /* made while stopped: the stop never counted in it */
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < CPROF_NCASES; k++)
            b->v[counted_figures[i]][k] += load(&f.v[counted_figures[i] * CPROF_NCASES + k]) -
                                           b->stop_count[i][k];
}

void cprof_stop(void)
{
    pthread_mutex_lock(&control_lock);
    if (!cprof_stopped) {
        cprof_facade_stop(1);
        cprof_resources_enable(0);
        each_record(remember_counts);
    }
    pthread_mutex_unlock(&control_lock);
}

void cprof_start(void)
{
    pthread_mutex_lock(&control_lock);
    if (cprof_stopped) {
        each_record(take_out_stopped);
        cprof_resources_enable(1);
        cprof_facade_stop(0);
    }
    pthread_mutex_unlock(&control_lock);
}

static void take_all(struct cprof_worker *w, struct figures f)
{
    (void)w;
    struct cprof_call_base *b = base_of(f);
    for (int i = 0; i < CPROF_NFIGS; i++)
        for (int k = 0; k < CPROF_NCASES; k++)
            b->v[i][k] = load(&f.v[i * CPROF_NCASES + k]);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < CPROF_NCASES; k++)
            b->stop_count[i][k] = b->v[counted_figures[i]][k];
    for (int i = 0; f.adj && i < CPROF_NADJ; i++)
        b->adj[i] = load(&f.adj[i]);
    if (f.samples)
        for (size_t i = 0; i < cprof_node_extra / sizeof *f.samples; i++)
            b->samples[i] = load(&f.samples[i]);
}

/* The record or context whose time[case] a frame's slot points at, and the case; -1
 * if none. */
static int figures_of_slot(struct cprof_worker *w, const uint64_t *slot, struct figures *f)
{
    for (struct cprof_node *n = w->nodes; n; n = n->made_next)
        if (n->key && slot >= n->time && slot < n->time + CPROF_NCASES) {
            *f = of_node(n);
            return (int)(slot - n->time);
        }
    for (struct cprof_call_rec *c = w->records; c; c = c->made_next)
        if (slot >= c->time && slot < c->time + CPROF_NCASES) {
            *f = of_record(c);
            return (int)(slot - c->time);
        }
    for (int i = 0; i < w->routines_cap; i++) {
        struct cprof_routine_rec *r = w->routines[i];
        if (r && slot >= r->ext.time && slot < r->ext.time + CPROF_NCASES) {
            *f = of_record(&r->ext);
            return (int)(slot - r->ext.time);
        }
    }
    return -1;
}

void cprof_reset(void)
{
    pthread_mutex_lock(&control_lock);
    each_record(take_all);
    cprof_overhead_reset();
    for (struct cprof_worker *w = cprof_workers(); w; w = w->next) {
        pthread_mutex_lock(&w->lock);
        for (int i = 0; i < CPROF_RESOURCES_MAX; i++) {
            int ok;
            w->res_base[i] = cprof_resource_read(w, i, &ok);
        }
        int cap = cprof_published(w->routines_cap);
        struct cprof_routine_rec **routines = cprof_published(w->routines);
        for (int i = 0; i < cap; i++) {
            struct cprof_routine_rec *r = cprof_published(routines[i]);
            if (!r)
                continue;
            if (!r->side_base)
                r->side_base = cprof_alloc(sizeof r->side);
            memcpy(r->side_base, r->side, sizeof r->side);
            r->max_depth = r->depth;
        }
        for (struct cprof_construct_rec *c = cprof_published(w->construct_list); c; c = c->next) {
            const uint64_t *from = (const uint64_t *)&c->sum;
            uint64_t *to = (uint64_t *)&c->base;
            for (size_t i = 0; i < sizeof c->sum / sizeof *from; i++)
                to[i] = load(&from[i]);
        }
        pthread_mutex_unlock(&w->lock);
    }
    /* This thread's open activations: entered once more, from now. */
    struct cprof_worker *w = cprof_self;
    if (w) {
        uint64_t now = cprof_ticks();
        pthread_mutex_lock(&w->lock);
        for (struct cprof_frame *f = w->stack + 1; f < w->top; f++) {
            struct figures fig;
            int kase = figures_of_slot(w, f->slot, &fig);
            if (kase >= 0) {
                (*fig.base)->v[CPROF_FIG_COUNT][kase]--;
                struct cprof_routine_rec *rec = ((struct cprof_figures *)fig.v)->rec;
                if (rec && *cprof_frame_depth(f) > rec->max_depth)
                    rec->max_depth = *cprof_frame_depth(f);
            }
            f->t0 = now;
            f->children = 0;
            f->direct = 0;
            f->calls0 = w->calls;
        }
        pthread_mutex_unlock(&w->lock);
    }
    if (cprof_sizes_reset)     /* linked only with -fcprof-input-size */
        cprof_sizes_reset();
    cprof_clock_reset();
    pthread_mutex_unlock(&control_lock);
}

void cprof_control_start(void)
{
    if (cprof_setting_word("CPROF_START", (const char *const[]){ "on", "off", 0 }, 0,
                           "the program starts counting") == 1)
        cprof_stop();
}

/* out += f less its base, for what the profile shows. */
static void add_now(struct figures f, struct figures out)
{
    const struct cprof_call_base *b = *f.base;
    for (int i = 0; i < CPROF_NFIGS; i++)
        for (int k = 0; k < CPROF_NCASES; k++)
            out.v[i * CPROF_NCASES + k] += load(&f.v[i * CPROF_NCASES + k]) - (b ? b->v[i][k] : 0);
    for (int i = 0; f.adj && out.adj && i < CPROF_NADJ; i++)   /* a context's into its copy */
        out.adj[i] += load(&f.adj[i]) - (b ? b->adj[i] : 0);
    /* Written while stopped: what the sites counted since the stop is not the run's. */
    if (b && cprof_stopped)
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < CPROF_NCASES; k++)
                out.v[counted_figures[i] * CPROF_NCASES + k] -=
                    f.v[counted_figures[i] * CPROF_NCASES + k] - b->stop_count[i][k];
}

static void clear(struct figures o)
{
    memset(o.v, 0, CPROF_NFIGS * CPROF_NCASES * sizeof *o.v);
}

/* The figures are copied only when something is to be taken out or added in: most
 * records, with no reset, no stop and no calling context, are shown as they are. */
const struct cprof_call_rec *cprof_call_now(const struct cprof_call_rec *c,
                                            struct cprof_call_rec *scratch)
{
    if (!c->base && !cprof_published(((struct cprof_call_rec *)c)->nodes))
        return c;
    *scratch = *c;
    struct figures o = of_record(scratch);
    clear(o);
    add_now(of_record((struct cprof_call_rec *)c), o);
    for (struct cprof_node *n = cprof_published(((struct cprof_call_rec *)c)->nodes); n;
         n = n->same_key)
        add_now(of_node(n), o);
    return scratch;
}

uint64_t cprof_node_samples(const struct cprof_node *n, int i)
{
    uint64_t v = __atomic_load_n(&n->samples[i], __ATOMIC_RELAXED);
    return n->base ? v - n->base->samples[i] : v;
}

const struct cprof_node *cprof_node_now(const struct cprof_node *n, struct cprof_node *scratch)
{
    if (!n->base)
        return n;
    *scratch = *n;
    struct figures o = of_node(scratch);
    clear(o);
    memset(o.adj, 0, sizeof scratch->adj);
    add_now(of_node((struct cprof_node *)n), o);
    return scratch;
}

const struct cprof_routine_rec *cprof_routine_now(const struct cprof_routine_rec *r,
                                                  struct cprof_routine_rec *scratch)
{
    const struct cprof_call_rec *ext = cprof_call_now(&r->ext, &scratch->ext);
    if (ext == &r->ext && !r->side_base)
        return r;
    scratch->ext = *ext;
    memcpy(scratch->side, r->side, sizeof r->side);
    scratch->depth = r->depth;
    scratch->max_depth = r->max_depth;
    scratch->side_base = r->side_base;
    if (!r->side_base)
        return scratch;
    for (int s = 0; s < CPROF_NSIDES; s++) {
        scratch->side[s].time -= r->side_base[s].time;
        scratch->side[s].thread_time -= r->side_base[s].thread_time;
        scratch->side[s].self_time -= r->side_base[s].self_time;
        scratch->side[s].nested -= r->side_base[s].nested;
        scratch->side[s].thread_nested -= r->side_base[s].thread_nested;
        scratch->side[s].direct -= r->side_base[s].direct;
    }
    return scratch;
}
