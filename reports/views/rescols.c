/* rescols.c: the resources' figures (docs/resources.md) shared by the --resources tables
 * (resview.c) and by the columns that --resources adds to the flat profile, the call
 * paths and the per-thread table: samples per routine and per context, their amounts,
 * CPU time over a time.
 *
 * A sample is charged to the context on top of its thread's stack, so a context's
 * own samples are its routine's self figure there; its inclusive figure is its
 * subtree's.  A routine's inclusive figure sums its contexts' subtrees once each: a
 * recursive routine's inner contexts fold into the outer one (docs/semantics.md), so no
 * path holds a routine twice and nothing is counted twice.
 */
#include "report.h"
#include "../model/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Context i's own samples of resource r, both sides. */
static int64_t own_samples(const cprof_profile *p, size_t i, size_t r)
{
    return cprof_add(p->paths[i].samples[2 * r], p->paths[i].samples[2 * r + 1]);
}

void cprof_resource_sums(const cprof_profile *p, size_t r, int64_t (*self)[2], int64_t *incl,
                         int64_t *path_incl)
{
    memset(self, 0, p->nroutines * sizeof *self);
    memset(incl, 0, p->nroutines * sizeof *incl);
    for (size_t i = 0; i < p->npaths; i++)
        path_incl[i] = own_samples(p, i, r);
    /* Parents come before their children: backwards, each subtree is whole when it is
     * added to its parent. */
    for (size_t i = p->npaths; i-- > 0;)
        if (p->paths[i].parent != CPROF_NO_PATH)
            path_incl[p->paths[i].parent] = cprof_add(path_incl[p->paths[i].parent], path_incl[i]);
    for (size_t i = 0; i < p->npaths; i++) {
        const cprof_prof_path *x = &p->paths[i];
        if (!CPROF_IS_ROUTINE(x->routine))
            continue;
        for (int k = 0; k < 2; k++)
            self[x->routine][k] = cprof_add(self[x->routine][k], x->samples[2 * r + k]);
        /* Outermost context of its routine on its path: its subtree holds the others. */
        bool outer = true;
        for (size_t a = x->parent; a != CPROF_NO_PATH && outer; a = p->paths[a].parent)
            outer = p->paths[a].routine != x->routine;
        if (outer)
            incl[x->routine] = cprof_add(incl[x->routine], path_incl[i]);
    }
}

int64_t cprof_resource_amount(const cprof_prof_resource *x, int64_t samples)
{
    int64_t v;
    return __builtin_mul_overflow(samples, x->period, &v) ? INT64_MAX : v;
}

bool cprof_resource_is_cpu(const cprof_prof_resource *x)
{
    return !strcmp(x->name, "cpu");
}

void cprof_cell_resource(cprof_table *t, const cprof_prof_resource *x, int64_t amount)
{
    if (!strcmp(x->unit, "ns"))
        cprof_cell_time(t, amount);
    else
        cprof_cell_int(t, amount);
}

void cprof_cell_resource_unit(cprof_table *t, const cprof_prof_resource *x)
{
    if (!strcmp(x->unit, "ns"))
        cprof_cell_str2(t, "ms", "ns");     /* as cprof_cell_time prints it */
    else
        cprof_cell_str(t, x->unit);
}

double cprof_cpu_share(int64_t cpu_ns, int64_t time_ns)
{
    return cpu_ns >= 0 && time_ns > 0 ? 100.0 * (double)cpu_ns / (double)time_ns : NAN;
}

void cprof_cell_cpu_share(cprof_table *t, int64_t cpu_ns, int64_t time_ns)
{
    double pct = cprof_cpu_share(cpu_ns, time_ns);
    if (isnan(pct))
        cprof_cell_empty(t);
    else
        cprof_cell_pct(t, pct);
}

int64_t cprof_resource_total(const cprof_profile *p, size_t w, size_t r)
{
    return p->res_total[w * p->nresources + r];
}

/* ---- the columns ---- */

struct cprof_rescols {
    const cprof_view *v;
    cprof_rescols_of of;
    size_t n;               /* the resources shown */
    size_t *r;              /* [n]: their indexes in p->resources */
    int64_t **incl;         /* [n]: per routine, or per context, inclusive samples */
    cprof_column *cols;     /* the columns they add */
    size_t ncols;
    char *explain;
};

/* A CSV key: the resource's name with '_' for '-' (minor_faults_incl). */
static char *key_of(const cprof_prof_resource *x, const char *what)
{
    char *k = cprof_xasprintf("%s_%s%s", x->name, what, strcmp(x->unit, "ns") ? "" : "_ns");
    for (char *c = k; *c; c++)
        if (*c == '-')
            *c = '_';
    return k;
}

static void add_col(cprof_rescols *c, char *head, char *key)
{
    c->cols = cprof_xrealloc(c->cols, (c->ncols + 1) * sizeof *c->cols);
    c->cols[c->ncols++] = (cprof_column){head, key, false};
}

/* A line (or more) of the table's explanation: "heads  what they are", what on a line
 * of its own under heads too long for the first column. */
static void add_explain(cprof_rescols *c, const char *heads, const char *what)
{
    char *e = cprof_xasprintf("%s%-11s%s%s", c->explain ? c->explain : "", heads,
                              strlen(heads) > 11 ? "\n            " : " ", what);
    free(c->explain);
    c->explain = e;
}

static const char routine_incl_explain[] =
    "each sampled resource (CPROF_RESOURCES) while the routine, or one it\n"
    "            called on that thread, was on top of a worker's stack (its team's\n"
    "            too, as in worker incl): samples x period, times in ms.  n samples\n"
    "            are good to about 1/sqrt(n): --resources' per routine table has them\n";
static const char cpu_wall_explain[] =
    "cpu incl over worker incl, in %: below 100 the routine waited (I/O,\n"
    "            sleep, a lock, the CPU given to another thread).  Above 100:\n"
    "            sampling error, about 1/sqrt(n) of n samples (docs/resources.md)\n";
static const char path_incl_explain[] =
    "each sampled resource (CPROF_RESOURCES) while the context, or one under\n"
    "            it, was on top of its worker's stack: samples x period, times in ms\n";
static const char path_up_explain[] =
    "each sampled resource (CPROF_RESOURCES) while the routine, or one it\n"
    "            called, was on top of a worker's stack, through that path: samples\n"
    "            x period, times in ms\n";
static const char total_explain[] =
    "each measured resource (CPROF_RESOURCES): the worker's exact total, from\n"
    "            its own counter read when the profile was written; times in ms\n";
static const char cpu_elapsed_explain[] =
    "the worker's CPU time over the program's elapsed time: its\n"
    "            utilisation, in %\n";

cprof_rescols *cprof_rescols_new(const cprof_view *v, cprof_rescols_of of)
{
    const cprof_profile *p = v->p;
    if (!v->o->resources || !p->nresources)
        return NULL;
    cprof_rescols *c = cprof_xcalloc(1, sizeof *c);
    *c = (cprof_rescols){v, of, 0, cprof_xcalloc(p->nresources, sizeof *c->r),
                         cprof_xcalloc(p->nresources, sizeof *c->incl), NULL, 0, NULL};
    int64_t (*self)[2] = cprof_xcalloc(p->nroutines + 1, sizeof *self);
    int64_t *by_routine = NULL, *by_path = NULL;
    char *heads = NULL;     /* of the amounts' columns, for the explanation */
    bool any_cpu = false;
    for (size_t r = 0; r < p->nresources; r++) {
        const cprof_prof_resource *x = &p->resources[r];
        bool cpu = cprof_resource_is_cpu(x);
        if (of == CPROF_RESCOLS_WORKERS ? !x->available : !x->period)
            continue;
        c->r[c->n] = r;
        if (of == CPROF_RESCOLS_ROUTINES || of == CPROF_RESCOLS_PATHS) {
            by_routine = cprof_xcalloc(p->nroutines + 1, sizeof *by_routine);
            by_path = cprof_xcalloc(p->npaths + 1, sizeof *by_path);
            cprof_resource_sums(p, r, self, by_routine, by_path);
            c->incl[c->n] = of == CPROF_RESCOLS_ROUTINES ? by_routine : by_path;
            free(of == CPROF_RESCOLS_ROUTINES ? by_path : by_routine);
        } else if (of == CPROF_RESCOLS_PATHS_UP) {
            int64_t *own = c->incl[c->n] = cprof_xcalloc(p->npaths + 1, sizeof *own);
            for (size_t i = 0; i < p->npaths; i++)
                own[i] = own_samples(p, i, r);
        }
        c->n++;
        char *head = cprof_xasprintf(of == CPROF_RESCOLS_WORKERS ? "%s" : "%s incl", x->name);
        add_col(c, head, key_of(x, of == CPROF_RESCOLS_WORKERS ? "total" : "incl"));
        char *h = cprof_xasprintf("%s%s%s", heads ? heads : "", heads ? ", " : "", head);
        free(heads);
        heads = h;
        if (cpu && of == CPROF_RESCOLS_ROUTINES)
            add_col(c, cprof_xstrdup("cpu/wall"), cprof_xstrdup("pct_cpu_wall"));
        else if (cpu && of == CPROF_RESCOLS_WORKERS)
            add_col(c, cprof_xstrdup("cpu/elapsed"), cprof_xstrdup("pct_cpu_elapsed"));
        any_cpu |= cpu;
    }
    if (heads)
        add_explain(c, heads, of == CPROF_RESCOLS_ROUTINES ? routine_incl_explain
                              : of == CPROF_RESCOLS_PATHS ? path_incl_explain
                              : of == CPROF_RESCOLS_PATHS_UP ? path_up_explain : total_explain);
    if (any_cpu && of == CPROF_RESCOLS_ROUTINES)
        add_explain(c, "cpu/wall", cpu_wall_explain);
    else if (any_cpu && of == CPROF_RESCOLS_WORKERS)
        add_explain(c, "cpu/elapsed", cpu_elapsed_explain);
    free(heads);
    free(self);
    return c;
}

void cprof_rescols_free(cprof_rescols *c)
{
    if (!c)
        return;
    for (size_t k = 0; k < c->n; k++)
        free(c->incl[k]);
    for (size_t k = 0; k < c->ncols; k++) {
        free((char *)c->cols[k].head);
        free((char *)c->cols[k].key);
    }
    free(c->incl);
    free(c->r);
    free(c->cols);
    free(c->explain);
    free(c);
}

cprof_table *cprof_rescols_table(const cprof_rescols *c, const char *title, const char *explain,
                                 const cprof_column *cols, size_t ncols, size_t at)
{
    size_t n = ncols + (c ? c->ncols : 0);
    cprof_column *all = cprof_xcalloc(n + 1, sizeof *all);
    memcpy(all, cols, at * sizeof *all);
    if (c && c->ncols)      /* a counted resource alone has no columns (cols null) */
        memcpy(all + at, c->cols, c->ncols * sizeof *all);
    memcpy(all + n - (ncols - at), cols + at, (ncols - at) * sizeof *all);
    char *text = c && c->explain && explain ? cprof_xasprintf("%s%s", explain, c->explain) : NULL;
    cprof_table *t = cprof_table_new(title, text ? text : explain, all, n);
    free(text);
    free(all);
    return t;
}

void cprof_rescols_cells(const cprof_rescols *c, cprof_table *t, size_t i)
{
    if (!c)
        return;
    const cprof_profile *p = c->v->p;
    for (size_t k = 0; k < c->n; k++) {
        const cprof_prof_resource *x = &p->resources[c->r[k]];
        bool cpu = cprof_resource_is_cpu(x);
        if (c->of == CPROF_RESCOLS_WORKERS) {
            int64_t total = cprof_resource_total(p, i, c->r[k]);
            if (total < 0)
                cprof_cell_empty(t);
            else
                cprof_cell_resource(t, x, total);
            if (cpu)
                cprof_cell_cpu_share(t, total, p->elapsed_ns);
            continue;
        }
        /* Samples go to the context the top frame's calls are made in: a counted
         * routine, which has no frame, and a recursive call's context, folded, have none
         * of their own (their callers have them). */
        const cprof_prof_path *y = c->of == CPROF_RESCOLS_ROUTINES ? NULL : &p->paths[i];
        bool own = y ? y->folds_into == i && (!CPROF_IS_ROUTINE(y->routine) ||
                                              !p->routines[y->routine].counted)
                     : !p->routines[i].counted;
        int64_t amount = cprof_resource_amount(x, c->incl[k][i]);
        cprof_cell_resource(t, x, own ? amount : CPROF_UNMEASURED);
        if (cpu && c->of == CPROF_RESCOLS_ROUTINES)
            cprof_cell_cpu_share(t, own && c->v->r[i].timed ? amount : -1, c->v->r[i].inclusive);
    }
}
