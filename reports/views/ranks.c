/* ranks.c: the sections of an MPI job's profile (docs/mpi.md): what each rank did, then,
 * for each routine, how its time is spread over the ranks and which rank is slowest.
 * Both are NULL for profiles that are no job's. */
#include "report.h"
#include "../model/alloc.h"

#include <math.h>
#include <stdlib.h>

static const char ranks_explain[] =
    "rank        the process's MPI rank, as its launcher set it\n"
    "host, pid   where it ran, and its process id\n"
    "workers     its threads that ran profiled code: the job's workers are (rank,\n"
    "            worker), each rank's listed apart in the per-thread section\n"
    "elapsed     its own elapsed time; the job's is the longest (the summary's)\n"
    "s calls     entries of routines on it outside parallel regions (sequential)\n"
    "c calls     entries inside parallel regions (concurrent), all its workers\n"
    "worker self the time its workers spent in profiled routines (their self times\n"
    "            added up), in milliseconds; time spent waiting in MPI calls is the\n"
    "            self time of the routine that made them\n"
    "%busy       worker self as a share of its elapsed time x its workers\n"
    "vs mean     worker self's deviation from the mean over the ranks\n"
    "With --routine, the figures are those of the routines named.\n";

static const char imbalance_explain[] =
    "For each routine that ran, its worker time on each rank (summed over the rank's\n"
    "workers, as in the flat profile), spread over the ranks of the job, a rank where\n"
    "it did not run counting 0:\n"
    "ranks       the ranks where it was entered\n"
    "incl        the least, the mean and the most of its inclusive time on a rank (ms)\n"
    "slowest     the rank with the most (the lowest of equals)\n"
    "imbal       the most over the mean: 1.00 when every rank took as long\n"
    "threads     the imbalance of its concurrent entries over the workers of one rank\n"
    "            (max / mean, as in the concurrency cases), on the rank where it is\n"
    "            largest; empty without concurrent entries\n"
    "self        the same spread of its self time, and its slowest rank\n"
    "A rank that takes longer than the others in a routine makes them wait for it at\n"
    "their next communication, in the routine that makes it, which then takes longest\n"
    "on the ranks that did not: read the slowest rank of the routines that compute.\n"
    "Rows are sorted by what the imbalance of inclusive time costs (max - mean),\n"
    "largest first.\n";

static const cprof_column rank_cols[] = {
    {"rank", "rank", false},
    {"host", "host", true},
    {"pid", "pid", false},
    {"workers", "workers", false},
    {"elapsed", "elapsed_ns", false},
    {"s calls", "s_calls", false},
    {"c calls", "c_calls", false},
    {"worker self", "self_worker_ns", false},
    {"%busy", "pct_busy", false},
    {"vs mean", "pct_vs_mean", false},
};

static const cprof_column imbalance_cols[] = {
    {"ranks", "ranks", false},
    {"incl min", "inclusive_min_ns", false},
    {"incl mean", "inclusive_mean_ns", false},
    {"incl max", "inclusive_max_ns", false},
    {"slowest", "inclusive_slowest_rank", false},
    {"imbal", "inclusive_imbalance", false},
    {"threads", "thread_imbalance", false},
    {NULL, "thread_imbalance_rank", false},
    {"self min", "self_min_ns", false},
    {"self mean", "self_mean_ns", false},
    {"self max", "self_max_ns", false},
    {"slowest", "self_slowest_rank", false},
    {"name", "name", true},
    {NULL, "file", false},
};

cprof_table *cprof_section_ranks(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    if (!p->nranks)
        return NULL;
    cprof_table *t = cprof_table_new("Ranks", ranks_explain, rank_cols,
                                     sizeof rank_cols / sizeof *rank_cols);
    cprof_figures *f = cprof_xcalloc(p->nranks, sizeof *f);
    int64_t sum = 0;
    for (size_t k = 0; k < p->nranks; k++) {
        for (size_t i = 0; i < p->nroutines; i++)
            if (v->r[i].match) {
                cprof_figures x = cprof_view_rank(v, i, k);
                f[k].s_calls = cprof_add(f[k].s_calls, x.s_calls);
                f[k].c_calls = cprof_add(f[k].c_calls, x.c_calls);
                f[k].self = cprof_add(f[k].self, x.self);
            }
        sum = cprof_add(sum, f[k].self);
    }
    for (size_t k = 0; k < p->nranks; k++) {
        const cprof_prof_rank *r = &p->ranks[k];
        double capacity = (double)r->elapsed_ns * (double)r->nworkers;
        cprof_table_row(t);
        cprof_cell_int(t, r->rank);
        cprof_cell_str(t, r->host);
        cprof_cell_int(t, r->pid);
        cprof_cell_int(t, (int64_t)r->nworkers);
        cprof_cell_time(t, r->elapsed_ns);
        cprof_cell_int(t, f[k].s_calls);
        cprof_cell_int(t, f[k].c_calls);
        cprof_cell_time(t, cprof_if_measured(v->timed, f[k].self));
        cprof_cell_pct(t, !v->timed ? NAN : capacity > 0 ? 100.0 * (double)f[k].self / capacity : 0.0);
        cprof_cell_pct(t, !v->timed ? NAN
                          : sum ? 100.0 * ((double)f[k].self * (double)p->nranks - (double)sum) /
                                      (double)sum
                                : 0.0);
    }
    free(f);
    /* Estimates are summed per routine, not per rank. */
    if (p->nestimates)
        cprof_table_note(t, "worker self holds the estimated times marked ~ in the flat profile (their\n"
                            "errors are per routine, not per rank).");
    return t;
}

struct row {
    size_t routine;
    cprof_rank_balance b;
};

/* What the imbalance of inclusive time costs (max - mean), largest first; then report
 * order. */
static int by_cost(const void *x, const void *y)
{
    const struct row *a = x, *b = y;
    double ca = (double)a->b.inclusive.max - a->b.inclusive.mean;
    double cb = (double)b->b.inclusive.max - b->b.inclusive.mean;
    if (ca != cb)
        return ca < cb ? 1 : -1;
    return (a->routine > b->routine) - (a->routine < b->routine);
}

static void spread_cells(cprof_table *t, const cprof_profile *p, const cprof_rank_spread *s,
                         bool measured, bool imbalance, char mark)
{
    cprof_cell_time_mark(t, cprof_if_measured(measured, s->min), mark);
    cprof_cell_time_mark(t, cprof_if_measured(measured, (int64_t)llround(s->mean)), mark);
    cprof_cell_time_mark(t, cprof_if_measured(measured, s->max), mark);
    if (measured)
        cprof_cell_int(t, p->ranks[s->slowest].rank);
    else
        cprof_cell_empty(t);
    if (imbalance)
        cprof_cell_real(t, measured ? cprof_rank_imbalance(s) : NAN);
}

cprof_table *cprof_section_rank_imbalance(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    if (!p->nranks)
        return NULL;
    cprof_table *t = cprof_table_new("Rank imbalance per routine", imbalance_explain,
                                     imbalance_cols,
                                     sizeof imbalance_cols / sizeof *imbalance_cols);
    struct row *rows = cprof_xcalloc(p->nroutines, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < p->nroutines; i++)
        if (v->r[i].ran && v->r[i].match)
            rows[n++] = (struct row){i, cprof_view_rank_balance(v, i)};
    qsort(rows, n, sizeof *rows, by_cost);
    for (size_t k = 0; k < n; k++) {
        const cprof_prof_routine *r = &p->routines[rows[k].routine];
        cprof_table_row(t);
        cprof_cell_int(t, (int64_t)rows[k].b.ran);
        const cprof_rank_balance *b = &rows[k].b;
        bool m = v->r[rows[k].routine].timed;
        const cprof_rview *rv = &v->r[rows[k].routine];
        spread_cells(t, p, &b->inclusive, m, true, cprof_mark(v, rv->incl_err));
        if (m && b->threads > 0) {
            cprof_cell_real(t, b->threads);
            cprof_cell_int(t, p->ranks[b->threads_rank].rank);
        } else {
            cprof_cell_empty(t);
            cprof_cell_empty(t);
        }
        spread_cells(t, p, &b->self, m, false, cprof_mark(v, rv->self_err));
        cprof_cell_str2(t, v->r[rows[k].routine].label, r->name);
        cprof_cell_str(t, r->file);
    }
    free(rows);
    cprof_note_estimates(t, v, false);
    return t;
}
