/* flat.c: section 2, the flat profile: one row per routine that ran. */
#define _GNU_SOURCE
#include "report.h"
#include "../model/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char explain[] =
    "Two units of time.  Worker time is summed over the workers that ran the routine:\n"
    "up to elapsed x workers.  Wall time is elapsed on the thread that entered it, for\n"
    "its sequential entries (the paper's caller time): up to the elapsed time.\n"
    "%time       the routine's worker self time as a share of all routines' (the\n"
    "            column adds up to 100)\n"
    "worker self time spent in the routine itself, on all workers: the elapsed time of\n"
    "            its activations minus that of the activations nested in them on the\n"
    "            same thread, as the runtime measured it per thread, and its team self\n"
    "            time\n"
    "worker incl time the routine was open on each thread, summed over the workers:\n"
    "            with its callees on that thread, recursive activations counted once;\n"
    "            and its team time\n"
    "team time   the body of a parallel region that a thread of its team other than\n"
    "            the one that opened it ran: work of the routines open on the opener's\n"
    "            thread, which have no activation on that one.  It counts in the worker\n"
    "            incl of each of them, and, less the calls made in it, in the worker\n"
    "            self of the routine whose body has the region (a loop that calls\n"
    "            nothing counts for its routine on every worker)\n"
    "wall self   self time of its sequential activations\n"
    "wall incl   elapsed time of its outermost sequential activations, with everything\n"
    "            they called, on all workers (its parallel regions too)\n"
    "s calls     entries while no parallel region was active (sequential)\n"
    "c calls     entries inside an active parallel region (concurrent), all workers\n"
    "self/call   worker self time per call, in microseconds\n"
    "incl/call   worker inclusive time per call, in microseconds\n"
    "name        the routine; (file) when two routines have the same name\n"
    "-           not measured: the times of a routine counted at its call sites\n"
    "            ([counted]: its time is in its callers' self time), the wall times of\n"
    "            one entered only concurrently, every time of a CPROF_MODE=count run\n"
    "Times are in milliseconds.  In each unit self <= inclusive.  A routine that runs\n"
    "a parallel region has a wall inclusive time that covers the region, but its callees\n"
    "there have worker times of their own, which may exceed it.\n";

static const cprof_column cols[] = {
    {"%time", "pct_time", false},
    {"worker self", "self_worker_ns", false},
    {"worker incl", "inclusive_worker_ns", false},
    {"wall self", "self_wall_ns", false},
    {"wall incl", "inclusive_wall_ns", false},
    {"s calls", "s_calls", false},
    {"c calls", "c_calls", false},
    {"self/call", "self_worker_ns_per_call", false},
    {"incl/call", "inclusive_worker_ns_per_call", false},
    {"name", "name", true},
    {NULL, "file", false},
};
/* With estimated times: their errors, before the name. */
static const cprof_column err_cols[] = {
    {"self err%", "self_worker_error_ns", false},
    {"incl err%", "inclusive_worker_error_ns", false},
};

static int by_key(const void *x, const void *y, void *view)
{
    const cprof_view *v = view;
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    const cprof_rview *ra = &v->r[a], *rb = &v->r[b];
    int64_t ka = 0, kb = 0;
    switch (v->o->sort) {
    case CPROF_SORT_SELF:
        ka = ra->self, kb = rb->self;
        break;
    case CPROF_SORT_INCLUSIVE:
        ka = ra->inclusive, kb = rb->inclusive;
        break;
    case CPROF_SORT_CALLS:
        ka = cprof_add(ra->s_calls, ra->c_calls), kb = cprof_add(rb->s_calls, rb->c_calls);
        break;
    case CPROF_SORT_NAME:
        break;
    }
    if (ka != kb)
        return ka < kb ? 1 : -1;
    /* Routines are in (name, file) order already. */
    return (a > b) - (a < b);
}

static int by_overhead(const void *x, const void *y, void *profile)
{
    const cprof_profile *p = profile;
    double a = p->routines[*(const size_t *)x].overhead_ns;
    double b = p->routines[*(const size_t *)y].overhead_ns;
    return (a < b) - (a > b);
}

/* Which routines distort the run: where profiling took 1% or more of the workers'
 * time, the (up to three) whose calls cost most, estimated as in the summary. */
static void overhead_note(cprof_table *t, const cprof_view *v, const size_t *listed, size_t n)
{
    const cprof_profile *p = v->p;
    double capacity = (double)p->elapsed_ns * (double)p->nworkers;
    if (n == 0 || capacity <= 0 || p->overhead_ns < 0.01 * capacity)
        return;
    size_t *order = cprof_xcalloc(n, sizeof *order);
    memcpy(order, listed, n * sizeof *order);
    qsort_r(order, n, sizeof *order, by_overhead, (void *)p);
    char *list = NULL;
    bool inlinable = false;
    for (size_t k = 0; k < n && k < 3; k++) {
        const cprof_prof_routine *r = &p->routines[order[k]];
        if (k > 0 && r->overhead_ns < 0.05 * p->overhead_ns)
            break;      /* a twentieth of the cost or less: not what distorts the run */
        inlinable |= r->inlinable;
        char *s = cprof_xasprintf("%s%s%s%s %.3f ms (%.1f%%)", list ? list : "", list ? ", " : "",
                                  v->r[order[k]].label, r->inlinable ? " (*)" : "",
                                  r->overhead_ns / 1e6, 100.0 * r->overhead_ns / capacity);
        free(list);
        list = s;
    }
    cprof_table_note(t, "profiling took %.1f%% of elapsed x workers; most in the calls of: %s",
                     100.0 * p->overhead_ns / capacity, list);
    if (inlinable)
        cprof_table_note(t, "(*) gcc may inline it in a plain build (static and called from one site,\n"
                            "or declared inline): its facade also costs what inlining saves, which\n"
                            "the estimate leaves out; -fcprof-count-only=NAME counts it at its call\n"
                            "sites instead and leaves it inlinable.");
    free(list);
    free(order);
}

/* The team time in the worker times, so that a reader knows what was added: the
 * routines that have some, in the table's order, the first few. */
static void team_note(cprof_table *t, const cprof_view *v, const size_t *listed, size_t n)
{
    enum { SHOWN = 5 };
    char *list = NULL;
    size_t with = 0;
    for (size_t k = 0; k < n; k++) {
        const cprof_rview *r = &v->r[listed[k]];
        if (!r->team || with++ >= SHOWN)
            continue;
        char *s = cprof_xasprintf("%s%s%s %.3f / %.3f", list ? list : "", list ? ", " : "",
                                  r->label, (double)r->team / 1e6, (double)r->team_self / 1e6);
        free(list);
        list = s;
    }
    if (!with)
        return;
    char more[64] = "";
    if (with > SHOWN)
        snprintf(more, sizeof more, " and %zu more", with - SHOWN);
    cprof_table_note(t, "team time in the worker times (ms, in worker incl / in worker self): %s%s",
                     list, more);
    free(list);
}

static double share(int64_t part, int64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* What --threshold compares: the share of the column the list is sorted by, so that
 * sorting by inclusive time cannot hide the routines at the top of that column.
 * Inclusive time is a share of all self time (as %time in the call graph), calls a
 * share of all calls; --sort name keeps %time. */
static double sort_share(const cprof_view *v, const cprof_rview *r, int64_t all_calls)
{
    switch (v->o->sort) {
    case CPROF_SORT_INCLUSIVE:
        return share(r->inclusive, v->total_self);
    case CPROF_SORT_CALLS:
        return share(cprof_add(r->s_calls, r->c_calls), all_calls);
    default:
        return share(r->self, v->total_self);
    }
}

cprof_table *cprof_section_flat(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    /* --resources: their columns after the numbers, before the last two (name, file);
     * the errors of estimated times before them. */
    enum { NCOLS = sizeof cols / sizeof *cols, NERR = sizeof err_cols / sizeof *err_cols };
    bool est = p->nestimates > 0;
    size_t ncols = NCOLS + (est ? NERR : 0);
    cprof_column all[NCOLS + NERR];
    memcpy(all, cols, (NCOLS - 2) * sizeof *all);
    memcpy(all + NCOLS - 2, err_cols, sizeof err_cols);
    memcpy(all + ncols - 2, cols + NCOLS - 2, 2 * sizeof *all);
    cprof_rescols *rc = cprof_rescols_new(v, CPROF_RESCOLS_ROUTINES);
    cprof_table *t = cprof_rescols_table(rc, "Flat profile", explain, all, ncols, ncols - 2);
    size_t *order = cprof_xcalloc(p->nroutines, sizeof *order), n = 0, hidden = 0;
    for (size_t i = 0; i < p->nroutines; i++)
        if (v->r[i].ran && v->r[i].match)
            order[n++] = i;
    qsort_r(order, n, sizeof *order, by_key, (void *)v);
    int64_t all_calls = 0;
    for (size_t i = 0; i < p->nroutines; i++)
        all_calls = cprof_add(all_calls, cprof_add(v->r[i].s_calls, v->r[i].c_calls));
    for (size_t k = 0; k < n; k++) {
        const cprof_rview *r = &v->r[order[k]];
        double pct = share(r->self, v->total_self);
        if (v->o->has_threshold && sort_share(v, r, all_calls) < v->o->threshold) {
            hidden++;
            continue;
        }
        int64_t calls = cprof_add(r->s_calls, r->c_calls);
        cprof_table_row(t);
        cprof_cell_pct(t, r->timed ? pct : NAN);
        cprof_cell_time_mark(t, cprof_if_measured(r->timed, r->self), cprof_mark(v, r->self_err));
        cprof_cell_time_mark(t, cprof_if_measured(r->timed, r->inclusive),
                             cprof_mark(v, r->incl_err));
        cprof_cell_time_mark(t, cprof_if_measured(r->wall_timed, r->wall_self),
                             cprof_mark(v, r->wall_self_err));
        cprof_cell_time_mark(t, cprof_if_measured(r->wall_timed, r->wall),
                             cprof_mark(v, r->wall_err));
        if (cprof_cases_unknown(v->p)) {
            cprof_cell_empty(t);
            cprof_cell_empty(t);
        } else {
            cprof_cell_int(t, r->s_calls);
            cprof_cell_int(t, r->c_calls);
        }
        cprof_cell_per_call_mark(t, cprof_if_measured(r->timed, r->self), calls,
                                 cprof_mark(v, r->self_err));
        cprof_cell_per_call_mark(t, cprof_if_measured(r->timed, r->inclusive), calls,
                                 cprof_mark(v, r->incl_err));
        if (est) {
            cprof_cell_error(t, r->self_err, r->self);
            cprof_cell_error(t, r->incl_err, r->inclusive);
        }
        cprof_rescols_cells(rc, t, order[k]);
        cprof_cell_str2(t, r->label, p->routines[order[k]].name);
        cprof_cell_str(t, p->routines[order[k]].file);
    }
    if (v->o->has_threshold)
        cprof_table_note(t, "%zu entries below %g%% hidden", hidden, v->o->threshold);
    cprof_note_estimates(t, v, true);
    team_note(t, v, order, n);
    overhead_note(t, v, order, n);

    /* gprof lists the routines that never ran, to show that nothing is missing. */
    char *never = NULL;
    size_t nnever = 0;
    for (size_t i = 0; i < p->nroutines; i++)
        if (!v->r[i].ran && v->r[i].match) {
            char *s = cprof_xasprintf("%s%s%s", never ? never : "", never ? ", " : "",
                                      v->r[i].label);
            free(never);
            never = s;
            nnever++;
        }
    if (nnever)
        cprof_table_note(t, "never called (%zu): %s", nnever, never);
    free(never);
    free(order);
    cprof_rescols_free(rc);
    return t;
}
