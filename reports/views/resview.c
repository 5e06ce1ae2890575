/* resview.c: resources beyond time as tables of their own (--resources,
 * docs/resources.md): what was measured and each worker's exact totals, then the
 * samples charged to routines and to call paths (Hall and Goldberg's downward profile
 * of a resource).  The figures are rescols.c's, as in the columns --resources adds to
 * the flat profile, the call paths and the per-thread table.
 */
#include "report.h"
#include "../model/alloc.h"

#include <stdlib.h>
#include <string.h>

/* Samples of resource r in the whole run: every context's and those outside any. */
static int64_t all_samples(const cprof_profile *p, size_t r)
{
    int64_t n = 0;
    for (size_t i = 0; i < p->npaths; i++)
        n = cprof_add(n, cprof_add(p->paths[i].samples[2 * r], p->paths[i].samples[2 * r + 1]));
    for (size_t w = 0; w < p->nworkers; w++)
        for (int k = 0; k < 2; k++)
            n = cprof_add(n, p->res_outside[(w * p->nresources + r) * 2 + k]);
    return n;
}

/* Samples in contexts: the roots' subtrees (path_incl as cprof_resource_sums made it). */
static int64_t in_contexts(const cprof_profile *p, const int64_t *path_incl)
{
    int64_t n = 0;
    for (size_t i = 0; i < p->npaths; i++)
        if (p->paths[i].parent == CPROF_NO_PATH)
            n = cprof_add(n, path_incl[i]);
    return n;
}

static const char workers_explain[] =
    "Each resource's exact total on each worker, read from the worker's own counter\n"
    "(Linux perf_event) when the profile was written: nothing is estimated here, in the\n"
    "unit shown (a time in ms; in CSV, ns).  outside: samples taken while no profiled\n"
    "routine was open on the worker (a team thread waiting at a barrier or between tasks, code cprof did not\n"
    "compile).  %elapsed: for cpu, the worker's CPU time over the run's elapsed time,\n"
    "its utilisation.\n";

static void describe(cprof_table *t, const cprof_prof_resource *x)
{
    if (!x->available)
        cprof_table_note(t, "%s (%s): not measured: %s", x->name, x->event,
                         x->reason ? x->reason : "no reason given");
    else if (!x->period)
        cprof_table_note(t, "%s (%s): counted per worker, not sampled%s%s", x->name, x->event,
                         x->reason ? ": " : "", x->reason ? x->reason : "");
    else if (!strcmp(x->unit, "ns"))
        cprof_table_note(t, "%s (%s): a sample every %.3f ms of it%s%s", x->name, x->event,
                         (double)x->period / 1e6,
                         x->reason ? "; " : "", x->reason ? x->reason : "");
    else
        cprof_table_note(t, "%s (%s): a sample every %lld %s%s%s", x->name, x->event,
                         (long long)x->period, x->unit, x->reason ? "; " : "",
                         x->reason ? x->reason : "");
}

static cprof_table *section_workers(const cprof_view *v)
{
    static const cprof_column cols[] = {
        {"resource", "resource", true}, {"unit", "unit", true}, {"worker", "worker", false},
        {"tid", "tid", false}, {"total", "total", false}, {"outside", "samples_outside", false},
        {"%elapsed", "pct_elapsed", false},
    };
    const cprof_profile *p = v->p;
    cprof_table *t = cprof_table_new("Resources per worker", workers_explain, cols,
                                     sizeof cols / sizeof *cols);
    if (!p->nresources)
        cprof_table_note(t, "(no resource was measured: run the program with"
                            " CPROF_RESOURCES=cpu,faults, docs/resources.md)");
    for (size_t r = 0; r < p->nresources; r++) {
        const cprof_prof_resource *x = &p->resources[r];
        describe(t, x);
        if (!x->available)
            continue;
        if (r)
            cprof_table_rule(t);
        for (size_t w = 0; w < p->nworkers; w++) {
            int64_t total = cprof_resource_total(p, w, r);
            const int64_t *out = &p->res_outside[(w * p->nresources + r) * 2];
            cprof_table_row(t);
            cprof_cell_str(t, x->name);
            cprof_cell_resource_unit(t, x);
            cprof_cell_int(t, (int64_t)w);
            cprof_cell_int(t, p->workers[w].tid);
            if (total < 0)
                cprof_cell_str2(t, "(no counter)", "");
            else
                cprof_cell_resource(t, x, total);
            if (x->period)
                cprof_cell_int(t, cprof_add(out[0], out[1]));
            else
                cprof_cell_empty(t);
            if (cprof_resource_is_cpu(x))
                cprof_cell_cpu_share(t, total, p->elapsed_ns);
            else
                cprof_cell_empty(t);
        }
    }
    return t;
}

static const char routines_explain[] =
    "For each sampled resource, the routines it was charged to.  A sample is taken\n"
    "every period units of the resource on a worker and charged to the activation open\n"
    "on top of that worker's stack: s / c samples, entered sequentially or concurrently.\n"
    "self = its samples x period (a time in ms; in CSV, ns); incl = with the routines\n"
    "it called (each recursion once); %total: incl over all the resource's samples.  Sampled figures have a\n"
    "relative standard error of about 1/sqrt(samples): 100 samples, 10%; 10,000, 1%.\n"
    "cpu/wall: for cpu, incl over the routine's worker time (the flat profile's incl):\n"
    "below 100% it waited (I/O, sleep, a lock, the CPU given to another thread).  Above\n"
    "100%: sampling error (few samples).  cprof's own code at a call is charged as the\n"
    "times charge it: to the caller, outside the clock reads of the routine's entry and\n"
    "exit.\n";

/* Routine indexes by incl, heaviest first. */
static const int64_t *sort_by;

static int cmp_heavier(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return sort_by[a] != sort_by[b] ? (sort_by[a] < sort_by[b]) - (sort_by[a] > sort_by[b])
                                    : (a > b) - (a < b);
}

static size_t *heaviest_first(const int64_t *v, size_t n)
{
    size_t *order = cprof_xcalloc(n + 1, sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    sort_by = v;
    qsort(order, n, sizeof *order, cmp_heavier);
    return order;
}

/* What one sampled resource's rows are made from (cprof_resource_sums). */
struct sums {
    size_t r;
    int64_t (*self)[2], *incl, *path_incl;
    int64_t all;            /* every sample of the resource, outside ones too */
    size_t hidden;          /* rows below --threshold */
};

typedef void rows_fn(const cprof_view *v, cprof_table *t, struct sums *s);

/* A table of rows for each sampled resource, a rule between resources. */
static cprof_table *per_resource(const cprof_view *v, const char *title, const char *explain,
                                 const cprof_column *cols, size_t ncols, rows_fn *rows)
{
    const cprof_profile *p = v->p;
    cprof_table *t = cprof_table_new(title, explain, cols, ncols);
    struct sums s = {0, cprof_xcalloc(p->nroutines + 1, sizeof *s.self),
                     cprof_xcalloc(p->nroutines + 1, sizeof *s.incl),
                     cprof_xcalloc(p->npaths + 1, sizeof *s.path_incl), 0, 0};
    size_t shown = 0;
    for (s.r = 0; s.r < p->nresources; s.r++) {
        if (!p->resources[s.r].period)
            continue;
        cprof_resource_sums(p, s.r, s.self, s.incl, s.path_incl);
        s.all = all_samples(p, s.r);
        if (shown++)
            cprof_table_rule(t);
        rows(v, t, &s);
    }
    if (!shown)
        cprof_table_note(t, "(no resource was sampled: CPROF_RESOURCES=cpu,faults samples both)");
    if (s.hidden)
        cprof_table_note(t, "(%zu rows below %.2f%% hidden)", s.hidden, v->o->threshold);
    free(s.self);
    free(s.incl);
    free(s.path_incl);
    return t;
}

/* Whether a row of share pct is hidden by --threshold (and counted so). */
static bool below(const cprof_view *v, struct sums *s, double pct)
{
    if (!v->o->has_threshold || pct >= v->o->threshold)
        return false;
    s->hidden++;
    return true;
}

static void routine_rows(const cprof_view *v, cprof_table *t, struct sums *s)
{
    const cprof_profile *p = v->p;
    const cprof_prof_resource *x = &p->resources[s->r];
    size_t *order = heaviest_first(s->incl, p->nroutines);
    for (size_t k = 0; k < p->nroutines; k++) {
        size_t i = order[k];
        double pct = s->all ? 100.0 * (double)s->incl[i] / (double)s->all : 0;
        if (!s->incl[i] || !v->r[i].match || below(v, s, pct))
            continue;
        cprof_table_row(t);
        cprof_cell_str(t, x->name);
        cprof_cell_pct(t, pct);
        cprof_cell_int(t, s->self[i][0]);
        cprof_cell_int(t, s->self[i][1]);
        cprof_cell_resource(t, x, cprof_resource_amount(x, cprof_add(s->self[i][0], s->self[i][1])));
        cprof_cell_resource(t, x, cprof_resource_amount(x, s->incl[i]));
        if (cprof_resource_is_cpu(x))
            cprof_cell_cpu_share(t, cprof_resource_amount(x, s->incl[i]), v->r[i].inclusive);
        else
            cprof_cell_empty(t);
        cprof_cell_str2(t, v->r[i].label, p->routines[i].name);
        cprof_cell_str(t, p->routines[i].file);
    }
    free(order);
    cprof_table_note(t, "%s: %lld samples in all, %lld of them outside any profiled routine",
                     x->name, (long long)s->all, (long long)(s->all - in_contexts(p, s->path_incl)));
}

static cprof_table *section_routines(const cprof_view *v)
{
    static const cprof_column cols[] = {
        {"resource", "resource", true}, {"%total", "pct_total", false},
        {"s samples", "s_samples", false}, {"c samples", "c_samples", false},
        {"self", "self", false}, {"incl", "inclusive", false}, {"cpu/wall", "pct_cpu_wall", false},
        {"name", "name", true}, {NULL, "file", false},
    };
    return per_resource(v, "Resources per routine", routines_explain, cols,
                        sizeof cols / sizeof *cols, routine_rows);
}

static const char paths_explain[] =
    "For each sampled resource, Hall and Goldberg's downward call path profile: every\n"
    "calling context with its samples and those of the contexts under it, heaviest\n"
    "first; %total as above, s / c: the samples of the context itself, entered\n"
    "sequentially or concurrently.  Paths as in the call paths (--paths).\n";

static void path_rows(const cprof_view *v, cprof_table *t, struct sums *s)
{
    const cprof_profile *p = v->p;
    const cprof_prof_resource *x = &p->resources[s->r];
    size_t *order = heaviest_first(s->path_incl, p->npaths);
    for (size_t k = 0; k < p->npaths; k++) {
        size_t i = order[k];
        double pct = s->all ? 100.0 * (double)s->path_incl[i] / (double)s->all : 0;
        if (!s->path_incl[i] || below(v, s, pct))
            continue;
        char *label = cprof_path_label(v, i, " > ");
        cprof_table_row(t);
        cprof_cell_str(t, x->name);
        cprof_cell_pct(t, pct);
        cprof_cell_int(t, s->path_incl[i]);
        cprof_cell_resource(t, x, cprof_resource_amount(x, s->path_incl[i]));
        cprof_cell_int(t, p->paths[i].samples[2 * s->r]);
        cprof_cell_int(t, p->paths[i].samples[2 * s->r + 1]);
        cprof_cell_path_site(t, v, i);
        cprof_cell_str(t, label);
        free(label);
    }
    free(order);
    if (!p->npaths)
        cprof_table_note(t, "(no calling contexts: CPROF_PATHS=0, CPROF_MODE=count or counted"
                            " routines only; the samples of %s are all outside)", x->name);
}

static cprof_table *section_paths(const cprof_view *v)
{
    static const cprof_column cols[] = {
        {"resource", "resource", true}, {"%total", "pct_total", false},
        {"samples", "samples", false}, {"incl", "inclusive", false},
        {"s", "s_samples", false}, {"c", "c_samples", false}, {"site", "site", true},
        {"path", "path", true},
    };
    return per_resource(v, "Resources per call path", paths_explain, cols,
                        sizeof cols / sizeof *cols, path_rows);
}

typedef cprof_table *section_fn(const cprof_view *v);
static section_fn *const sections[] = {section_workers, section_routines, section_paths};
static const char *const names[] = {"resources", "resource-routines", "resource-paths"};

void cprof_sections_resources(const cprof_view *v, cprof_table ***t, const char *const **csv_names,
                              size_t *n)
{
    *csv_names = names;
    *n = sizeof sections / sizeof *sections;
    *t = cprof_xcalloc(*n, sizeof **t);
    for (size_t i = 0; i < *n; i++)
        (*t)[i] = sections[i](v);
}

int cprof_resources_section(const char *name)
{
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(name, names[i]))
            return (int)i;
    return -1;
}
