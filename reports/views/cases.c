/* cases.c: section 3, per routine the four cases of its calls (S-S, S-C, C-S, C-C) and
 * its two kinds of entries, with the spread of the per-worker numbers. */
#include "report.h"
#include "../model/alloc.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

static const char explain[] =
    "For each routine that ran concurrently or made concurrent calls:\n"
    "S entries  its sequential entries and the time of their outermost activations\n"
    "C entries  its concurrent entries (inside an active parallel region), same time\n"
    "S-S        calls it made while entered sequentially, outside its own parallel\n"
    "           regions, and the elapsed time of those callees\n"
    "S-C        calls it made from inside its own active parallel region\n"
    "C-S        calls it made while entered concurrently, outside regions of its own\n"
    "C-C        calls it made while entered concurrently, inside a nested active region\n"
    "           of its own\n"
    "unit       wall: elapsed on the thread that entered (sequential entries and their\n"
    "           S-S calls); worker: summed over the workers that ran them\n"
    "time       the paper's figure: a callee's time is added at every level of a\n"
    "           recursion, so it can exceed elapsed x workers\n"
    "*          marks a time that differs from outer\n"
    "outer      the same activations, each stretch of a thread's time counted once:\n"
    "           callees nested in one of the same routine on their thread left out;\n"
    "           for C entries, also those the paper's rule leaves out because the\n"
    "           routine was open sequentially on the initial thread\n"
    "workers          how many workers made such calls (concurrent rows only)\n"
    "min, mean, max   of the per-worker times (the paper's) over those workers only\n"
    "imbalance        max / mean: 1.00 is a perfectly even spread over those workers\n"
    "A worker with no such call is left out (with nested parallelism most workers are\n"
    "threads of other teams), so a team member that got no work at all is not seen:\n"
    "workers lower than the team size is itself a sign of imbalance (1 worker: one\n"
    "thread did everything, and the imbalance reads 1.00).\n"
    "-          not measured: the times of a routine counted at its call sites, and\n"
    "           of calls that reached such routines only (their time is their caller's\n"
    "           self time; calls of them beside timed ones add nothing to the time),\n"
    "           every time of a CPROF_MODE=count run\n"
    "Times are in milliseconds.  Routines that were only entered and only called\n"
    "sequentially are folded into one S-S line with their calls (their callee times\n"
    "nest in each other, so no sum of them is shown).\n";

static const cprof_column cols[] = {
    {"name", "name", true},
    {NULL, "file", false},
    {"case", "case", true},
    {"unit", "unit", true},
    {"calls", "calls", false},
    {"time", "time_ns", false},
    {"", NULL, true},
    {"outer", "outer_ns", false},
    {"workers", "workers", false},
    {"min", "min_ns", false},
    {"mean", "mean_ns", false},
    {"max", "max_ns", false},
    {"imbalance", "imbalance", false},
};

static void start(cprof_table *t, const cprof_view *v, size_t i, bool first, const char *c,
                  const char *unit)
{
    cprof_table_row(t);
    cprof_cell_str2(t, first ? v->r[i].label : "", v->p->routines[i].name);
    cprof_cell_str(t, v->p->routines[i].file);
    cprof_cell_str(t, c);
    cprof_cell_str(t, unit);
}

/* The paper's time, marked when it differs from the time counted once, and that;
 * each "-" where not measured. */
static void times(cprof_table *t, bool measured, int64_t time, int64_t outer, char mark)
{
    cprof_cell_time_mark(t, cprof_if_measured(measured, time), mark);
    cprof_cell_str(t, measured && time != outer ? "*" : "");
    cprof_cell_time_mark(t, cprof_if_measured(measured, outer), mark);
}

static void single(cprof_table *t, bool measured, cprof_tally x, int64_t outer, char mark)
{
    cprof_cell_int(t, x.n);
    times(t, measured || !x.n, x.t, outer, mark);
    for (int k = 0; k < 5; k++)
        cprof_cell_empty(t);
}

/* The row's calls and time summed over all workers, and the time counted once
 * (outer); then, over the workers that made at least one such call (k of them), k,
 * the min, mean and max of their times and the imbalance max / mean. */
static void per_worker(cprof_table *t, const cprof_view *v, size_t i, size_t off, bool measured,
                       int64_t outer, char mark)
{
    cprof_spread s = cprof_view_spread(v, i, off);
    int64_t k = s.workers;
    measured |= !s.sum.n;
    cprof_cell_int(t, s.sum.n);
    times(t, measured, s.sum.t, outer, mark);
    if (!k) {
        for (int c = 0; c < 5; c++)
            cprof_cell_empty(t);
        return;
    }
    cprof_cell_int(t, k);
    cprof_cell_time_mark(t, cprof_if_measured(measured, s.min), mark);
    cprof_cell_time_mark(t, cprof_if_measured(measured, s.busy / k + (s.busy % k * 2 >= k)), mark);
    cprof_cell_time_mark(t, cprof_if_measured(measured, s.max), mark);
    if (!measured)
        cprof_cell_real(t, NAN);
    else if (s.busy)
        cprof_cell_real(t, cprof_spread_imbalance(&s));
    else
        cprof_cell_empty(t);
}

/* A per-worker callee row (at offset off) of case k with its time counted once. */
static void callee_row(cprof_table *t, const cprof_view *v, size_t i, size_t off, int k)
{
    cprof_spread s = cprof_view_spread(v, i, off);
    per_worker(t, v, i, off, v->r[i].c_callees_timed, cprof_outer(&s.sum),
               cprof_mark(v, v->r[i].callee_err[k]));
}

static bool concurrent(const cprof_view *v, size_t i)
{
    const cprof_prof_routine *r = &v->p->routines[i];
    for (size_t w = 0; w < v->p->nworkers; w++) {
        const cprof_prof_routine_worker *x = &r->worker[w];
        if (x->c_caller.n || x->c_callee.n || x->cs_callee.n || x->cc_callee.n)
            return true;
    }
    return false;
}

cprof_table *cprof_section_cases(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    cprof_table *t = cprof_table_new("Concurrency cases", explain, cols,
                                     sizeof cols / sizeof *cols);
    if (cprof_cases_unknown(p)) {
        cprof_table_note(t, "Not measured: %s (the summary says more).", p->omp_reason);
        return t;
    }
    size_t nseq = 0;
    int64_t calls = 0;
    for (size_t i = 0; i < p->nroutines; i++) {
        const cprof_prof_routine *r = &p->routines[i];
        if (!v->r[i].ran || !v->r[i].match)
            continue;
        if (!concurrent(v, i)) {
            nseq++;
            calls = cprof_add(calls, r->s_callee.n);
            continue;
        }
        const cprof_rview *rv = &v->r[i];
        start(t, v, i, true, "S entries", "wall");
        single(t, v->r[i].timed, r->s_caller, r->s_caller.t, cprof_mark(v, rv->wall_err));
        start(t, v, i, false, "C entries", "worker");
        /* Worker inclusive less the sequential wall time and the team time, which is
         * no entry's (docs/report.md). */
        per_worker(t, v, i, offsetof(cprof_prof_routine_worker, c_caller), v->r[i].timed,
                   v->r[i].inclusive - v->r[i].wall - v->r[i].team, cprof_mark(v, rv->c_err));
        start(t, v, i, false, "S-S", "wall");
        single(t, v->r[i].s_callees_timed, r->s_callee, cprof_outer(&r->s_callee),
               cprof_mark(v, rv->callee_err[0]));
        start(t, v, i, false, "S-C", "worker");
        callee_row(t, v, i, offsetof(cprof_prof_routine_worker, c_callee), 1);
        start(t, v, i, false, "C-S", "worker");
        callee_row(t, v, i, offsetof(cprof_prof_routine_worker, cs_callee), 2);
        start(t, v, i, false, "C-C", "worker");
        callee_row(t, v, i, offsetof(cprof_prof_routine_worker, cc_callee), 3);
    }
    if (nseq) {
        char *label = cprof_xasprintf("(%zu sequential-only routine%s)", nseq,
                                      nseq == 1 ? "" : "s");
        cprof_table_row(t);
        cprof_cell_str2(t, label, "(sequential only)");
        cprof_cell_empty(t);
        cprof_cell_str(t, "S-S");
        cprof_cell_empty(t);
        cprof_cell_int(t, calls);
        for (int k = 0; k < 8; k++)
            cprof_cell_empty(t);
        free(label);
    }
    cprof_note_estimates(t, v, false);
    return t;
}

static const char by_case_explain[] =
    "For each routine that ran, the calls it made in each case (S-S, S-C, C-S, C-C, as\n"
    "in the concurrency cases above), summed over the workers: their number, the\n"
    "callees' time (the paper's) and the same time counted once per stretch of a\n"
    "thread's time (outer).  S-S times are wall time, the others worker time; times are\n"
    "in milliseconds, - where not measured (calls of routines counted at their call\n"
    "sites only, or a CPROF_MODE=count run).\n";

static const cprof_column by_case_cols[] = {
    {"name", "name", true},
    {NULL, "file", false},
    {"S-S calls", "ss_calls", false}, {"S-S time", "ss_ns", false}, {"S-S outer", "ss_outer_ns", false},
    {"S-C calls", "sc_calls", false}, {"S-C time", "sc_ns", false}, {"S-C outer", "sc_outer_ns", false},
    {"C-S calls", "cs_calls", false}, {"C-S time", "cs_ns", false}, {"C-S outer", "cs_outer_ns", false},
    {"C-C calls", "cc_calls", false}, {"C-C time", "cc_ns", false}, {"C-C outer", "cc_outer_ns", false},
};

static void by_case(cprof_table *t, bool measured, cprof_tally x, char mark)
{
    cprof_cell_int(t, x.n);
    cprof_cell_time_mark(t, cprof_if_measured(measured || !x.n, x.t), mark);
    cprof_cell_time_mark(t, cprof_if_measured(measured || !x.n, cprof_outer(&x)), mark);
}

cprof_table *cprof_section_by_case(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    cprof_table *t = cprof_table_new("Calls made, by case", by_case_explain, by_case_cols,
                                     sizeof by_case_cols / sizeof *by_case_cols);
    static const size_t off[] = {
        offsetof(cprof_prof_routine_worker, c_callee),
        offsetof(cprof_prof_routine_worker, cs_callee),
        offsetof(cprof_prof_routine_worker, cc_callee),
    };
    for (size_t i = 0; i < p->nroutines; i++) {
        if (!v->r[i].ran || !v->r[i].match)
            continue;
        cprof_table_row(t);
        cprof_cell_str2(t, v->r[i].label, p->routines[i].name);
        cprof_cell_str(t, p->routines[i].file);
        by_case(t, v->r[i].s_callees_timed, p->routines[i].s_callee,
                cprof_mark(v, v->r[i].callee_err[0]));
        for (size_t k = 0; k < 3; k++)
            by_case(t, v->r[i].c_callees_timed, cprof_view_spread(v, i, off[k]).sum,
                    cprof_mark(v, v->r[i].callee_err[k + 1]));
    }
    cprof_note_estimates(t, v, false);
    return t;
}
