/* constructs.c: the parallel regions and tasks as the views see them (view.h): each
 * construct's figures summed over the workers, the construct it is nested in (by the
 * calling contexts), their order (the most waiting first), and each worker's busy time
 * in the outermost regions it ran.  The tables are regview.c's. */
#include "view.h"
#include "alloc.h"
#include "../../format/schema.h"

#include <stdlib.h>
#include <string.h>

#define NONE SIZE_MAX
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
