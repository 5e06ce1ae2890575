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
#include "internal.h"

static pthread_mutex_t control_lock = PTHREAD_MUTEX_INITIALIZER;

static struct cprof_call_base *base_of(struct cprof_worker *w, struct cprof_call_rec *c)
{
    if (!c->base)
        c->base = cprof_worker_alloc(w, sizeof *c->base);
    return c->base;
}

/* f(w, c) for every call record of every worker, each worker's lock held: no record
 * or base is made meanwhile. */
static void each_record(void (*f)(struct cprof_worker *, struct cprof_call_rec *))
{
    for (struct cprof_worker *w = cprof_workers(); w; w = w->next) {
        pthread_mutex_lock(&w->lock);
        for (int i = 0; i < w->sites_cap; i++)
            for (struct cprof_call_rec *c = w->sites[i]; c; c = c->next)
                f(w, c);
        for (int i = 0; i < w->routines_cap; i++)
            if (w->routines[i])
                f(w, &w->routines[i]->ext);
        pthread_mutex_unlock(&w->lock);
    }
}

static void remember_counts(struct cprof_worker *w, struct cprof_call_rec *c)
{
    struct cprof_call_base *b = base_of(w, c);
    for (int k = 0; k < CPROF_NCASES; k++)
        b->stop_count[k] = __atomic_load_n(&c->count[k], __ATOMIC_RELAXED);
}

/* The calls counted at their sites while stopped leave with the base. */
static void take_out_stopped(struct cprof_worker *w, struct cprof_call_rec *c)
{
    struct cprof_call_base *b = c->base;
    (void)w;
    if (!b)
        return;     /* made while stopped: the stop never counted in it */
    for (int k = 0; k < CPROF_NCASES; k++)
        b->v[0][k] += __atomic_load_n(&c->count[k], __ATOMIC_RELAXED) - b->stop_count[k];
}

void cprof_stop(void)
{
    pthread_mutex_lock(&control_lock);
    if (!cprof_stopped) {
        cprof_facade_stop(1);
        each_record(remember_counts);
    }
    pthread_mutex_unlock(&control_lock);
}

void cprof_start(void)
{
    pthread_mutex_lock(&control_lock);
    if (cprof_stopped) {
        each_record(take_out_stopped);
        cprof_facade_stop(0);
    }
    pthread_mutex_unlock(&control_lock);
}

/* The record's first five arrays, in the order of struct cprof_call_base.v. */
static uint64_t *figures(struct cprof_call_rec *c, int i)
{
    uint64_t *v[5] = { (uint64_t *)c->count, c->time, c->nested, c->rec_time, c->rec_nested };
    return v[i];
}

static void take_all(struct cprof_worker *w, struct cprof_call_rec *c)
{
    struct cprof_call_base *b = base_of(w, c);
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < CPROF_NCASES; k++)
            b->v[i][k] = __atomic_load_n(&figures(c, i)[k], __ATOMIC_RELAXED);
    memcpy(b->stop_count, c->count, sizeof b->stop_count);
}

/* The record whose time[kase] a frame's slot points at. */
static struct cprof_call_rec *record_of(struct cprof_worker *w, const uint64_t *slot)
{
    for (int i = 0; i < w->sites_cap; i++)
        for (struct cprof_call_rec *c = w->sites[i]; c; c = c->next)
            if (slot >= c->time && slot < c->time + CPROF_NCASES)
                return c;
    for (int i = 0; i < w->routines_cap; i++) {
        struct cprof_routine_rec *r = w->routines[i];
        if (r && slot >= r->ext.time && slot < r->ext.time + CPROF_NCASES)
            return &r->ext;
    }
    return 0;
}

void cprof_reset(void)
{
    pthread_mutex_lock(&control_lock);
    each_record(take_all);
    for (struct cprof_worker *w = cprof_workers(); w; w = w->next) {
        pthread_mutex_lock(&w->lock);
        for (int i = 0; i < w->routines_cap; i++) {
            struct cprof_routine_rec *r = w->routines[i];
            if (!r)
                continue;
            if (!r->side_base)
                r->side_base = cprof_worker_alloc(w, sizeof r->side);
            memcpy(r->side_base, r->side, sizeof r->side);
            r->max_depth = r->depth;
        }
        pthread_mutex_unlock(&w->lock);
    }
    /* This thread's open activations: entered once more, from now. */
    struct cprof_worker *w = cprof_self;
    if (w) {
        uint64_t now = cprof_ticks();
        pthread_mutex_lock(&w->lock);
        for (struct cprof_frame *f = w->stack + 1; f < w->top; f++) {
            struct cprof_call_rec *c = record_of(w, f->slot);
            if (c) {
                c->base->v[0][f->slot - c->time]--;
                if (*f->depth > c->rec->max_depth)
                    c->rec->max_depth = *f->depth;
            }
            f->t0 = now;
            f->children = 0;
            f->direct = 0;
            f->calls0 = w->calls;
        }
        pthread_mutex_unlock(&w->lock);
    }
    cprof_clock_reset();
    pthread_mutex_unlock(&control_lock);
}

void cprof_control_start(void)
{
    const char *start = getenv("CPROF_START");
    if (start && !strcmp(start, "off"))
        cprof_stop();
}

void cprof_call_now(const struct cprof_call_rec *c, struct cprof_call_rec *out)
{
    *out = *c;
    const struct cprof_call_base *b = c->base;
    if (!b)
        return;
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < CPROF_NCASES; k++)
            figures(out, i)[k] -= b->v[i][k];
    /* Written while stopped: what the sites counted since the stop is not the run's. */
    if (cprof_stopped)
        for (int k = 0; k < CPROF_NCASES; k++)
            out->count[k] -= c->count[k] - b->stop_count[k];
}

void cprof_routine_now(const struct cprof_routine_rec *r, struct cprof_routine_rec *out)
{
    *out = *r;
    cprof_call_now(&r->ext, &out->ext);
    if (!r->side_base)
        return;
    for (int s = 0; s < 2; s++) {
        out->side[s].time -= r->side_base[s].time;
        out->side[s].thread_time -= r->side_base[s].thread_time;
        out->side[s].self_time -= r->side_base[s].self_time;
        out->side[s].nested -= r->side_base[s].nested;
        out->side[s].thread_nested -= r->side_base[s].thread_nested;
        out->side[s].direct -= r->side_base[s].direct;
    }
}
