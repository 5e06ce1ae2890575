/* sizesview.c: --sizes (docs/input-size.md): each routine's input-sensitive tuples,
 * binned when there are many, and how its cost grows with the read memory size n: the
 * power law a*n^b fitted by least squares on log-log, with its R^2, and the best of
 * the models 1, n, n log n, n^2, n^3 by the residual of the same fit; the same per
 * calling context of a routine, where a general routine's growth depends on its caller. */
#include "report.h"

#include "../model/alloc.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many rows per routine in the text form: the sizes are binned into
 * groups of consecutive sizes, each the same number of them. */
#define BINS 16

static const char *const model_names[CPROF_SIZE_MODELS] = {"1", "n", "n log n", "n^2", "n^3"};

static double model(int m, double n)
{
    switch (m) {
    case 0: return 1;
    case 1: return n;
    case 2: return n * log(n);
    case 3: return n * n;
    default: return n * n * n;
    }
}

cprof_size_fit cprof_size_fit_of(const cprof_prof_size *t, size_t nt, int cost)
{
    cprof_size_fit f = {.model = -1};
    double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
    /* The points (log n, log mean cost), n >= 2 (n log n vanishes below). */
    for (size_t i = 0; i < nt; i++) {
        double y = (double)t[i].sum[cost] / (double)t[i].calls;
        if (t[i].n < 2 || y <= 0)
            continue;
        double lx = log((double)t[i].n), ly = log(y);
        f.points++;
        sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly, syy += ly * ly;
    }
    double k = (double)f.points, vx = sxx - sx * sx / k, vy = syy - sy * sy / k;
    if (f.points < 3 || vx <= 0)
        return f;
    f.b = (sxy - sx * sy / k) / vx;
    f.a = exp((sy - f.b * sx) / k);
    f.r2 = vy > 0 ? 1 - (vy - f.b * (sxy - sx * sy / k)) / vy : 1;
    /* Each model c*g(n): log c the mean of log y - log g, its residual the mean square
     * of what is left. */
    for (int m = 0; m < CPROF_SIZE_MODELS; m++) {
        double s = 0, ss = 0;
        for (size_t i = 0; i < nt; i++) {
            double y = (double)t[i].sum[cost] / (double)t[i].calls;
            if (t[i].n < 2 || y <= 0)
                continue;
            double d = log(y) - log(model(m, (double)t[i].n));
            s += d, ss += d * d;
        }
        double rss = (ss - s * s / k) / k;
        if (f.model < 0 || rss < f.residual) {
            f.model = m;
            f.residual = rss;
        }
    }
    return f;
}

/* The tuples of routine r: t[*from .. *to) of t[0..n) (sorted by routine). */
static void routine_span(const cprof_prof_size *t, size_t n, size_t r, size_t *from, size_t *to)
{
    size_t i = 0;
    while (i < n && t[i].routine < r)
        i++;
    *from = i;
    while (i < n && t[i].routine == r)
        i++;
    *to = i;
}

/* One calling context's tuples of a routine: p->path_sizes[from .. to), and its costs'
 * sums. */
struct context {
    size_t from, to;
    int64_t sum[2];
};

static int cmp_heavier(const void *x, const void *y)
{
    const struct context *a = x, *b = y;
    for (int c = 0; c < 2; c++)
        if (a->sum[c] != b->sum[c])
            return a->sum[c] < b->sum[c] ? 1 : -1;
    return (a->from > b->from) - (a->from < b->from);
}

/* Routine r's contexts, heaviest first (time, then accesses, then the context made
 * first); how many into *n, the array malloc'd. */
static struct context *contexts_of(const cprof_profile *p, size_t r, size_t *n)
{
    size_t from, to;
    routine_span(p->path_sizes, p->npath_sizes, r, &from, &to);
    struct context *c = cprof_xcalloc(to - from + 1, sizeof *c);
    *n = 0;
    for (size_t i = from; i < to; i++) {
        if (i == from || p->path_sizes[i].path != p->path_sizes[i - 1].path)
            c[(*n)++] = (struct context){.from = i};
        struct context *x = &c[*n - 1];
        x->to = i + 1;
        for (int k = 0; k < 2; k++)
            x->sum[k] = cprof_add(x->sum[k], p->path_sizes[i].sum[k]);
    }
    qsort(c, *n, sizeof *c, cmp_heavier);
    return c;
}

/* How context i is written: its path as --paths writes it. */
static char *context_label(const cprof_view *v, size_t i)
{
    return i == CPROF_NO_PATH ? cprof_xstrdup("(no calling context)")
                              : cprof_path_label(v, i, " > ");
}

static bool shown(const cprof_view *v, size_t r, const char *name)
{
    return !name || !strcmp(v->p->routines[r].name, name);
}

int cprof_sizes_check(const cprof_view *v, const char *name)
{
    for (size_t i = 0; i < v->p->nsizes; i++)
        if (shown(v, v->p->sizes[i].routine, name))
            return 0;
    return -1;
}

size_t cprof_sizes_contexts(const cprof_view *v, const char *name)
{
    const cprof_prof_size *t = v->p->path_sizes;
    size_t n = 0;
    for (size_t i = 0; i < v->p->npath_sizes; i++)
        n += shown(v, t[i].routine, name) &&
             (i == 0 || t[i].routine != t[i - 1].routine || t[i].path != t[i - 1].path);
    return n;
}

/* Tuples u[0..n) summed as the rest of a row: n's range, calls, each cost's mean, max,
 * min (and in CSV its sums). */
static void tuple_cells(cprof_table *t, const cprof_prof_size *u, size_t n, bool csv)
{
    cprof_prof_size s = u[0];
    for (size_t i = 1; i < n; i++) {
        s.calls += u[i].calls;
        for (int c = 0; c < 2; c++) {
            s.sum[c] += u[i].sum[c];
            s.sq[c] += u[i].sq[c];
            s.max[c] = s.max[c] > u[i].max[c] ? s.max[c] : u[i].max[c];
            s.min[c] = s.min[c] < u[i].min[c] ? s.min[c] : u[i].min[c];
        }
    }
    char range[64];
    if (n > 1)
        snprintf(range, sizeof range, "%lld-%lld", (long long)u[0].n, (long long)u[n - 1].n);
    else
        snprintf(range, sizeof range, "%lld", (long long)u[0].n);
    if (csv)
        cprof_cell_int(t, s.n);
    else
        cprof_cell_str(t, range);
    cprof_cell_int(t, s.calls);
    for (int c = 0; c < 2; c++) {
        if (c == 0)
            cprof_cell_per_call(t, s.sum[0], s.calls);
        else
            cprof_cell_real(t, (double)s.sum[1] / (double)s.calls);
        (c ? cprof_cell_int : cprof_cell_time)(t, s.max[c]);
        (c ? cprof_cell_int : cprof_cell_time)(t, s.min[c]);
        if (csv) {
            cprof_cell_int(t, s.sum[c]);
            cprof_cell_real(t, s.sq[c]);
        }
    }
}

cprof_table *cprof_section_sizes(const cprof_view *v, const char *name, bool csv, bool by_path)
{
    /* The text form has no sums: its rows skip those cells (tuple_cells, csv false). */
    static const cprof_column text_cols[] = {
        {"routine", NULL, true}, {"n (RMS)", NULL, false}, {"calls", NULL, false},
        {"us/call", NULL, false}, {"max ms", NULL, false}, {"min ms", NULL, false},
        {"acc/call", NULL, false}, {"max acc", NULL, false}, {"min acc", NULL, false},
    };
    /* --csv size-paths: a tuple's context, then as --csv sizes. */
    static const cprof_column csv_cols[] = {
        {NULL, "path_id", false}, {NULL, "path", false},
        {NULL, "routine", false}, {NULL, "rms", false}, {NULL, "calls", false},
        {NULL, "time_mean", false}, {NULL, "time_max", false}, {NULL, "time_min", false},
        {NULL, "time_sum", false}, {NULL, "time_sq", false},
        {NULL, "accesses_mean", false}, {NULL, "accesses_max", false},
        {NULL, "accesses_min", false}, {NULL, "accesses_sum", false},
        {NULL, "accesses_sq", false},
    };
    const cprof_profile *p = v->p;
    char explain[512];
    snprintf(explain, sizeof explain,
             "Per routine and read memory size n (distinct %lld-byte cells its activation and"
             " their descendants first accessed by a read), its activations' elapsed time and"
             " memory accesses executed: the mean, the largest, the smallest; consecutive sizes"
             " binned into %d rows at most (--csv sizes lists each size).",
             (long long)p->size_info.cell, BINS);
    size_t ncsv = sizeof csv_cols / sizeof *csv_cols;
    cprof_table *t = by_path ? cprof_table_new("Input sizes per calling context", NULL, csv_cols, ncsv)
                   : csv ? cprof_table_new("Input sizes", NULL, csv_cols + 2, ncsv - 2)
                         : cprof_table_new("Input sizes", explain, text_cols, sizeof text_cols / sizeof *text_cols);
    for (size_t r = 0; r < p->nroutines; r++) {
        if (!shown(v, r, name))
            continue;
        if (by_path) {
            size_t nc;
            struct context *c = contexts_of(p, r, &nc);
            for (size_t k = 0; k < nc; k++) {
                size_t path = p->path_sizes[c[k].from].path;
                char *label = context_label(v, path);
                for (size_t i = c[k].from; i < c[k].to; i++) {
                    cprof_table_row(t);
                    if (path == CPROF_NO_PATH)
                        cprof_cell_empty(t);
                    else
                        cprof_cell_int(t, (int64_t)path);
                    cprof_cell_str(t, label);
                    cprof_cell_str(t, v->r[r].label);
                    tuple_cells(t, &p->path_sizes[i], 1, true);
                }
                free(label);
            }
            free(c);
            continue;
        }
        size_t from, to;
        routine_span(p->sizes, p->nsizes, r, &from, &to);
        size_t n = to - from, per = csv ? 1 : (n + BINS - 1) / BINS;
        for (size_t i = from; i < to; i += per) {
            cprof_table_row(t);
            cprof_cell_str(t, v->r[r].label);
            tuple_cells(t, &p->sizes[i], i + per <= to ? per : to - i, csv);
        }
    }
    if (!csv && p->size_info.untracked)
        cprof_table_note(t, "%lld accesses were past the shadow memory's bound (%lld bytes):"
                         " not sized", (long long)p->size_info.untracked,
                         (long long)p->size_info.shadow_limit);
    if (!csv && p->size_info.slowdown_budget > 0)
        cprof_table_note(t, "sampled (CPROF_SIZES_SLOWDOWN=%g): %lld samples, activations sized"
                         " with all they called, took %.3f s; calls count sized activations only",
                         p->size_info.slowdown_budget, (long long)p->size_info.samples,
                         (double)p->size_info.sampled_ns / 1e9);
    if (!csv && p->size_info.saturated)
        cprof_table_note(t, "the stamps ran out (2^32 activations): later activations were"
                         " not sized");
    return t;
}

/* One cost's fit of tuples u[0..n) as 5 cells: a, b, R^2, best, residual; empty below 3
 * sizes. */
static void fit_cells(cprof_table *t, const cprof_prof_size *u, size_t n, int cost)
{
    cprof_size_fit f = cprof_size_fit_of(u, n, cost);
    if (f.model < 0) {
        for (int k = 0; k < 5; k++)
            cprof_cell_empty(t);
        return;
    }
    char a[32], b[32], r2[32], res[32];
    snprintf(a, sizeof a, "%.4g", f.a);
    snprintf(b, sizeof b, "%.3f", f.b);
    snprintf(r2, sizeof r2, "%.4f", f.r2);
    snprintf(res, sizeof res, "%.4g", f.residual);
    cprof_cell_str(t, a);
    cprof_cell_str(t, b);
    cprof_cell_str(t, r2);
    cprof_cell_str(t, model_names[f.model]);
    cprof_cell_str(t, res);
}

cprof_table *cprof_section_size_growth(const cprof_view *v, const char *name)
{
    static const cprof_column cols[] = {
        {"routine", "routine", true},
        {"cost", "cost", true},
        {"sizes", "sizes", false},
        {"a", "a", false},
        {"b", "b", false},
        {"R^2", "r2", false},
        {"best", "best", true},
        {"residual", "residual", false},
    };
    cprof_table *t = cprof_table_new(
        "Input size growth", "Per routine and cost, the power law a*n^b fitted to the mean"
        " cost of each size n >= 2 by least squares on log n, log cost, with its R^2; and the"
        " model c*g(n) among 1, n, n log n, n^2, n^3 that leaves the least mean square"
        " residual on the same scale.  No fit with fewer than 3 sizes.",
        cols, sizeof cols / sizeof *cols);
    const cprof_profile *p = v->p;
    static const char *const costs[] = {"time", "accesses"};
    for (size_t r = 0; r < p->nroutines; r++) {
        size_t from, to;
        routine_span(p->sizes, p->nsizes, r, &from, &to);
        if (from == to || !shown(v, r, name))
            continue;
        for (int c = 0; c < 2; c++) {
            cprof_table_row(t);
            cprof_cell_str(t, v->r[r].label);
            cprof_cell_str(t, costs[c]);
            cprof_cell_int(t, (int64_t)cprof_size_fit_of(&p->sizes[from], to - from, c).points);
            fit_cells(t, &p->sizes[from], to - from, c);
        }
    }
    return t;
}

cprof_table *cprof_section_size_path_growth(const cprof_view *v, const char *name)
{
    static const cprof_column cols[] = {
        {NULL, "routine", false}, {NULL, "path_id", false},
        {"sizes", "sizes", false}, {"calls", "calls", false},
        {"time a", "time_a", false}, {"b", "time_b", false}, {"R^2", "time_r2", false},
        {"best", "time_best", true}, {NULL, "time_residual", false},
        {"acc a", "accesses_a", false}, {"b", "accesses_b", false},
        {"R^2", "accesses_r2", false}, {"best", "accesses_best", true},
        {NULL, "accesses_residual", false},
        {"path", "path", true},
    };
    cprof_table *t = cprof_table_new(
        "Input size growth per calling context", "Per calling context of the routine (its"
        " path as --paths writes it, a recursion's in the context it folds into), heaviest"
        " first: the distinct read memory sizes of its activations there, their calls, and"
        " the fit of each cost (time, memory accesses) as in the table above, over that"
        " context's tuples alone.  No fit with fewer than 3 sizes.",
        cols, sizeof cols / sizeof *cols);
    const cprof_profile *p = v->p;
    for (size_t r = 0; r < p->nroutines; r++) {
        if (!shown(v, r, name))
            continue;
        size_t nc;
        struct context *c = contexts_of(p, r, &nc);
        for (size_t k = 0; k < nc; k++) {
            const cprof_prof_size *u = &p->path_sizes[c[k].from];
            size_t n = c[k].to - c[k].from;
            int64_t calls = 0;
            for (size_t i = 0; i < n; i++)
                calls = cprof_add(calls, u[i].calls);
            cprof_table_row(t);
            cprof_cell_str(t, v->r[r].label);
            if (u->path == CPROF_NO_PATH)
                cprof_cell_empty(t);
            else
                cprof_cell_int(t, (int64_t)u->path);
            cprof_cell_int(t, (int64_t)n);
            cprof_cell_int(t, calls);
            for (int cost = 0; cost < 2; cost++)
                fit_cells(t, u, n, cost);
            char *label = context_label(v, u->path);
            cprof_cell_str(t, label);
            free(label);
        }
        free(c);
    }
    return t;
}

/* One cost's fit as JSON: null below 3 sizes. */
static json_t *fit_json(const cprof_prof_size *t, size_t nt, int cost)
{
    cprof_size_fit f = cprof_size_fit_of(t, nt, cost);
    if (f.model < 0)
        return json_null();
    return json_pack("{s:I, s:f, s:f, s:f, s:s, s:f}", "sizes", (json_int_t)f.points, "a", f.a,
                     "b", f.b, "r2", f.r2, "best", model_names[f.model], "residual", f.residual);
}

/* Tuples u[0..n) and their fits as the keys "tuples" and "fit" of object o (consumed);
 * NULL if out of memory. */
static json_t *with_tuples(json_t *o, const cprof_prof_size *u, size_t n)
{
    json_t *tuples = json_array();
    for (size_t i = 0; tuples && i < n; i++) {
        json_t *row = json_pack("[I, I, I, I, I, f, I, I, I, f]", (json_int_t)u[i].n,
                                (json_int_t)u[i].calls, (json_int_t)u[i].max[0],
                                (json_int_t)u[i].min[0], (json_int_t)u[i].sum[0], u[i].sq[0],
                                (json_int_t)u[i].max[1], (json_int_t)u[i].min[1],
                                (json_int_t)u[i].sum[1], u[i].sq[1]);
        if (!row || json_array_append_new(tuples, row)) {
            json_decref(tuples);
            tuples = NULL;
        }
    }
    json_t *fit = json_pack("{s:o, s:o}", "time", fit_json(u, n, 0), "accesses", fit_json(u, n, 1));
    if (!o || !tuples || !fit || json_object_set_new(o, "tuples", tuples) ||
        json_object_set_new(o, "fit", fit)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Routine r's calling contexts, heaviest first: {"path", "tuples", "fit"} each. */
static json_t *contexts_json(const cprof_profile *p, size_t r)
{
    size_t nc;
    struct context *c = contexts_of(p, r, &nc);
    json_t *all = json_array();
    for (size_t k = 0; all && k < nc; k++) {
        size_t path = p->path_sizes[c[k].from].path;
        json_t *one = with_tuples(json_pack("{s:o}", "path", path == CPROF_NO_PATH ? json_null()
                                                              : json_integer((json_int_t)path)),
                                  &p->path_sizes[c[k].from], c[k].to - c[k].from);
        if (!one || json_array_append_new(all, one)) {
            json_decref(all);
            all = NULL;
        }
    }
    free(c);
    return all;
}

json_t *cprof_sizes_json(const cprof_profile *p)
{
    const cprof_prof_sizes_info *in = &p->size_info;
    json_t *routines = json_array();
    for (size_t r = 0; routines && r < p->nroutines; r++) {
        size_t from, to;
        routine_span(p->sizes, p->nsizes, r, &from, &to);
        if (from == to)
            continue;
        json_t *one = with_tuples(json_pack("{s:s, s:s}", "name", p->routines[r].name,
                                            "file", p->routines[r].file),
                                  &p->sizes[from], to - from);
        json_t *contexts = contexts_json(p, r);
        if (!one || !contexts)
            json_decref(one ? one : contexts);
        if (!one || !contexts || json_object_set_new(one, "contexts", contexts) ||
            json_array_append_new(routines, one)) {
            json_decref(routines);
            routines = NULL;
        }
    }
    return json_pack("{s:I, s:I, s:I, s:I, s:b, s:f, s:I, s:I, s:o*}", "cell_bytes",
                     (json_int_t)in->cell, "shadow_bytes", (json_int_t)in->shadow_bytes,
                     "shadow_limit_bytes", (json_int_t)in->shadow_limit, "untracked_accesses",
                     (json_int_t)in->untracked, "saturated", in->saturated, "slowdown_budget",
                     in->slowdown_budget, "samples", (json_int_t)in->samples, "sampled_ns",
                     (json_int_t)in->sampled_ns, "routines", routines);
}
