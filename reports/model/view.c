/* view.c: per-routine numbers shared by the text sections (see view.h). */
#include "view.h"
#include "alloc.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int64_t cprof_outer(const cprof_tally *x)
{
    return x->t > x->rec_t ? x->t - x->rec_t : 0;
}

int cprof_view_init(cprof_view *v, const cprof_profile *p, const cprof_opts *o)
{
    *v = (cprof_view){.p = p, .o = o, .timed = p->untimed_files < p->nfiles,
                      .r = cprof_xcalloc(p->nroutines, sizeof *v->r)};
    bool any = false;
    for (size_t i = 0; i < p->nroutines; i++) {
        const cprof_prof_routine *r = &p->routines[i];
        cprof_rview *rv = &v->r[i];
        /* Routines are sorted by name, so routines sharing a name are neighbours. */
        bool shared = (i > 0 && !strcmp(r[-1].name, r->name)) ||
                      (i + 1 < p->nroutines && !strcmp(r[1].name, r->name));
        /* A routine counted at its call sites has no times of its own: say so wherever
         * it is named. */
        rv->label = cprof_xasprintf("%s%s%s%s%s", r->name, shared ? " (" : "",
                                    shared ? r->file : "", shared ? ")" : "",
                                    r->counted ? " [counted]" : "");
        cprof_figures f = cprof_view_figures(v, i, 0, p->nworkers);
        rv->s_calls = f.s_calls;
        rv->c_calls = f.c_calls;
        rv->self = f.self;
        rv->inclusive = f.inclusive;
        rv->team = f.team;
        rv->team_self = f.team_self;
        rv->wall_self = r->s_self_t;
        rv->wall = r->s_caller.t;
        rv->ran = rv->s_calls || rv->c_calls;
        rv->timed = v->timed && !r->counted;
        rv->wall_timed = rv->timed && (rv->s_calls || !rv->c_calls);
        rv->match = !o->routine || !strcmp(o->routine, r->name);
        any |= rv->match;
        v->total_self = cprof_add(v->total_self, rv->self);
    }
    for (size_t i = 0; i < p->narcs; i++) {
        const cprof_prof_arc *a = &p->arcs[i];
        if (a->caller == a->callee)
            v->r[a->callee].self_calls = cprof_add(a->s.n, a->c.n);
        if (a->caller != CPROF_EXTERNAL && a->caller != a->callee)
            v->r[a->caller].calls_others = true;
        if (a->caller != CPROF_EXTERNAL && v->r[a->callee].timed) {
            v->r[a->caller].s_callees_timed |= a->s.n > 0;
            v->r[a->caller].c_callees_timed |= a->c.n > 0;
        }
    }
    cprof_view_regions(v);
    cprof_view_errors(v);
    /* Only a --routine that names nothing is an error: an empty profile is a report. */
    if (o->routine && !any) {
        cprof_view_free(v);
        return -1;
    }
    return 0;
}

/* Worker self = sequential + concurrent + team self time; worker inclusive = the time
 * the routine was open on each thread, plus its team time there (docs/report.md, "Wall
 * and worker time"). */
cprof_figures cprof_view_figures(const cprof_view *v, size_t i, size_t from, size_t to)
{
    const cprof_prof_routine *r = &v->p->routines[i];
    cprof_figures f = {0, 0, 0, 0, 0, 0};
    for (size_t w = from; w < to; w++) {
        const cprof_prof_routine_worker *rw = &r->worker[w];
        f.s_calls = cprof_add(f.s_calls, rw->s_caller.n);
        f.c_calls = cprof_add(f.c_calls, rw->c_caller.n);
        f.team = cprof_add(f.team, rw->team_t);
        f.team_self = cprof_add(f.team_self, rw->team_self_t);
        f.self = cprof_add(f.self, cprof_add(rw->s_self_t, rw->c_self_t));
        f.inclusive = cprof_add(f.inclusive, cprof_add(rw->s_caller.t,
                                                       cprof_add(rw->c_caller.t, rw->c_thread_t)));
    }
    f.self = cprof_add(f.self, f.team_self);
    f.inclusive = cprof_add(f.inclusive, f.team);
    return f;
}

cprof_figures cprof_view_rank(const cprof_view *v, size_t i, size_t k)
{
    const cprof_prof_rank *rank = &v->p->ranks[k];
    return cprof_view_figures(v, i, rank->first_worker, rank->first_worker + rank->nworkers);
}

/* Add time x of rank k to s (its sum kept in s->mean until the end). */
static void spread_add(cprof_rank_spread *s, int64_t x, size_t k)
{
    if (k == 0 || x < s->min)
        s->min = x;
    if (k == 0 || x > s->max) {
        s->max = x;
        s->slowest = k;
    }
    s->mean += (double)x;
}

cprof_rank_balance cprof_view_rank_balance(const cprof_view *v, size_t i)
{
    cprof_rank_balance b = {0};
    size_t n = v->p->nranks;
    for (size_t k = 0; k < n; k++) {
        const cprof_prof_rank *rank = &v->p->ranks[k];
        cprof_figures f = cprof_view_rank(v, i, k);
        b.ran += f.s_calls || f.c_calls;
        spread_add(&b.inclusive, f.inclusive, k);
        spread_add(&b.self, f.self, k);
        cprof_spread t = cprof_view_spread_of(v, i, offsetof(cprof_prof_routine_worker, c_caller),
                                              rank->first_worker,
                                              rank->first_worker + rank->nworkers);
        if (cprof_spread_imbalance(&t) > b.threads) {
            b.threads = cprof_spread_imbalance(&t);
            b.threads_rank = k;
        }
    }
    if (n) {
        b.inclusive.mean /= (double)n;
        b.self.mean /= (double)n;
    }
    return b;
}

double cprof_rank_imbalance(const cprof_rank_spread *s)
{
    return s->mean > 0 ? (double)s->max / s->mean : 0.0;
}

void cprof_view_free(cprof_view *v)
{
    for (size_t i = 0; v->r && i < v->p->nroutines; i++)
        free(v->r[i].label);
    free(v->r);
    free(v->g);
    free(v->g_order);
    free(v->arc_err);
    v->arc_err = NULL;
    v->r = NULL;
    v->g = NULL;
    v->g_order = NULL;
}

bool cprof_view_arc_match(const cprof_view *v, const cprof_prof_arc *a)
{
    return v->r[a->callee].match || (a->caller != CPROF_EXTERNAL && v->r[a->caller].match);
}

bool cprof_view_arc_timed(const cprof_view *v, const cprof_prof_arc *a)
{
    return v->r[a->callee].timed;
}

bool cprof_view_path_timed(const cprof_view *v, size_t i)
{
    const cprof_prof_path *x = &v->p->paths[i];
    return v->timed && v->p->path_self && x->folds_into == i &&
           (!CPROF_IS_ROUTINE(x->routine) || !v->p->routines[x->routine].counted);
}

cprof_spread cprof_view_spread(const cprof_view *v, size_t i, size_t off)
{
    return cprof_view_spread_of(v, i, off, 0, v->p->nworkers);
}

cprof_spread cprof_view_spread_of(const cprof_view *v, size_t i, size_t off, size_t from,
                                  size_t to)
{
    const cprof_prof_routine *r = &v->p->routines[i];
    cprof_spread s = {{0, 0, 0, 0}, 0, INT64_MAX, 0, 0};
    for (size_t w = from; w < to; w++) {
        const cprof_tally *x = (const cprof_tally *)((const char *)&r->worker[w] + off);
        s.sum.n = cprof_add(s.sum.n, x->n);
        s.sum.t = cprof_add(s.sum.t, x->t);
        s.sum.rec_t = cprof_add(s.sum.rec_t, x->rec_t);
        if (!x->n)
            continue;
        s.workers++;
        s.busy = cprof_add(s.busy, x->t);
        s.min = x->t < s.min ? x->t : s.min;
        s.max = x->t > s.max ? x->t : s.max;
    }
    return s;
}

double cprof_spread_imbalance(const cprof_spread *s)
{
    return s->busy ? (double)s->max * (double)s->workers / (double)s->busy : 0.0;
}
