/* sizes.c: the input-sensitive profiles of the merged profile (profile.h,
 * docs/input-size.md): each worker's tuples of a file, keyed by routine, calling
 * context and read memory size, summed per routine, context and size over workers and
 * files (the context one of the merged profile's, paths.c), and per routine and size
 * over the contexts too. */
#include "raw.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"

static int cmp_size(const void *x, const void *y)
{
    const cprof_prof_size *a = x, *b = y;
    int c = CMP(a->routine, b->routine);
    c = c ? c : CMP(a->path, b->path);
    return c ? c : CMP(a->n, b->n);
}

static bool add_to(int64_t *a, int64_t b)
{
    return !__builtin_add_overflow(*a, b, a);
}

/* Sorts t[0..n) and adds up the tuples of one routine, context and size; the count
 * left. */
static int fold(struct loader *l, cprof_prof_size *t, size_t *n)
{
    qsort(t, *n, sizeof *t, cmp_size);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        cprof_prof_size *u = &t[k - (k > 0)];
        if (k > 0 && !cmp_size(u, &t[i])) {
            bool ok = add_to(&u->calls, t[i].calls);
            for (int c = 0; c < 2; c++) {
                ok = ok && add_to(&u->sum[c], t[i].sum[c]);
                u->max[c] = u->max[c] > t[i].max[c] ? u->max[c] : t[i].max[c];
                u->min[c] = u->min[c] < t[i].min[c] ? u->min[c] : t[i].min[c];
                u->sq[c] += t[i].sq[c];
            }
            if (!ok)
                return cprof_fail(l, "a sum of the input sizes' costs overflows 64 bits");
        } else
            t[k++] = t[i];
    }
    *n = k;
    return 0;
}

/* Row i of a worker's "input_sizes": CPROF_SIZE_NCOLUMNS numbers, integers but the sums of
 * squares, none negative, a routine the file declares and a context of the worker's
 * (ctx: its paths rows' contexts in p) that reached that routine. */
static int get_row(struct loader *l, const cprof_profile *p, const struct raw_file *rf,
                   const size_t *ctx, json_t *row, size_t w, size_t i, cprof_prof_size *out)
{
    int64_t v[CPROF_SIZE_NCOLUMNS];
    double sq[CPROF_SIZE_NCOLUMNS];
    if (!json_is_array(row) || json_array_size(row) != CPROF_SIZE_NCOLUMNS)
        return cprof_fail(l, "invalid profile: workers[%zu].sizes[%zu] is not an array of %d"
                          " numbers", w, i, CPROF_SIZE_NCOLUMNS);
    for (int c = 0; c < CPROF_SIZE_NCOLUMNS; c++) {
        json_t *x = json_array_get(row, (size_t)c);
        bool real = c == CPROF_Z_TIME_SQ || c == CPROF_Z_ACC_SQ;
        if (real ? !json_is_number(x) : !json_is_integer(x))
            return cprof_fail(l, "invalid profile: workers[%zu].sizes[%zu]: \"%s\" is not %s", w,
                              i, cprof_size_columns[c], real ? "a number" : "an integer");
        sq[c] = json_number_value(x);
        v[c] = real ? 0 : json_integer_value(x);
        if (sq[c] < 0)
            return cprof_fail(l, "invalid profile: workers[%zu].sizes[%zu]: \"%s\" is negative",
                              w, i, cprof_size_columns[c]);
    }
    if ((uint64_t)v[CPROF_Z_ROUTINE] >= rf->nroutines)
        return cprof_fail(l, "invalid profile: workers[%zu].sizes[%zu]: routine index %lld out of"
                          " range (%zu routines)", w, i, (long long)v[CPROF_Z_ROUTINE],
                          rf->nroutines);
    if (!v[CPROF_Z_CALLS] || v[CPROF_Z_TIME_MIN] > v[CPROF_Z_TIME_MAX] ||
        v[CPROF_Z_ACC_MIN] > v[CPROF_Z_ACC_MAX])
        return cprof_fail(l, "invalid profile: workers[%zu].sizes[%zu]: no calls, or a minimum"
                          " above its maximum", w, i);
    size_t routine = rf->routines[v[CPROF_Z_ROUTINE]].global, path = CPROF_NO_PATH;
    if ((uint64_t)v[CPROF_Z_PATH] > rf->workers[w].npath_rows)
        return cprof_fail(l, "invalid profile: workers[%zu].sizes[%zu]: path %lld out of range"
                          " (%zu paths)", w, i, (long long)v[CPROF_Z_PATH],
                          rf->workers[w].npath_rows);
    if (v[CPROF_Z_PATH]) {
        path = ctx[v[CPROF_Z_PATH] - 1];
        /* <other>: past CPROF_PATHS_MAX, the calls of every routine. */
        if (p->paths[path].routine != routine && p->paths[path].routine != CPROF_OTHER_ROUTINE)
            return cprof_fail(l, "invalid profile: workers[%zu].sizes[%zu]: path %lld does not"
                              " reach its routine", w, i, (long long)v[CPROF_Z_PATH]);
    }
    *out = (cprof_prof_size){
        routine, path, v[CPROF_Z_RMS], v[CPROF_Z_CALLS],
        {v[CPROF_Z_TIME_MAX], v[CPROF_Z_ACC_MAX]}, {v[CPROF_Z_TIME_MIN], v[CPROF_Z_ACC_MIN]},
        {v[CPROF_Z_TIME_SUM], v[CPROF_Z_ACC_SUM]}, {sq[CPROF_Z_TIME_SQ], sq[CPROF_Z_ACC_SQ]}};
    return 0;
}

/* The header's "input_sizes": {cell_bytes, shadow_bytes, shadow_limit_bytes, tuple_bytes,
 * untracked_accesses, columns, saturated}, its columns this cprof-report's; a sampled
 * run's slowdown_budget, samples and sampled_ns (absent before sampling: every
 * activation sized). */
static int get_info(struct loader *l, json_t *h, cprof_prof_sizes_info *info)
{
    json_t *cols = json_object_get(h, "columns"), *sat = json_object_get(h, "saturated");
    const char *keys[] = {"cell_bytes", "shadow_bytes", "shadow_limit_bytes", "untracked_accesses"};
    int64_t *out[] = {&info->cell, &info->shadow_bytes, &info->shadow_limit, &info->untracked};
    for (size_t k = 0; k < NELEM(keys); k++) {
        json_t *x = json_object_get(h, keys[k]);
        if (!json_is_integer(x) || json_integer_value(x) < (k == 0))
            return cprof_fail(l, "invalid profile: sizes: \"%s\" is not an integer >= %d",
                              keys[k], k == 0);
        *out[k] = json_integer_value(x);
    }
    bool same = json_is_array(cols) && json_array_size(cols) == CPROF_SIZE_NCOLUMNS;
    for (int c = 0; same && c < CPROF_SIZE_NCOLUMNS; c++) {
        json_t *name = json_array_get(cols, (size_t)c);
        same = json_is_string(name) && !strcmp(json_string_value(name), cprof_size_columns[c]);
    }
    if (!same || !json_is_boolean(sat))
        return cprof_fail(l, "invalid profile: sizes: \"columns\" are not this cprof-report's,"
                          " or \"saturated\" is not true or false");
    info->saturated = json_is_true(sat);
    json_t *budget = json_object_get(h, "slowdown_budget");
    if (budget && (!json_is_number(budget) || json_number_value(budget) < 0))
        return cprof_fail(l, "invalid profile: sizes: \"slowdown_budget\" is not a number >= 0");
    info->slowdown_budget = budget ? json_number_value(budget) : 0;
    const char *counts[] = {"samples", "sampled_ns"};
    int64_t *into[] = {&info->samples, &info->sampled_ns};
    for (size_t k = 0; k < NELEM(counts); k++) {
        json_t *x = json_object_get(h, counts[k]);
        if (x && (!json_is_integer(x) || json_integer_value(x) < 0))
            return cprof_fail(l, "invalid profile: sizes: \"%s\" is not an integer >= 0", counts[k]);
        *into[k] = x ? json_integer_value(x) : 0;
    }
    return 0;
}

int cprof_sizes_of_file(struct loader *l, cprof_profile *p, const struct raw_file *rf,
                        size_t *const *ctx)
{
    json_t *h = json_object_get(rf->root, CPROF_SECTION_SIZES);
    if (!h)
        return 0;
    if (!json_is_object(h) || get_info(l, h, &p->size_info))
        return h && json_is_object(h) ? -1 : cprof_fail(l, "invalid profile: \"sizes\" is not"
                                                        " an object");
    json_t *workers = json_object_get(rf->root, "workers");
    size_t n = 0, cap = 0;
    for (size_t w = 0; w < json_array_size(workers); w++) {
        json_t *rows = json_object_get(json_array_get(workers, w), CPROF_SECTION_SIZES);
        if (!json_is_array(rows))
            return cprof_fail(l, "invalid profile: workers[%zu] has no \"sizes\" array", w);
        for (size_t i = 0; i < json_array_size(rows); i++) {
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                p->path_sizes = cprof_xrealloc(p->path_sizes, cap * sizeof *p->path_sizes);
            }
            if (get_row(l, p, rf, ctx[w], json_array_get(rows, i), w, i, &p->path_sizes[n++]))
                return -1;
        }
    }
    /* The same rows, their contexts summed. */
    p->npath_sizes = p->nsizes = n;
    p->sizes = cprof_xcalloc(n + 1, sizeof *p->sizes);
    for (size_t i = 0; i < n; i++) {
        p->sizes[i] = p->path_sizes[i];
        p->sizes[i].path = CPROF_NO_PATH;
    }
    return fold(l, p->sizes, &p->nsizes) ? -1 : fold(l, p->path_sizes, &p->npath_sizes);
}

/* The tuples a[0..na) and b[0..nb) into *out, their routines and contexts renumbered by
 * the maps, and folded. */
static int sum_tuples(struct loader *l, cprof_prof_size **out, size_t *nout,
                      const cprof_prof_size *a, size_t na, const cprof_prof_size *b, size_t nb,
                      const struct sum_map *amap, const struct sum_map *bmap)
{
    *nout = na + nb;
    *out = cprof_xcalloc(*nout + 1, sizeof **out);
    for (size_t i = 0; i < *nout; i++) {
        bool in_a = i < na;
        const cprof_prof_size *u = in_a ? &a[i] : &b[i - na];
        const struct sum_map *m = in_a ? amap : bmap;
        (*out)[i] = *u;
        (*out)[i].routine = m->routine[u->routine];
        (*out)[i].path = u->path == CPROF_NO_PATH ? CPROF_NO_PATH : m->path[u->path];
    }
    return fold(l, *out, nout);
}

int cprof_sizes_sum(struct loader *l, cprof_profile *out, const cprof_profile *a,
                    const cprof_profile *b, const struct sum_map *amap, const struct sum_map *bmap)
{
    const cprof_prof_sizes_info *x = &a->size_info, *y = &b->size_info;
    if (x->cell && y->cell && x->cell != y->cell)
        return cprof_fail(l, "its input sizes count cells of %lld bytes, the others' of %lld",
                          (long long)y->cell, (long long)x->cell);
    out->size_info = (cprof_prof_sizes_info){
        x->cell ? x->cell : y->cell,
        x->shadow_bytes > y->shadow_bytes ? x->shadow_bytes : y->shadow_bytes,
        x->shadow_limit > y->shadow_limit ? x->shadow_limit : y->shadow_limit,
        x->untracked + y->untracked, x->saturated || y->saturated,
        x->slowdown_budget > y->slowdown_budget ? x->slowdown_budget : y->slowdown_budget,
        x->samples + y->samples, x->sampled_ns + y->sampled_ns};
    if (sum_tuples(l, &out->sizes, &out->nsizes, a->sizes, a->nsizes, b->sizes, b->nsizes,
                   amap, bmap))
        return -1;
    return sum_tuples(l, &out->path_sizes, &out->npath_sizes, a->path_sizes, a->npath_sizes,
                      b->path_sizes, b->npath_sizes, amap, bmap);
}

void cprof_sizes_free(cprof_profile *p)
{
    free(p->sizes);
    free(p->path_sizes);
    p->sizes = p->path_sizes = NULL;
    p->nsizes = p->npath_sizes = 0;
}
