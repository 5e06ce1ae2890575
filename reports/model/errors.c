/* errors.c: the errors of the estimated times (docs/semantics.md, "Sampled timing") as
 * the views show them: per routine (its self, inclusive and wall times) and per arc,
 * from the profile's estimates, added in quadrature; which routines have an estimated
 * time, and the largest relative error among them (view.h). */
#define _GNU_SOURCE
#include "view.h"
#include "alloc.h"

#include <math.h>
#include <stdlib.h>

static void add(cprof_error *e, double var)
{
    *e = cprof_error_add(*e, (cprof_error){true, var});
}

/* Arcs by (callee, caller), for the estimates to find theirs. */
static int by_ends(const void *x, const void *y, void *arcs)
{
    const cprof_prof_arc *a = (const cprof_prof_arc *)arcs + *(const size_t *)x;
    const cprof_prof_arc *b = (const cprof_prof_arc *)arcs + *(const size_t *)y;
    if (a->callee != b->callee)
        return a->callee < b->callee ? -1 : 1;
    return (a->caller > b->caller) - (a->caller < b->caller);
}

static size_t find_arc(const cprof_profile *p, const size_t *order, size_t callee, size_t caller)
{
    size_t lo = 0, hi = p->narcs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const cprof_prof_arc *a = &p->arcs[order[mid]];
        if (a->callee == callee && a->caller == caller)
            return order[mid];
        if (a->callee < callee || (a->callee == callee && a->caller < caller))
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

void cprof_view_errors(cprof_view *v)
{
    const cprof_profile *p = v->p;
    v->max_rel_routine = SIZE_MAX;
    if (!p->nestimates)
        return;
    v->arc_err = cprof_xcalloc(p->narcs + 1, sizeof *v->arc_err);
    size_t *order = cprof_xcalloc(p->narcs + 1, sizeof *order);
    for (size_t i = 0; i < p->narcs; i++)
        order[i] = i;
    qsort_r(order, p->narcs, sizeof *order, by_ends, p->arcs);
    for (size_t i = 0; i < p->nestimates; i++) {
        const cprof_prof_estimate *e = &p->estimates[i];
        cprof_rview *callee = &v->r[e->routine], *caller = &v->r[e->caller];
        /* Its time is in the callee's, and taken out of the caller's self time. */
        add(&callee->incl_err, e->var);
        add(&callee->self_err, e->var);
        add(&caller->self_err, e->var);
        /* S-S calls are sequential entries, whose time is the wall time; a sequential
         * activation makes S-S and S-C calls. */
        if (e->kase == 0) {
            add(&callee->wall_err, e->var);
            add(&callee->wall_self_err, e->var);
        }
        if (e->kase <= 1)
            add(&caller->wall_self_err, e->var);
        if (e->kase > 0)
            add(&callee->c_err, e->var);
        add(&caller->callee_err[e->kase], e->var);
        size_t a = find_arc(p, order, e->routine, e->caller);
        if (a != SIZE_MAX)
            add(&v->arc_err[a], e->var);
    }
    free(order);
    for (size_t i = 0; i < p->nroutines; i++) {
        const cprof_rview *r = &v->r[i];
        if (!r->self_err.estimated && !r->incl_err.estimated)
            continue;
        v->nestimated++;
        double err = cprof_error_ns(r->self_err);
        if (isnan(err) || isnan(cprof_error_ns(r->incl_err))) {
            v->nunknown++;
            continue;
        }
        double rel = r->self > 0 ? err / (double)r->self : 0;
        if (v->max_rel_routine == SIZE_MAX || rel > v->max_rel) {
            v->max_rel = rel;
            v->max_rel_routine = i;
        }
    }
}
