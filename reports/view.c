/* view.c: per-routine numbers shared by the text sections (see view.h). */
#include "view.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

int64_t cprof_add(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_add_overflow(a, b, &s) ? INT64_MAX : s;
}

int64_t cprof_outer(const cprof_tally *x)
{
    return x->t > x->rec_t ? x->t - x->rec_t : 0;
}

int cprof_view_init(cprof_view *v, const cprof_profile *p, const cprof_opts *o)
{
    *v = (cprof_view){p, o, cprof_xcalloc(p->nroutines, sizeof *v->r), 0};
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
        rv->s_calls = r->s_caller.n;
        rv->self = rv->wall_self = r->s_self_t;
        rv->inclusive = rv->wall = r->s_caller.t;
        for (size_t w = 0; w < p->nworkers; w++) {
            const cprof_prof_routine_worker *rw = &r->worker[w];
            rv->c_calls = cprof_add(rv->c_calls, rw->c_caller.n);
            rv->self = cprof_add(rv->self, rw->c_self_t);
            rv->inclusive = cprof_add(rv->inclusive, cprof_add(rw->c_caller.t, rw->c_thread_t));
        }
        rv->ran = rv->s_calls || rv->c_calls;
        rv->match = !o->routine || !strcmp(o->routine, r->name);
        any |= rv->match;
        v->total_self = cprof_add(v->total_self, rv->self);
    }
    for (size_t i = 0; i < p->narcs; i++) {
        const cprof_prof_arc *a = &p->arcs[i];
        if (a->caller == a->callee)
            v->r[a->callee].self_calls = cprof_add(a->s.n, a->c.n);
    }
    /* Only a --routine that names nothing is an error: an empty profile is a report. */
    if (o->routine && !any) {
        cprof_view_free(v);
        return -1;
    }
    return 0;
}

void cprof_view_free(cprof_view *v)
{
    for (size_t i = 0; v->r && i < v->p->nroutines; i++)
        free(v->r[i].label);
    free(v->r);
    v->r = NULL;
}

bool cprof_view_arc_match(const cprof_view *v, const cprof_prof_arc *a)
{
    return v->r[a->callee].match || (a->caller != CPROF_EXTERNAL && v->r[a->caller].match);
}

cprof_spread cprof_view_spread(const cprof_view *v, size_t i, size_t off)
{
    const cprof_prof_routine *r = &v->p->routines[i];
    cprof_spread s = {{0, 0, 0, 0}, 0, INT64_MAX, 0, 0};
    for (size_t w = 0; w < v->p->nworkers; w++) {
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
