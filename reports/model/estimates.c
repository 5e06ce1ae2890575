/* estimates.c: sampled timing (docs/semantics.md, "Sampled timing"): the header's
 * "timing" and each worker's "sampled" rows of a file, read and checked; each row's
 * error; the rows of one callee, caller, context and case summed over workers and files
 * (their squared errors added: the samples are independent). */
#include "raw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

static int cmp_estimate(const void *x, const void *y)
{
    const cprof_prof_estimate *a = x, *b = y;
    int c = CMP(a->routine, b->routine);
    c = c ? c : CMP(a->caller, b->caller);
    c = c ? c : CMP(a->path, b->path);
    return c ? c : CMP(a->kase, b->kase);
}

/* Sorts e[0..n) and adds up the rows of one key; the count left. */
static int fold(struct loader *l, cprof_prof_estimate *e, size_t *n)
{
    if (*n > 1)   /* e is NULL without rows */
        qsort(e, *n, sizeof *e, cmp_estimate);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        cprof_prof_estimate *u = &e[k - (k > 0)];
        if (k > 0 && !cmp_estimate(u, &e[i])) {
            if (__builtin_add_overflow(u->calls, e[i].calls, &u->calls) ||
                __builtin_add_overflow(u->timed, e[i].timed, &u->timed))
                return cprof_fail(l, "a sum of the sampled rows' calls overflows 64 bits");
            u->var += e[i].var;
        } else
            e[k++] = e[i];
    }
    *n = k;
    return 0;
}

/* The squared error of calls x mean, the mean of timed of them (their times summing to
 * sum, their squares to sq): calls^2 s^2 / timed (1 - timed / calls), s^2 the sample
 * variance; NAN if one activation of several was timed (no spread to go by). */
static double row_var(int64_t calls, int64_t timed, double sum, double sq)
{
    if (timed == calls)
        return 0;
    if (timed < 2)
        return NAN;
    double n = (double)timed, s2 = (sq - sum * sum / n) / (n - 1);
    if (s2 < 0)    /* rounding, where every timed activation took the same time */
        s2 = 0;
    double c = (double)calls;
    return c * c * s2 / n * (1 - n / c);
}

/* Row i of worker w's "sampled": CPROF_SAMPLED_NCOLUMNS numbers, integers but the sum of
 * squares, none negative; a callee and site the file declares, a case, 1 <= timed <=
 * calls, and a context of the worker's (ctx) that reached the callee.  Gives its
 * estimate, its untimed calls and its site. */
static int get_row(struct loader *l, const cprof_profile *p, const struct raw_file *rf,
                   const size_t *ctx, json_t *row, size_t w, size_t id, size_t i,
                   cprof_prof_estimate *out, int64_t *untimed, int64_t *site)
{
    int64_t v[CPROF_SAMPLED_NCOLUMNS];
    double sq = 0;
    if (!json_is_array(row) || json_array_size(row) != CPROF_SAMPLED_NCOLUMNS)
        return cprof_fail(l, "invalid profile: workers[%zu].sampled[%zu] is not an array of %d"
                          " numbers", w, i, CPROF_SAMPLED_NCOLUMNS);
    for (int c = 0; c < CPROF_SAMPLED_NCOLUMNS; c++) {
        json_t *x = json_array_get(row, (size_t)c);
        bool real = c == CPROF_S_TIMED_SQ;
        if (real ? !json_is_number(x) : !json_is_integer(x))
            return cprof_fail(l, "invalid profile: workers[%zu].sampled[%zu]: \"%s\" is not %s",
                              w, i, cprof_sampled_columns[c].name, real ? "a number" : "an integer");
        v[c] = real ? 0 : json_integer_value(x);
        sq = real ? json_number_value(x) : sq;
        if (v[c] < 0 || sq < 0 || !isfinite(sq))
            return cprof_fail(l, "invalid profile: workers[%zu].sampled[%zu]: \"%s\" is negative"
                              " or not finite", w, i, cprof_sampled_columns[c].name);
    }
    if ((uint64_t)v[CPROF_S_CALLEE] >= rf->nroutines || (uint64_t)v[CPROF_S_SITE] >= rf->nsites)
        return cprof_fail(l, "invalid profile: workers[%zu].sampled[%zu]: callee %lld or site %lld"
                          " out of range (%zu routines, %zu sites)", w, i,
                          (long long)v[CPROF_S_CALLEE], (long long)v[CPROF_S_SITE], rf->nroutines,
                          rf->nsites);
    /* The sample is of the calls not kept exact (activations timed that were long). */
    int64_t sampled = v[CPROF_S_CALLS] - v[CPROF_S_EXACT];
    if (v[CPROF_S_CASE] >= CPROF_COLUMN_CASES || v[CPROF_S_TIMED] < 1 ||
        v[CPROF_S_TIMED] > sampled)
        return cprof_fail(l, "invalid profile: workers[%zu].sampled[%zu]: case %lld is not 0 to 3,"
                          " or timed %lld is not 1 to calls %lld less exact %lld", w, i,
                          (long long)v[CPROF_S_CASE], (long long)v[CPROF_S_TIMED],
                          (long long)v[CPROF_S_CALLS], (long long)v[CPROF_S_EXACT]);
    size_t routine = rf->routines[v[CPROF_S_CALLEE]].global, path = CPROF_NO_PATH;
    if ((uint64_t)v[CPROF_S_PATH] > rf->workers[id].npath_rows)
        return cprof_fail(l, "invalid profile: workers[%zu].sampled[%zu]: path %lld out of range"
                          " (%zu paths)", w, i, (long long)v[CPROF_S_PATH],
                          rf->workers[id].npath_rows);
    if (v[CPROF_S_PATH]) {
        path = ctx[v[CPROF_S_PATH] - 1];
        if (p->paths[path].routine != routine && p->paths[path].routine != CPROF_OTHER_ROUTINE)
            return cprof_fail(l, "invalid profile: workers[%zu].sampled[%zu]: path %lld does not"
                              " reach its callee", w, i, (long long)v[CPROF_S_PATH]);
    }
    *out = (cprof_prof_estimate){
        routine, rf->routines[rf->sites[v[CPROF_S_SITE]].caller].global, path,
        (int)v[CPROF_S_CASE], v[CPROF_S_CALLS], v[CPROF_S_TIMED],
        row_var(sampled, v[CPROF_S_TIMED], (double)v[CPROF_S_TIMED_TIME], sq)};
    *untimed = sampled - v[CPROF_S_TIMED];
    *site = v[CPROF_S_SITE];
    return 0;
}

/* The header's "timing": {mode, period, min_activations, short_ns, call_cost_ns,
 * inner_ns, untimed_ns, correction_ns, site_untimed_ns, site_correction_ns}: the rule's
 * figures (the corrections, and the costs they derive from, are in the rows' times
 * already). */
static int get_timing(struct loader *l, json_t *h, cprof_prof_timing *t, bool *sampled,
                      double *untimed_ns, double *site_ns)
{
    const char *mode;
    double cost, short_ns, correction = 0, inner = 0, site_correction = 0;
    *untimed_ns = *site_ns = 0;
    int64_t period, min_act;
    const struct field f[] = {
        {"mode", JSON_STRING, &mode, 0},
        {"period", JSON_INTEGER, &period, 1},
        {"min_activations", JSON_INTEGER, &min_act, 0},
        {"short_ns", JSON_REAL, &short_ns, 0},
        {"call_cost_ns", JSON_REAL, &cost, 0},
        {"inner_ns", JSON_REAL | OPTIONAL, &inner, 0},
        {"untimed_ns", JSON_REAL | OPTIONAL, untimed_ns, 0},
        {"correction_ns", JSON_REAL | OPTIONAL, &correction, 0},
        {"site_untimed_ns", JSON_REAL | OPTIONAL, site_ns, 0},
        {"site_correction_ns", JSON_REAL | OPTIONAL, &site_correction, 0},
    };
    if (cprof_get_fields(l, h, f, NELEM(f), "\"" CPROF_SECTION_TIMING "\""))
        return -1;
    *sampled = !strcmp(mode, "sampled");
    if (!*sampled && strcmp(mode, "every"))
        return cprof_fail(l, "invalid profile: \"%s\": mode \"%s\" is neither \"sampled\" nor"
                          " \"every\"", CPROF_SECTION_TIMING, mode);
    if (*sampled)
        *t = (cprof_prof_timing){1, period, min_act, short_ns, cost, false, !(*untimed_ns > 0)};
    return 0;
}

int cprof_estimates_of_file(struct loader *l, cprof_profile *p, const struct raw_file *rf,
                            size_t *const *ctx)
{
    json_t *h = json_object_get(rf->root, CPROF_SECTION_TIMING);
    bool sampled = false;
    double untimed_ns = 0, site_ns = 0;
    if (h && get_timing(l, h, &p->timing, &sampled, &untimed_ns, &site_ns))
        return -1;
    json_t *workers = json_object_get(rf->root, "workers");
    size_t n = 0, cap = 0;
    for (size_t w = 0; w < json_array_size(workers); w++) {
        json_t *wo = json_array_get(workers, w), *rows = json_object_get(wo, "sampled");
        size_t id = (size_t)json_integer_value(json_object_get(wo, "id"));
        if (json_array_size(rows) && !sampled)
            return cprof_fail(l, "invalid profile: workers[%zu] has \"sampled\" rows, but"
                              " \"%s\" is not {\"mode\": \"sampled\"...}", w, CPROF_SECTION_TIMING);
        for (size_t i = 0; i < json_array_size(rows); i++) {
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                p->estimates = cprof_xrealloc(p->estimates, cap * sizeof *p->estimates);
            }
            int64_t untimed = 0, site = 0;
            cprof_prof_estimate *e = &p->estimates[n++];
            if (get_row(l, p, rf, ctx[id], json_array_get(rows, i), w, id, i, e, &untimed, &site))
                return -1;
            /* The overhead estimate (merge.c) counted every call at a timed call's
             * cost: an untimed one cost what the runtime measured for it, at its site
             * where the site counted it. */
            double cost = rf->sites[site].untimed_at_site && site_ns > 0 ? site_ns : untimed_ns;
            if (cost > 0 && cost < rf->call_cost_ns) {
                double less = (rf->call_cost_ns - cost) * (double)untimed;
                p->routines[e->routine].overhead_ns -= less;
                p->overhead_ns -= less;
            }
        }
    }
    p->nestimates = n;
    return fold(l, p->estimates, &p->nestimates);
}

int cprof_estimates_sum(struct loader *l, cprof_profile *out, const cprof_profile *a,
                        const cprof_profile *b, const struct sum_map *amap,
                        const struct sum_map *bmap)
{
    const cprof_prof_timing *x = &a->timing, *y = &b->timing;
    out->timing = x->sampled_files ? *x : *y;
    out->timing.sampled_files = x->sampled_files + y->sampled_files;
    out->timing.uncorrected_files = x->uncorrected_files + y->uncorrected_files;
    out->timing.periods_differ = x->periods_differ || y->periods_differ ||
                                 (x->sampled_files && y->sampled_files && x->period != y->period);
    out->nestimates = a->nestimates + b->nestimates;
    out->estimates = cprof_xcalloc(out->nestimates + 1, sizeof *out->estimates);
    for (size_t i = 0; i < out->nestimates; i++) {
        bool in_a = i < a->nestimates;
        const cprof_prof_estimate *u = in_a ? &a->estimates[i] : &b->estimates[i - a->nestimates];
        const struct sum_map *m = in_a ? amap : bmap;
        cprof_prof_estimate *e = &out->estimates[i];
        *e = *u;
        e->routine = m->routine[u->routine];
        e->caller = m->routine[u->caller];
        e->path = u->path == CPROF_NO_PATH ? CPROF_NO_PATH : m->path[u->path];
    }
    return fold(l, out->estimates, &out->nestimates);
}

double cprof_error_ns(cprof_error e)
{
    return sqrt(e.var);
}

cprof_error cprof_error_add(cprof_error a, cprof_error b)
{
    return (cprof_error){a.estimated || b.estimated, a.var + b.var};
}

/* A context's calls' time holds its estimates; its self time, computed from it less its
 * children's (the context their calls hang from: a recursion's folds), theirs too. */
void cprof_estimates_paths(cprof_profile *p)
{
    for (size_t i = 0; i < p->nestimates; i++) {
        const cprof_prof_estimate *e = &p->estimates[i];
        if (e->path == CPROF_NO_PATH)
            continue;
        cprof_error x = {true, e->var};
        cprof_prof_path *c = &p->paths[e->path];
        c->time_err = cprof_error_add(c->time_err, x);
        c->self_err = cprof_error_add(c->self_err, x);
        if (c->parent != CPROF_NO_PATH) {
            cprof_prof_path *up = &p->paths[p->paths[c->parent].folds_into];
            up->self_err = cprof_error_add(up->self_err, x);
        }
    }
}

void cprof_estimates_free(cprof_profile *p)
{
    free(p->estimates);
    p->estimates = NULL;
    p->nestimates = 0;
}
