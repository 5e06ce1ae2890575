/* regview.c: the parallel regions and tasks as the report shows them (--regions, and
 * the text report's regions sections): the two tables, per construct and per worker,
 * of the figures the model summed (constructs.c). */
#include "report.h"
#include "../model/alloc.h"
#include "../../format/schema.h"

#include <math.h>
#include <stdlib.h>

#define NELEM(a) (sizeof (a) / sizeof *(a))

static const char regions_explain[] =
    "Every OpenMP parallel region (a combined parallel loop too), task construct and\n"
    "construct ending with a barrier that ran, each under the one it is nested in (by\n"
    "the calling contexts), the most waiting first, then the busiest (docs/report.md,\n"
    "\"Parallel regions and tasks\"):\n"
    "construct  parallel or task (<parallel>, <task>: one cprof-cc did not compile)\n"
    "where      the pragma's file:line; routine: the routine it is in\n"
    "execs      a region's executions (a task's: the tasks run)\n"
    "team       the team sizes of its executions, smallest-largest\n"
    "busy       time in the body, whether or not it calls profiled routines, less\n"
    "           the waits at barriers inside it, summed over the workers (ms)\n"
    "min, max, mean  busy on each worker that ran the body, over those workers\n"
    "barrier    time the workers waited at barriers inside the body (worksharing\n"
    "           loops', sections', single's and explicit ones)\n"
    "end wait   time the workers waited at the region's closing barrier\n"
    "imbal      over the executions: the slowest member's busy time / the team's\n"
    "           mean busy time (1: balanced)\n"
    "lost       the slowest member's busy less the mean, summed over the executions:\n"
    "           the elapsed time a perfectly balanced team would have saved\n"
    "A for, sections or single (without nowait) or a barrier is listed under the\n"
    "region around it, with what happened at its barrier: execs, the times it ran;\n"
    "busy, each worker's time from its last synchronization (the body's start or the\n"
    "barrier before) to this barrier; barrier, the wait there; imbal and lost from\n"
    "the workers' busy totals (max / mean, max - mean).\n";

static const cprof_column region_cols[] = {
    {"construct", "construct", true},
    {"where", NULL, true},
    {NULL, "file", false},
    {NULL, "line", false},
    {"routine", "routine", true},
    {NULL, "depth", false},
    {"execs", "executions", false},
    {"team", NULL, false},
    {NULL, "team_min", false},
    {NULL, "team_max", false},
    {"busy", "busy_ns", false},
    {"min", "busy_min_ns", false},
    {"max", "busy_max_ns", false},
    {"mean", "busy_mean_ns", false},
    {"barrier", "barrier_wait_ns", false},
    {"end wait", "end_wait_ns", false},
    {"imbal", "imbalance", false},
    {"lost", "lost_ns", false},
};

void cprof_cells_team(cprof_table *t, const cprof_view *v, size_t i)
{
    const cprof_gview *g = &v->g[i];
    if (v->p->regions[i].kind == CPROF_REGION_TASK) {
        cprof_cell_empty(t);
        cprof_cell_empty(t);
        cprof_cell_empty(t);
        return;
    }
    char *team = g->sum.team_min == g->sum.team_max
                     ? cprof_xasprintf("%lld", (long long)g->sum.team_max)
                     : cprof_xasprintf("%lld-%lld", (long long)g->sum.team_min,
                                       (long long)g->sum.team_max);
    cprof_cell_str(t, team);
    free(team);
    cprof_cell_int(t, g->sum.team_min);
    cprof_cell_int(t, g->sum.team_max);
}

/* With --routine, only the constructs of the routines it names are shown. */
static bool shown(const cprof_view *v, size_t i)
{
    size_t r = v->p->regions[i].routine;
    return !v->o->routine || (r != CPROF_OTHER_ROUTINE && v->r[r].match);
}

/* Construct i's name (indented by its depth in the text form) and place; the text
 * form leaves them out but on the first of its rows. */
static void construct_cells(cprof_table *t, const cprof_view *v, size_t i, bool first)
{
    const cprof_prof_region *r = &v->p->regions[i];
    const char *kind = cprof_region_kinds[r->kind];
    char *text = cprof_xasprintf("%*s%s%s%s", 2 * v->g[i].depth, "", r->file ? "" : "<", kind,
                                 r->file ? "" : ">");
    char *where = r->file ? cprof_xasprintf("%s:%lld", r->file, (long long)r->line)
                          : cprof_xstrdup("");
    cprof_cell_str2(t, first ? text : "", kind);
    cprof_cell_str(t, first ? where : "");
    cprof_cell_str(t, r->file ? r->file : "");
    if (r->file)
        cprof_cell_int(t, r->line);
    else
        cprof_cell_empty(t);
    free(text);
    free(where);
}

cprof_table *cprof_section_regions(const cprof_view *v)
{
    if (!v->ng && !v->o->csv)
        return NULL;
    const cprof_profile *p = v->p;
    cprof_table *t = cprof_table_new("Parallel regions and tasks", regions_explain, region_cols,
                                     NELEM(region_cols));
    for (size_t k = 0; k < v->ng; k++) {
        size_t i = v->g_order[k];
        const cprof_prof_region *r = &p->regions[i];
        const cprof_gview *g = &v->g[i];
        if (!shown(v, i))
            continue;
        bool task = r->kind == CPROF_REGION_TASK;
        cprof_table_row(t);
        construct_cells(t, v, i, true);
        cprof_cell_str(t, r->routine == CPROF_OTHER_ROUTINE ? "" : v->r[r->routine].label);
        cprof_cell_int(t, g->depth);
        cprof_cell_int(t, g->executions);
        cprof_cells_team(t, v, i);
        /* A count-only run times no body. */
        bool m = v->timed;
        cprof_cell_time(t, cprof_if_measured(m, g->sum.busy_t));
        cprof_cell_time(t, cprof_if_measured(m, g->busy_min));
        cprof_cell_time(t, cprof_if_measured(m, g->busy_max));
        cprof_cell_time(t, cprof_if_measured(m, g->workers ? g->sum.busy_t / g->workers : 0));
        cprof_cell_time(t, cprof_if_measured(m, g->sum.barrier_wait));
        cprof_cell_time(t, cprof_if_measured(m, g->sum.end_wait));
        if (task) {
            cprof_cell_empty(t);
            cprof_cell_empty(t);
        } else {
            cprof_cell_real(t, m ? g->imbalance : NAN);
            cprof_cell_time(t, cprof_if_measured(m, g->lost));
        }
    }
    return t;
}

static const char workers_explain[] =
    "Each construct of the table above on each worker that ran its body: the\n"
    "executions, busy time, and the waits at barriers inside the body and at the\n"
    "region's end (ms), as defined there.  A light worker of an unbalanced team\n"
    "waits at the end for the heavy one.\n";

/* The rank column is a job's only. */
#define WORKER_COLS(...) { \
    {"construct", "construct", true}, {"where", NULL, true}, {NULL, "file", false}, \
    {NULL, "line", false}, __VA_ARGS__ {"worker", "worker", false}, {"execs", "executions", false}, \
    {"busy", "busy_ns", false}, {NULL, "barriers", false}, \
    {"barrier", "barrier_wait_ns", false}, {"end wait", "end_wait_ns", false} }
static const cprof_column worker_cols[] = WORKER_COLS();
static const cprof_column worker_job_cols[] = WORKER_COLS({"rank", "rank", false},);

cprof_table *cprof_section_region_workers(const cprof_view *v)
{
    if (!v->ng && !v->o->csv)
        return NULL;
    const cprof_profile *p = v->p;
    bool job = p->nranks > 0;
    cprof_table *t = job ? cprof_table_new("Parallel regions and tasks per worker", workers_explain,
                                           worker_job_cols, NELEM(worker_job_cols))
                         : cprof_table_new("Parallel regions and tasks per worker", workers_explain,
                                           worker_cols, NELEM(worker_cols));
    for (size_t k = 0; k < v->ng; k++) {
        size_t i = v->g_order[k];
        bool first = true;
        for (size_t w = 0; shown(v, i) && w < p->nworkers; w++) {
            const cprof_prof_region_worker *x = &p->regions[i].worker[w];
            if (!x->executions)
                continue;
            cprof_table_row(t);
            construct_cells(t, v, i, first);
            if (job)
                cprof_cell_int(t, p->workers[w].rank);
            cprof_cell_int(t, p->workers[w].id);
            cprof_cell_int(t, x->executions);
            cprof_cell_time(t, cprof_if_measured(v->timed, x->busy_t));
            cprof_cell_int(t, x->barriers);
            cprof_cell_time(t, cprof_if_measured(v->timed, x->barrier_wait));
            cprof_cell_time(t, cprof_if_measured(v->timed, x->end_wait));
            first = false;
        }
    }
    return t;
}
