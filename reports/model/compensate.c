/* compensate.c: --compensate, the profiler's estimated cost of each profiled call
 * taken out of the times it ran inside (raw.h). */
#include "raw.h"

#include <math.h>

/* t less `calls` calls of cost ns each, not below 0. */
static int64_t less_calls(int64_t t, int64_t calls, double cost)
{
    double c = (double)calls * cost;
    if (!(c < (double)t))
        return 0;
    int64_t r = llround(c);
    return r < t ? t - r : 0;
}

/* Compensate every time of row v (n columns described by cols, format/schema.h) at
 * cost ns for each profiled call made inside it; returns what came out of self times.
 * A time that names no column of calls (a wait) had none inside it. */
static double compensate_row(int64_t *v, const struct cprof_column *cols, int n, double cost)
{
    double self = 0;
    for (int k = 0; k < n; k++) {
        if ((cols[k].kind != CPROF_COL_TIME && cols[k].kind != CPROF_COL_SELF_TIME) ||
            cols[k].calls < 0)
            continue;
        int64_t less = less_calls(v[k], v[cols[k].calls], cost);
        if (cols[k].kind == CPROF_COL_SELF_TIME)
            self += (double)(v[k] - less);
        v[k] = less;
    }
    return self;
}

/* Row by row, with each file's own cost: the sums are then the same whatever the
 * files' order and costs, and a row whose estimate exceeds its time clamps alone. */
void cprof_raw_compensate(cprof_profile *p, struct raw_file *rf)
{
    for (size_t w = 0; w < rf->nworkers; w++) {
        struct raw_worker *wk = &rf->workers[w];
        for (size_t i = 0; i < wk->nroutine_rows; i++)
            p->compensated_ns += compensate_row(wk->routine_rows[i], cprof_routine_columns,
                                                CPROF_ROUTINE_NCOLUMNS, rf->call_cost_ns);
        for (size_t i = 0; i < wk->ncall_rows; i++)
            compensate_row(wk->call_rows[i], cprof_call_columns, CPROF_CALL_NCOLUMNS,
                           rf->call_cost_ns);
        for (size_t i = 0; i < wk->npath_rows; i++)
            compensate_row(wk->path_rows[i], cprof_path_columns, CPROF_PATH_NCOLUMNS,
                           rf->call_cost_ns);
        for (size_t i = 0; i < wk->nregion_rows; i++)
            compensate_row(wk->region_rows[i], cprof_region_columns, CPROF_REGION_NCOLUMNS,
                           rf->call_cost_ns);
    }
}
