/* sizesview.c: --sizes (docs/input-size.md): each routine's input-sensitive tuples,
 * binned when there are many, and how its cost grows with the read memory size n: the
 * power law a*n^b fitted by least squares on log-log, with its R^2, and the best of
 * the models 1, n, n log n, n^2, n^3 by the residual of the same fit. */
#include "report.h"

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

/* The tuples of routine r: t[*from .. *to) of the profile's (sorted by routine). */
static void routine_span(const cprof_profile *p, size_t r, size_t *from, size_t *to)
{
    size_t i = 0;
    while (i < p->nsizes && p->sizes[i].routine < r)
        i++;
    *from = i;
    while (i < p->nsizes && p->sizes[i].routine == r)
        i++;
    *to = i;
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

/* Tuples u[0..n) summed as one row: n's range, calls, each cost's mean, max, min. */
static void tuple_row(cprof_table *t, const char *label, const cprof_prof_size *u, size_t n,
                      bool csv)
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
    cprof_table_row(t);
    cprof_cell_str(t, label);
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

cprof_table *cprof_section_sizes(const cprof_view *v, const char *name, bool csv)
{
    /* The text form has no sums: its rows skip those cells (tuple_row, csv false). */
    static const cprof_column text_cols[] = {
        {"routine", NULL, true}, {"n (RMS)", NULL, false}, {"calls", NULL, false},
        {"us/call", NULL, false}, {"max ms", NULL, false}, {"min ms", NULL, false},
        {"acc/call", NULL, false}, {"max acc", NULL, false}, {"min acc", NULL, false},
    };
    static const cprof_column csv_cols[] = {
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
    cprof_table *t = csv ? cprof_table_new("Input sizes", NULL, csv_cols, sizeof csv_cols / sizeof *csv_cols)
                         : cprof_table_new("Input sizes", explain, text_cols, sizeof text_cols / sizeof *text_cols);
    for (size_t r = 0; r < p->nroutines; r++) {
        size_t from, to;
        routine_span(p, r, &from, &to);
        if (from == to || !shown(v, r, name))
            continue;
        size_t n = to - from, per = csv ? 1 : (n + BINS - 1) / BINS;
        for (size_t i = from; i < to; i += per)
            tuple_row(t, v->r[r].label, &p->sizes[i], i + per <= to ? per : to - i, csv);
    }
    if (!csv && p->size_info.untracked)
        cprof_table_note(t, "%lld accesses were past the shadow memory's bound (%lld bytes):"
                         " not sized", (long long)p->size_info.untracked,
                         (long long)p->size_info.shadow_limit);
    if (!csv && p->size_info.saturated)
        cprof_table_note(t, "the stamps ran out (2^32 activations): later activations were"
                         " not sized");
    return t;
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
        routine_span(p, r, &from, &to);
        if (from == to || !shown(v, r, name))
            continue;
        for (int c = 0; c < 2; c++) {
            cprof_size_fit f = cprof_size_fit_of(&p->sizes[from], to - from, c);
            cprof_table_row(t);
            cprof_cell_str(t, v->r[r].label);
            cprof_cell_str(t, costs[c]);
            cprof_cell_int(t, (int64_t)f.points);
            if (f.model < 0) {
                for (int k = 0; k < 5; k++)
                    cprof_cell_empty(t);
                continue;
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

json_t *cprof_sizes_json(const cprof_profile *p)
{
    const cprof_prof_sizes_info *in = &p->size_info;
    json_t *routines = json_array();
    for (size_t r = 0; routines && r < p->nroutines; r++) {
        size_t from, to;
        routine_span(p, r, &from, &to);
        if (from == to)
            continue;
        json_t *tuples = json_array();
        for (size_t i = from; tuples && i < to; i++) {
            const cprof_prof_size *u = &p->sizes[i];
            json_t *row = json_pack("[I, I, I, I, I, f, I, I, I, f]", (json_int_t)u->n,
                                    (json_int_t)u->calls, (json_int_t)u->max[0],
                                    (json_int_t)u->min[0], (json_int_t)u->sum[0], u->sq[0],
                                    (json_int_t)u->max[1], (json_int_t)u->min[1],
                                    (json_int_t)u->sum[1], u->sq[1]);
            if (!row || json_array_append_new(tuples, row)) {
                json_decref(tuples);
                tuples = NULL;
            }
        }
        json_t *one = json_pack("{s:s, s:s, s:o*, s:{s:o, s:o}}", "name", p->routines[r].name,
                                "file", p->routines[r].file, "tuples", tuples, "fit",
                                "time", fit_json(&p->sizes[from], to - from, 0), "accesses",
                                fit_json(&p->sizes[from], to - from, 1));
        if (!one || !tuples || json_array_append_new(routines, one)) {
            json_decref(routines);
            routines = NULL;
        }
    }
    return json_pack("{s:I, s:I, s:I, s:I, s:b, s:o*}", "cell_bytes", (json_int_t)in->cell,
                     "shadow_bytes", (json_int_t)in->shadow_bytes, "shadow_limit_bytes",
                     (json_int_t)in->shadow_limit, "untracked_accesses", (json_int_t)in->untracked,
                     "saturated", in->saturated, "routines", routines);
}
