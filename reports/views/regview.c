/* regview.c: the parallel regions and tasks as the report shows them (--regions, and
 * the text report's regions sections): each construct's figures over the workers, the
 * construct it is nested in, and their order; then the two tables. */
#include "report.h"
#include "../model/alloc.h"
#include "../../format/schema.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE SIZE_MAX
#define NELEM(a) (sizeof (a) / sizeof *(a))
#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* The construct of context x (a region's or a task's), or NONE. */
static size_t construct_of(const cprof_profile *p, const cprof_prof_path *x)
{
    int kind = x->routine == CPROF_REGION_ROUTINE ? CPROF_REGION_PARALLEL
             : x->routine == CPROF_TASK_ROUTINE ? CPROF_REGION_TASK : 0;
    for (size_t i = 0; kind && i < p->nregions; i++) {
        const cprof_prof_region *r = &p->regions[i];
        if (r->kind == kind && (r->file && x->site_file ? !strcmp(r->file, x->site_file) &&
                                                            r->line == x->site_line
                                                        : !r->file && !x->site_file))
            return i;
    }
    return NONE;
}

/* Each construct's parent: the construct around its heaviest calling context (a
 * construct may be reached from several). */
static void parents(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    int64_t *heaviest = cprof_xcalloc(p->nregions + 1, sizeof *heaviest);
    for (size_t i = 0; i < p->nregions; i++)
        heaviest[i] = -1;
    /* Per context: its construct, and the nearest construct context above it (parents
     * come before their children). */
    size_t *of = cprof_xcalloc(p->npaths + 1, sizeof *of);
    size_t *around = cprof_xcalloc(p->npaths + 1, sizeof *around);
    for (size_t c = 0; c < p->npaths; c++) {
        const cprof_prof_path *x = &p->paths[c];
        size_t i = of[c] = construct_of(p, x), up = x->parent;
        around[c] = up == CPROF_NO_PATH ? NONE : of[up] != NONE ? up : around[up];
        int64_t t = 0;
        for (int k = 0; k < 4; k++)
            t = cprof_add(t, x->cases[k].t);
        if (i == NONE || t <= heaviest[i])
            continue;
        /* A task made by a task of its own construct (recursion) is in what that is in. */
        size_t a = around[c];
        while (a != NONE && of[a] == i)
            a = around[a];
        heaviest[i] = t;
        v->g[i].parent = a == NONE ? NONE : of[a];
    }
    free(around);
    free(of);
    free(heaviest);
    /* A construct ending with a barrier is in the last parallel region of its routine
     * before it, when its site says it is inside one; else (an orphaned one) in none. */
    for (size_t i = 0; i < p->nregions; i++) {
        const cprof_prof_region *r = &p->regions[i];
        if (r->kind < CPROF_REGION_FOR || !r->file || r->d < 1)
            continue;
        for (size_t j = 0; j < p->nregions; j++) {
            const cprof_prof_region *q = &p->regions[j];
            if (q->kind == CPROF_REGION_PARALLEL && q->file && q->routine == r->routine &&
                !strcmp(q->file, r->file) && q->line <= r->line &&
                (v->g[i].parent == NONE || q->line > p->regions[v->g[i].parent].line))
                v->g[i].parent = j;
        }
    }
    /* Constructs reached through each other (recursion) are nested in neither, nor is
     * one in a construct that did not run (listed under none). */
    for (size_t i = 0; i < p->nregions; i++) {
        size_t up = v->g[i].parent;
        for (size_t n = 0; up != NONE && up != i && n < p->nregions; n++)
            up = v->g[up].parent;
        if (up == i || (v->g[i].parent != NONE && !v->g[v->g[i].parent].ran))
            v->g[i].parent = NONE;
    }
    for (size_t i = 0; i < p->nregions; i++)
        for (size_t up = v->g[i].parent; up != NONE; up = v->g[up].parent)
            v->g[i].depth++;
}

static const cprof_view *sorting;

/* The most waiting at barriers first (the team's time lost to imbalance and waiting),
 * then the busiest, then the profile's order. */
static int cmp_order(const void *x, const void *y)
{
    const cprof_gview *a = &sorting->g[*(const size_t *)x], *b = &sorting->g[*(const size_t *)y];
    int64_t wa = cprof_add(a->sum.barrier_wait, a->sum.end_wait);
    int64_t wb = cprof_add(b->sum.barrier_wait, b->sum.end_wait);
    int d = CMP(wb, wa);
    if (!d)
        d = CMP(b->sum.busy_t, a->sum.busy_t);
    return d ? d : CMP(*(const size_t *)x, *(const size_t *)y);
}

/* The constructs nested in parent (NONE: the outermost), each followed by its own. */
static void emit(cprof_view *v, const size_t *sorted, size_t n, size_t parent)
{
    for (size_t k = 0; k < n; k++)
        if (v->g[sorted[k]].parent == parent) {
            v->g_order[v->ng++] = sorted[k];
            emit(v, sorted, n, sorted[k]);
        }
}

void cprof_view_regions(cprof_view *v)
{
    const cprof_profile *p = v->p;
    v->g = cprof_xcalloc(p->nregions + 1, sizeof *v->g);
    v->g_order = cprof_xcalloc(p->nregions + 1, sizeof *v->g_order);
    size_t *sorted = cprof_xcalloc(p->nregions + 1, sizeof *sorted), n = 0;
    for (size_t i = 0; i < p->nregions; i++) {
        const cprof_prof_region *r = &p->regions[i];
        cprof_gview *g = &v->g[i];
        g->parent = NONE;
        for (size_t w = 0; w < p->nworkers; w++) {
            const cprof_prof_region_worker *x = &r->worker[w];
            cprof_prof_region_worker *s = &g->sum;
            if (x->team_max && (!s->team_max || x->team_min < s->team_min))
                s->team_min = x->team_min;
            if (x->team_max > s->team_max)
                s->team_max = x->team_max;
            s->executions = cprof_add(s->executions, x->executions);
            s->busy_t = cprof_add(s->busy_t, x->busy_t);
            s->nested = cprof_add(s->nested, x->nested);
            s->barriers = cprof_add(s->barriers, x->barriers);
            s->barrier_wait = cprof_add(s->barrier_wait, x->barrier_wait);
            s->end_wait = cprof_add(s->end_wait, x->end_wait);
            s->team_sum = cprof_add(s->team_sum, x->team_sum);
            s->opened = cprof_add(s->opened, x->opened);
            s->max_busy = cprof_add(s->max_busy, x->max_busy);
            s->mean_busy = cprof_add(s->mean_busy, x->mean_busy);
            if (!x->executions)
                continue;
            if (!g->workers++ || x->busy_t < g->busy_min)
                g->busy_min = x->busy_t;
            if (x->busy_t > g->busy_max)
                g->busy_max = x->busy_t;
        }
        if (r->kind >= CPROF_REGION_FOR) {
            /* Each member passes its barrier once an execution; no opener sums the
             * team's spread: the workers' busy totals give it. */
            for (size_t w = 0; w < p->nworkers; w++)
                if (r->worker[w].executions > g->executions)
                    g->executions = r->worker[w].executions;
            int64_t mean = g->workers ? g->sum.busy_t / (int64_t)g->workers : 0;
            g->imbalance = mean ? (double)g->busy_max / (double)mean : 0;
            g->lost = g->busy_max > mean ? g->busy_max - mean : 0;
        } else {
            g->executions = r->kind == CPROF_REGION_PARALLEL ? g->sum.opened : g->sum.executions;
            g->imbalance = g->sum.mean_busy ? (double)g->sum.max_busy / (double)g->sum.mean_busy : 0;
            g->lost = g->sum.max_busy > g->sum.mean_busy ? g->sum.max_busy - g->sum.mean_busy : 0;
        }
        g->ran = g->sum.executions || g->sum.opened;
        if (g->ran)
            sorted[n++] = i;
    }
    parents(v);
    sorting = v;
    qsort(sorted, n, sizeof *sorted, cmp_order);
    emit(v, sorted, n, NONE);
    free(sorted);
}

int64_t cprof_view_region_busy(const cprof_view *v, size_t w)
{
    const cprof_profile *p = v->p;
    int64_t busy = 0;
    for (size_t i = 0; i < p->nregions; i++) {
        if (p->regions[i].kind != CPROF_REGION_PARALLEL || !p->regions[i].worker[w].executions)
            continue;
        size_t up = v->g[i].parent;
        while (up != NONE && !p->regions[up].worker[w].executions)
            up = v->g[up].parent;
        if (up == NONE)
            busy = cprof_add(busy, p->regions[i].worker[w].busy_t);
    }
    return busy;
}

/* ---- the tables ---- */

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
