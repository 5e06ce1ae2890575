/* threads.c: section 6, per-thread concurrency: what each worker did in parallel
 * regions, then, for each routine that opened parallel regions, how the time of its
 * concurrent calls is spread over the workers; and for the HTML page, each routine's
 * concurrent entries per worker. */
#include "report.h"
#include "../model/alloc.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char workers_explain[] =
    "worker      cprof's worker number (0 is the initial thread)\n"
    "tid         the Linux thread id\n"
    "omp         the OpenMP thread number when it first ran profiled code\n"
    "pu, core    the processing unit it ran on longest, and its core (hwloc's logical\n"
    "            index); in a profile without placement, the PU it first ran profiled\n"
    "            code on\n"
    "c entries   entries of routines on this worker inside active parallel regions\n"
    "c time      time in those concurrent activations, worker time of this one worker\n"
    "            (their self times added up, so nested activations count once), in\n"
    "            milliseconds\n"
    "%elapsed    c time as a share of the program's elapsed time\n"
    "vs mean     c time's deviation from the mean over the workers with concurrent\n"
    "            entries (empty for a worker without any)\n"
    "Time a worker spent in a region outside any profiled routine (the loop of the\n"
    "region's own body, waiting at barriers) is not c time: the region's routine\n"
    "shows it only on the thread that opened the region.  With nested parallelism the\n"
    "workers include the threads of inner teams, which live for one region each: vs\n"
    "mean then compares threads of unequal lives, and the table below, per routine,\n"
    "is the one to read for the balance of a team.\n";

/* With placement (docs/placement.md). */
static const char placement_explain[] =
    "node        the NUMA node of its PU; moves: how often it was seen on another PU than\n"
    "            before (the placement section has its PUs, and flags)\n";

/* With parallel regions in the profile (a runtime that follows them). */
static const char regions_explain[] =
    "region busy the worker's busy time in the parallel regions it ran (outermost on\n"
    "            the worker: a nested one's time is in its enclosing one's), whether or\n"
    "            not it called profiled routines, less the waits at barriers (ms)\n"
    "%run        region busy as a share of the program's elapsed time\n";

static const char spread_explain[] =
    "For each routine that made calls from inside its own parallel regions (S-C and\n"
    "C-C calls), the calls and the callees' elapsed time on each worker that made such\n"
    "calls (ms: that worker's share of the worker time in the cases section, the\n"
    "paper's callee time), its share of the routine's total, and its deviation from the\n"
    "mean over those workers.  Workers without such calls are not listed, so a team member that\n"
    "got no work at all is not seen: fewer rows than the team has threads is itself an\n"
    "imbalance.  An even spread shows every row near 0%; the imbalance (max / mean) is\n"
    "in the concurrency cases above.\n";

/* An MPI job's workers are (rank, worker): the rank column is a job's only. */
static const cprof_column worker_cols[] = {
    {"rank", "rank", false},
    {"worker", "worker", false},
    {"tid", "tid", false},
    {"omp", "omp_thread", false},
    {"pu", "pu", false},
    {"core", "core", false},
    {"node", "node", false},
    {"moves", "moves", false},
    {"c entries", "c_entries", false},
    {"c time", "c_ns", false},
    {"%elapsed", "pct_elapsed", false},
    {"vs mean", "pct_vs_mean", false},
    {"region busy", "region_busy_ns", false},
    {"%run", "pct_region_busy", false},
};

static const cprof_column spread_cols[] = {
    {"name", "name", true},
    {NULL, "file", false},
    {"worker", "worker", false},
    {"calls", "calls", false},
    {"time", "time_ns", false},
    {"%routine", "pct_routine", false},
    {"vs mean", "pct_vs_mean", false},
};

static const cprof_column spread_job_cols[] = {
    {"name", "name", true},
    {NULL, "file", false},
    {"rank", "rank", false},
    {"worker", "worker", false},
    {"calls", "calls", false},
    {"time", "time_ns", false},
    {"%routine", "pct_routine", false},
    {"vs mean", "pct_vs_mean", false},
};

/* (x - mean) / mean in %, mean = sum / n. */
static double deviation(int64_t x, int64_t sum, size_t n)
{
    return sum ? 100.0 * ((double)x * (double)n - (double)sum) / (double)sum : 0.0;
}

cprof_table *cprof_section_threads(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    bool job = p->nranks > 0, regions = p->nregions > 0, placed = p->nprocesses > 0;
    char *explain = cprof_xasprintf("%s%s%s", workers_explain, placed ? placement_explain : "",
                                    regions ? regions_explain : "");
    /* The columns this profile has: the rank in a job, node and moves with placement,
     * the regions' with regions. */
    cprof_column cols[sizeof worker_cols / sizeof *worker_cols];
    size_t ncols = 0;
    for (size_t i = 0; i < sizeof worker_cols / sizeof *worker_cols; i++) {
        const char *k = worker_cols[i].key;
        if ((job || strcmp(k, "rank")) && (placed || (strcmp(k, "node") && strcmp(k, "moves"))) &&
            (regions || (strcmp(k, "region_busy_ns") && strcmp(k, "pct_region_busy"))))
            cols[ncols++] = worker_cols[i];
    }
    /* --resources: each worker's totals, last. */
    cprof_rescols *rc = cprof_rescols_new(v, CPROF_RESCOLS_WORKERS);
    cprof_table *t = cprof_rescols_table(rc, "Per-thread concurrency", explain, cols, ncols,
                                         ncols);
    free(explain);
    cprof_tally *c = cprof_xcalloc(p->nworkers, sizeof *c);
    int64_t sum = 0;
    size_t busy = 0;  /* workers with concurrent entries: the mean is over them */
    /* A counted routine's time is its callers' self time: measured in all routines', not
     * in its own (--routine). */
    bool measured = v->timed;
    for (size_t i = 0; v->o->routine && i < p->nroutines; i++)
        measured &= !v->r[i].match || v->r[i].timed;
    for (size_t w = 0; w < p->nworkers; w++) {
        for (size_t i = 0; i < p->nroutines; i++)
            if (v->r[i].match) {
                c[w].n = cprof_add(c[w].n, p->routines[i].worker[w].c_caller.n);
                c[w].t = cprof_add(c[w].t, p->routines[i].worker[w].c_self_t);
            }
        if (c[w].n) {
            sum = cprof_add(sum, c[w].t);
            busy++;
        }
    }
    for (size_t w = 0; w < p->nworkers; w++) {
        const cprof_prof_worker *x = &p->workers[w];
        cprof_table_row(t);
        if (job)
            cprof_cell_int(t, x->rank);
        cprof_cell_int(t, x->id);
        cprof_cell_int(t, x->tid);
        cprof_cell_int(t, x->omp_thread);
        cprof_cell_int(t, cprof_if_known(x->pu));
        cprof_cell_int(t, cprof_if_known(x->core));
        cprof_where at;
        if (placed && cprof_worker_where(p, w, &at)) {
            cprof_cell_int(t, cprof_if_known(at.node));
            cprof_cell_int(t, at.moves);
        } else if (placed) {
            cprof_cell_int(t, CPROF_UNMEASURED);
            cprof_cell_int(t, CPROF_UNMEASURED);
        }
        cprof_cell_int(t, c[w].n);
        cprof_cell_time(t, cprof_if_measured(measured, c[w].t));
        cprof_cell_pct(t, !measured ? NAN : p->elapsed_ns ? 100.0 * (double)c[w].t / (double)p->elapsed_ns
                                                         : 0.0);
        if (c[w].n)
            cprof_cell_pct(t, measured ? deviation(c[w].t, sum, busy) : NAN);
        else
            cprof_cell_empty(t);
        if (regions) {
            int64_t b = cprof_view_region_busy(v, w);
            cprof_cell_time(t, cprof_if_measured(v->timed, b));
            cprof_cell_pct(t, !v->timed ? NAN : p->elapsed_ns ? 100.0 * (double)b / (double)p->elapsed_ns
                                                             : 0.0);
        }
        cprof_rescols_cells(rc, t, w);
    }
    /* Estimates are summed per routine, not per worker: the c times hold them unmarked. */
    if (p->nestimates)
        cprof_table_note(t, "c time holds the estimated times of the concurrent entries marked ~ in"
                            " the\nconcurrency cases (their errors are per routine, not per"
                            " worker).");
    free(c);
    cprof_rescols_free(rc);
    return t;
}

static const char entries_explain[] =
    "For each routine entered concurrently, its concurrent entries on each worker that\n"
    "had any: their number, and the time of the outermost ones (ms, the paper's: the\n"
    "per-worker times of the C entries row of the concurrency cases, whose imbalance\n"
    "is max / mean of them).\n";

static const cprof_column entries_cols[] = {
    {"name", "name", true},
    {NULL, "file", false},
    {"worker", "worker", false},
    {"calls", "calls", false},
    {"time", "time_ns", false},
};

cprof_table *cprof_section_worker_entries(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    cprof_table *t = cprof_table_new("Concurrent entries per worker", entries_explain,
                                     entries_cols, sizeof entries_cols / sizeof *entries_cols);
    for (size_t i = 0; i < p->nroutines; i++) {
        const cprof_prof_routine *r = &p->routines[i];
        bool first = true;
        for (size_t w = 0; v->r[i].match && w < p->nworkers; w++) {
            if (!r->worker[w].c_caller.n)
                continue;
            cprof_table_row(t);
            cprof_cell_str2(t, first ? v->r[i].label : "", r->name);
            cprof_cell_str(t, r->file);
            cprof_cell_int(t, (int64_t)w);
            cprof_cell_int(t, r->worker[w].c_caller.n);
            cprof_cell_time_mark(t, cprof_if_measured(v->r[i].timed, r->worker[w].c_caller.t),
                                 cprof_mark(v, v->r[i].c_err));
            first = false;
        }
    }
    cprof_note_estimates(t, v, false);
    return t;
}

/* Calls and callee time of routine r's S-C and C-C calls on worker w. */
static cprof_tally concurrent_calls(const cprof_prof_routine *r, size_t w)
{
    const cprof_prof_routine_worker *rw = &r->worker[w];
    return (cprof_tally){cprof_add(rw->c_callee.n, rw->cc_callee.n),
                         cprof_add(rw->c_callee.t, rw->cc_callee.t),
                         cprof_add(rw->c_callee.nested, rw->cc_callee.nested),
                         cprof_add(rw->c_callee.rec_t, rw->cc_callee.rec_t)};
}

cprof_table *cprof_section_spread(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    bool job = p->nranks > 0;
    cprof_table *t = job ? cprof_table_new("Concurrent callee time per worker", spread_explain,
                                           spread_job_cols,
                                           sizeof spread_job_cols / sizeof *spread_job_cols)
                         : cprof_table_new("Concurrent callee time per worker", spread_explain,
                                           spread_cols, sizeof spread_cols / sizeof *spread_cols);
    for (size_t i = 0; i < p->nroutines; i++) {
        const cprof_prof_routine *r = &p->routines[i];
        if (!v->r[i].match)
            continue;
        cprof_tally sum = {0};
        size_t busy = 0;  /* workers with such calls: the rows, and the mean over them */
        for (size_t w = 0; w < p->nworkers; w++) {
            cprof_tally x = concurrent_calls(r, w);
            if (!x.n)
                continue;
            sum.n = cprof_add(sum.n, x.n);
            sum.t = cprof_add(sum.t, x.t);
            busy++;
        }
        if (!busy)
            continue;
        bool first = true;
        for (size_t w = 0; w < p->nworkers; w++) {
            cprof_tally x = concurrent_calls(r, w);
            if (!x.n)
                continue;
            cprof_table_row(t);
            cprof_cell_str2(t, first ? v->r[i].label : "", r->name);
            cprof_cell_str(t, r->file);
            if (job)
                cprof_cell_int(t, p->workers[w].rank);
            cprof_cell_int(t, p->workers[w].id);
            bool m = v->r[i].c_callees_timed;
            cprof_cell_int(t, x.n);
            cprof_error e = cprof_error_add(v->r[i].callee_err[1], v->r[i].callee_err[3]);
            cprof_cell_time_mark(t, cprof_if_measured(m, x.t), cprof_mark(v, e));
            cprof_cell_pct(t, !m ? NAN : sum.t ? 100.0 * (double)x.t / (double)sum.t : 0.0);
            cprof_cell_pct(t, m ? deviation(x.t, sum.t, busy) : NAN);
            first = false;
        }
    }
    cprof_note_estimates(t, v, false);
    return t;
}
