/* profile.c: read, validate and sum profile files (docs/profile-format.md).
 *
 * Each file is first checked completely and copied into a "raw" image (C arrays, with
 * strings still owned by the parsed JSON), so nothing is merged from a file that turns
 * out to be bad.  The raw image is summed into a cprof_profile of its own (after its
 * times are compensated if asked), which is added to the sum of the files before it;
 * then the file is freed, so memory follows the sum, not the number of files.
 */
#include "profile.h"
#include "../format/schema.h"
#include "alloc.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cprof_external_name[] = "<external>";

/* A worker's "routines" and "calls" rows (format/schema.h) are both stored MAX_COLS
 * wide.
 * Rows of older writers lack the recursion columns (OLD_ width): they read as 0. */
enum { MAX_COLS = (int)CPROF_ROUTINE_NCOLUMNS > (int)CPROF_CALL_NCOLUMNS
                     ? (int)CPROF_ROUTINE_NCOLUMNS : (int)CPROF_CALL_NCOLUMNS };

struct raw_routine {
    const char *name, *file;
    int64_t line;
    json_t *counted;    /* true, or absent: null */
    json_t *inlinable;  /* true, or absent: null */
    size_t global;  /* index in the merged profile */
};

struct raw_site {
    int64_t caller;
    const char *file;
    int64_t line, d;  /* d is checked but plays no part in the report */
};

struct raw_worker {
    int64_t tid, omp_thread, pu, core;
    int64_t (*routine_rows)[MAX_COLS], (*call_rows)[MAX_COLS];
    size_t nroutine_rows, ncall_rows;
};

struct raw_file {
    json_t *root;  /* owns the strings below */
    const char *program, *clock;
    int64_t pid, start_unix_ns, elapsed_ns, pus, cores, packages;
    double call_cost_ns, count_cost_ns;
    struct raw_routine *routines;
    struct raw_site *sites;
    struct raw_worker *workers;  /* by id */
    size_t nroutines, nsites, nworkers;
};

struct loader {
    const char *path;  /* the file being read or merged: errors are about it */
    const char *first; /* the first file summed: it names the program */
    char *err;
    size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct loader *l, const char *fmt, ...)
{
    int n = snprintf(l->err, l->errlen, "%s: ", l->path);
    if (n >= 0 && (size_t)n < l->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#define NELEM(a) (sizeof (a) / sizeof *(a))
#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* ---- reading one file ---- */

static char *read_whole(struct loader *l, size_t *len)
{
    FILE *f = fopen(l->path, "rb");
    if (!f) {
        fail(l, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0, got;
    char *buf = cprof_xcalloc(cap, 1);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = cprof_xrealloc(buf, cap *= 2);
    }
    int rd_errno = ferror(f) ? errno : 0;
    fclose(f);
    if (rd_errno)
        fail(l, "cannot read: %s", strerror(rd_errno));
    else if (n == 0)
        fail(l, "empty file");
    else {
        *len = n;
        return buf;
    }
    free(buf);
    return NULL;
}

/* One key of an object: a string (out is const char **), an integer not below min
 * (out is int64_t *), a real not below min (out is double *), or an array or object
 * (out is json_t **). */
/* A field's type, or'ed with OPTIONAL when it may be absent (out is then left as it
 * is): additions to version 1 that older writers do not make. */
enum { OPTIONAL = 0x100 };

struct field {
    const char *key;
    int type;
    void *out;
    int64_t min;
};

static const char *const type_name[] = {
    [JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
    [JSON_STRING] = "a string", [JSON_INTEGER] = "an integer", [JSON_REAL] = "a number",
    [JSON_TRUE] = "true",
};

/* Fill f[0..n-1] from obj, which must have exactly these keys.  where_fmt names obj in
 * messages. */
__attribute__((format(printf, 5, 6)))
static int get_fields(struct loader *l, json_t *obj, const struct field *f, size_t n,
                      const char *where_fmt, ...)
{
    char where[128];
    va_list ap;
    va_start(ap, where_fmt);
    vsnprintf(where, sizeof where, where_fmt, ap);
    va_end(ap);

    if (!json_is_object(obj))
        return fail(l, "invalid profile: %s is not an object", where);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_object_get(obj, f[i].key);
        json_type type = f[i].type & ~OPTIONAL;
        if (!v && (f[i].type & OPTIONAL))
            continue;
        if (!v)
            return fail(l, "invalid profile: %s has no \"%s\"", where, f[i].key);
        /* A real-valued field may be written as an integer: 19 is 19.0. */
        int same = json_typeof(v) == type || (type == JSON_REAL && json_is_number(v));
        if (!same)
            return fail(l, "invalid profile: %s: \"%s\" is not %s", where, f[i].key,
                        type_name[type]);
        switch (type) {
        case JSON_STRING:
            *(const char **)f[i].out = json_string_value(v);
            break;
        case JSON_INTEGER:
            if (json_integer_value(v) < f[i].min)
                return fail(l, "invalid profile: %s: \"%s\" is %" JSON_INTEGER_FORMAT
                            ", below %lld", where, f[i].key, json_integer_value(v),
                            (long long)f[i].min);
            *(int64_t *)f[i].out = json_integer_value(v);
            break;
        case JSON_REAL:
            if (json_number_value(v) < (double)f[i].min)
                return fail(l, "invalid profile: %s: \"%s\" is below %lld", where, f[i].key,
                            (long long)f[i].min);
            *(double *)f[i].out = json_number_value(v);
            break;
        default:
            *(json_t **)f[i].out = v;
        }
    }
    /* Version 1 is exactly what docs/profile-format.md lists: anything more means the
     * writer and this reader disagree about the format. */
    if (json_object_size(obj) != n) {
        const char *key;
        json_t *v;
        json_object_foreach(obj, key, v) {
            size_t i = 0;
            while (i < n && strcmp(key, f[i].key))
                i++;
            if (i == n)
                return fail(l, "invalid profile: %s has an unexpected key \"%s\"", where, key);
        }
    }
    return 0;
}

/* A column that holds an index into one of the file's tables. */
struct index_col {
    size_t limit;
    const char *table;
};

/* Copy the array arr, worker w's table `name` (rows of ncols integers, or nold from
 * an older writer, the rest 0): the first nidx columns are indexes described by idx,
 * the others counts and times, never negative. */
static int get_rows(struct loader *l, json_t *arr, size_t w, const char *name, size_t ncols,
                    size_t nold, const struct index_col *idx, size_t nidx,
                    int64_t (**rows)[MAX_COLS], size_t *nrows)
{
    *nrows = json_array_size(arr);
    *rows = cprof_xcalloc(*nrows, sizeof **rows);
    for (size_t i = 0; i < *nrows; i++) {
        json_t *row = json_array_get(arr, i);
        size_t n = json_array_size(row);
        if (!json_is_array(row) || (n != ncols && n != nold))
            return fail(l, "invalid profile: workers[%zu].%s[%zu] is not an array of %zu"
                        " (or %zu) integers", w, name, i, ncols, nold);
        for (size_t c = 0; c < n; c++) {
            json_t *v = json_array_get(row, c);
            if (!json_is_integer(v))
                return fail(l, "invalid profile: workers[%zu].%s[%zu]: column %zu is not"
                            " an integer", w, name, i, c);
            json_int_t x = json_integer_value(v);
            if (x < 0)
                return fail(l, "invalid profile: workers[%zu].%s[%zu]: column %zu is"
                            " negative", w, name, i, c);
            if (c < nidx && (uint64_t)x >= idx[c].limit)
                return fail(l, "invalid profile: workers[%zu].%s[%zu]: column %zu: index %"
                            JSON_INTEGER_FORMAT " out of range (%zu %s)", w, name, i, c, x,
                            idx[c].limit, idx[c].table);
            (*rows)[i][c] = x;
        }
    }
    return 0;
}

static int get_workers(struct loader *l, struct raw_file *rf, json_t *arr)
{
    rf->nworkers = json_array_size(arr);
    rf->workers = cprof_xcalloc(rf->nworkers, sizeof *rf->workers);
    bool *seen = cprof_xcalloc(rf->nworkers, sizeof *seen);
    int rc = 0;
    for (size_t i = 0; i < rf->nworkers && !rc; i++) {
        int64_t id;
        struct raw_worker tmp = {0};
        json_t *routines, *calls;
        const struct field f[] = {
            {"id", JSON_INTEGER, &id, 0},
            {"tid", JSON_INTEGER, &tmp.tid, 0},
            {"omp_thread", JSON_INTEGER, &tmp.omp_thread, 0},
            {"pu", JSON_INTEGER, &tmp.pu, 0},
            {"core", JSON_INTEGER, &tmp.core, -1},
            {"routines", JSON_ARRAY, &routines, 0},
            {"calls", JSON_ARRAY, &calls, 0},
        };
        rc = get_fields(l, json_array_get(arr, i), f, NELEM(f), "workers[%zu]", i);
        if (rc)
            break;
        /* Ids are dense: n workers are 0..n-1, each once. */
        if ((uint64_t)id >= rf->nworkers) {
            rc = fail(l, "invalid profile: workers[%zu]: id %lld out of range (%zu workers)",
                      i, (long long)id, rf->nworkers);
            break;
        }
        if (seen[id]) {
            rc = fail(l, "invalid profile: workers[%zu]: duplicate worker id %lld", i,
                      (long long)id);
            break;
        }
        seen[id] = true;
        struct raw_worker *w = &rf->workers[id];
        *w = tmp;
        const struct index_col routine_idx[] = {{rf->nroutines, "routines"}};
        const struct index_col call_idx[] = {{rf->nsites, "sites"},
                                             {rf->nroutines, "routines"}};
        rc = get_rows(l, routines, i, "routines", CPROF_ROUTINE_NCOLUMNS,
                      CPROF_ROUTINE_NCOLUMNS_OLD, routine_idx, 1,
                      &w->routine_rows, &w->nroutine_rows);
        if (!rc)
            rc = get_rows(l, calls, i, "calls", CPROF_CALL_NCOLUMNS, CPROF_CALL_NCOLUMNS_OLD,
                          call_idx, 2,
                          &w->call_rows,
                          &w->ncall_rows);
    }
    free(seen);
    return rc;
}

static void raw_file_free(struct raw_file *rf)
{
    for (size_t w = 0; w < rf->nworkers; w++) {
        free(rf->workers[w].routine_rows);
        free(rf->workers[w].call_rows);
    }
    free(rf->workers);
    free(rf->sites);
    free(rf->routines);
    json_decref(rf->root);
}

static int check_format(struct loader *l, json_t *root)
{
    if (!json_is_object(root))
        return fail(l, "not a cprof profile (the JSON document is not an object)");
    json_t *format = json_object_get(root, "format");
    json_t *version = json_object_get(root, "version");
    if (!json_is_string(format) || strcmp(json_string_value(format), CPROF_FORMAT_NAME))
        return fail(l, "not a cprof profile (\"format\" is not \"cprof-profile\")");
    if (!json_is_integer(version))
        return fail(l, "not a cprof profile (\"version\" is missing or not an integer)");
    if (json_integer_value(version) != CPROF_FORMAT_VERSION)
        return fail(l, "unsupported profile version %" JSON_INTEGER_FORMAT
                    " (this cprof-report reads version %d)", json_integer_value(version),
                    CPROF_FORMAT_VERSION);
    return 0;
}

static int read_raw(struct loader *l, struct raw_file *rf)
{
    size_t len;
    char *text = read_whole(l, &len);
    if (!text)
        return -1;
    json_error_t je;
    rf->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!rf->root)
        return fail(l, "not a cprof profile (truncated or corrupted JSON at line %d, column"
                    " %d: %s)", je.line, je.column, je.text);
    if (check_format(l, rf->root))
        return -1;

    const char *format;
    int64_t version;
    json_t *machine = NULL, *routines = NULL, *sites = NULL, *workers = NULL;
    const struct field top[] = {
        {"format", JSON_STRING, &format, 0},
        {"version", JSON_INTEGER, &version, 0},
        {"program", JSON_STRING, &rf->program, 0},
        {"pid", JSON_INTEGER, &rf->pid, 0},
        {"start_unix_ns", JSON_INTEGER, &rf->start_unix_ns, 0},
        {"elapsed_ns", JSON_INTEGER, &rf->elapsed_ns, 0},
        {"clock", JSON_STRING, &rf->clock, 0},
        {"call_cost_ns", JSON_REAL, &rf->call_cost_ns, 0},
        {"count_cost_ns", JSON_REAL | OPTIONAL, &rf->count_cost_ns, 0},
        {"machine", JSON_OBJECT, &machine, 0},
        {"routines", JSON_ARRAY, &routines, 0},
        {"sites", JSON_ARRAY, &sites, 0},
        {"workers", JSON_ARRAY, &workers, 0},
    };
    const struct field mach[] = {
        {"pus", JSON_INTEGER, &rf->pus, 0},
        {"cores", JSON_INTEGER, &rf->cores, 0},
        {"packages", JSON_INTEGER, &rf->packages, 0},
    };
    if (get_fields(l, rf->root, top, NELEM(top), "the profile") ||
        get_fields(l, machine, mach, NELEM(mach), "\"machine\""))
        return -1;

    rf->nroutines = json_array_size(routines);
    rf->routines = cprof_xcalloc(rf->nroutines, sizeof *rf->routines);
    for (size_t i = 0; i < rf->nroutines; i++) {
        struct raw_routine *r = &rf->routines[i];
        const struct field f[] = {
            {"name", JSON_STRING, &r->name, 0},
            {"file", JSON_STRING, &r->file, 0},
            {"line", JSON_INTEGER, &r->line, 0},
            {"counted", JSON_TRUE | OPTIONAL, &r->counted, 0},
            {"inlinable", JSON_TRUE | OPTIONAL, &r->inlinable, 0},
        };
        if (get_fields(l, json_array_get(routines, i), f, NELEM(f), "routines[%zu]", i))
            return -1;
    }

    rf->nsites = json_array_size(sites);
    rf->sites = cprof_xcalloc(rf->nsites, sizeof *rf->sites);
    for (size_t i = 0; i < rf->nsites; i++) {
        struct raw_site *s = &rf->sites[i];
        const struct field f[] = {
            {"caller", JSON_INTEGER, &s->caller, 0},
            {"file", JSON_STRING, &s->file, 0},
            {"line", JSON_INTEGER, &s->line, 0},
            {"d", JSON_INTEGER, &s->d, 0},
        };
        if (get_fields(l, json_array_get(sites, i), f, NELEM(f), "sites[%zu]", i))
            return -1;
        if ((uint64_t)s->caller >= rf->nroutines)
            return fail(l, "invalid profile: sites[%zu]: caller index %lld out of range"
                        " (%zu routines)", i, (long long)s->caller, rf->nroutines);
    }

    return get_workers(l, rf, workers);
}

/* ---- compensating ---- */

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
 * cost ns for each profiled call made inside it; returns what came out of self times. */
static double compensate_row(int64_t *v, const struct cprof_column *cols, int n, double cost)
{
    double self = 0;
    for (int k = 0; k < n; k++) {
        if (cols[k].kind != CPROF_COL_TIME && cols[k].kind != CPROF_COL_SELF_TIME)
            continue;
        int64_t less = less_calls(v[k], v[cols[k].calls], cost);
        if (cols[k].kind == CPROF_COL_SELF_TIME)
            self += (double)(v[k] - less);
        v[k] = less;
    }
    return self;
}

/* Take the profiled calls' cost out of every time of file rf, row by row, with the
 * file's own call_cost_ns: the sums are then the same whatever the files' order and
 * costs, and a row whose estimate exceeds its time clamps alone.  Adds what came out
 * of the self times to p->compensated_ns. */
static void compensate_rows(cprof_profile *p, struct raw_file *rf)
{
    for (size_t w = 0; w < rf->nworkers; w++) {
        struct raw_worker *wk = &rf->workers[w];
        for (size_t i = 0; i < wk->nroutine_rows; i++)
            p->compensated_ns += compensate_row(wk->routine_rows[i], cprof_routine_columns,
                                                CPROF_ROUTINE_NCOLUMNS, rf->call_cost_ns);
        for (size_t i = 0; i < wk->ncall_rows; i++)
            compensate_row(wk->call_rows[i], cprof_call_columns, CPROF_CALL_NCOLUMNS,
                           rf->call_cost_ns);
    }
}

/* ---- summing ---- */

static bool add(int64_t *a, int64_t b)
{
    return !__builtin_add_overflow(*a, b, a);
}

static bool tally_add(cprof_tally *a, int64_t n, int64_t t, int64_t nested, int64_t rec_t)
{
    return add(&a->n, n) && add(&a->t, t) && add(&a->nested, nested) && add(&a->rec_t, rec_t);
}

/* Sum b into a. */
static bool tally_sum(cprof_tally *a, const cprof_tally *b)
{
    return tally_add(a, b->n, b->t, b->nested, b->rec_t);
}

static int overflow(struct loader *l)
{
    return fail(l, "counts or times overflow 64 bits when summed");
}

static int cmp_raw_routine(const void *x, const void *y)
{
    const struct raw_routine *a = *(struct raw_routine *const *)x;
    const struct raw_routine *b = *(struct raw_routine *const *)y;
    int d = strcmp(a->name, b->name);
    if (!d)
        d = strcmp(a->file, b->file);
    if (!d)
        d = CMP(a->line, b->line);
    return d;
}

/* Give every (name, file) of file rf one routine of p, in report order; its line is the
 * smallest declared (units of a program may declare one key at several lines). */
static void merge_routines(cprof_profile *p, struct raw_file *rf)
{
    size_t n = rf->nroutines;
    struct raw_routine **refs = cprof_xcalloc(n, sizeof *refs);
    for (size_t k = 0; k < n; k++)
        refs[k] = &rf->routines[k];
    qsort(refs, n, sizeof *refs, cmp_raw_routine);

    p->routines = cprof_xcalloc(n, sizeof *p->routines);
    for (size_t k = 0; k < n; k++) {
        struct raw_routine *r = refs[k];
        cprof_prof_routine *last = p->nroutines ? &p->routines[p->nroutines - 1] : NULL;
        if (!last || strcmp(last->name, r->name) || strcmp(last->file, r->file)) {
            last = &p->routines[p->nroutines++];
            last->name = cprof_xstrdup(r->name);
            last->file = cprof_xstrdup(r->file);
            last->line = r->line;
            last->worker = cprof_xcalloc(p->nworkers, sizeof *last->worker);
        }
        last->counted |= r->counted != NULL;
        last->inlinable |= r->inlinable != NULL;
        r->global = p->nroutines - 1;
    }
    free(refs);
}

/* What one row adds to one arc, at one call site (none for an external caller). */
struct contrib {
    const char *caller_name, *caller_file;  /* cprof_external_name and NULL if external */
    size_t caller, callee;
    const char *file;
    int64_t line;
    cprof_tally s, c;
};

static int cmp_null_first(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

/* Report order: caller name and file, callee (routine indexes are in name, file order),
 * site file and line. */
static int cmp_contrib(const void *x, const void *y)
{
    const struct contrib *a = x, *b = y;
    int d = strcmp(a->caller_name, b->caller_name);
    if (!d)
        d = cmp_null_first(a->caller_file, b->caller_file);
    if (!d)
        d = CMP(a->callee, b->callee);
    if (!d)
        d = cmp_null_first(a->file, b->file);
    if (!d)
        d = CMP(a->line, b->line);
    return d;
}

static bool same_site(const struct contrib *a, const struct contrib *b)
{
    return !strcmp(a->file, b->file) && a->line == b->line;
}

/* Sum the sorted contributions in[0..n-1] into p's arcs and their sites. */
static int fold_arcs(struct loader *l, cprof_profile *p, const struct contrib *in, size_t n)
{
    p->arcs = cprof_xcalloc(n, sizeof *p->arcs);
    for (size_t i = 0, end; i < n; i = end) {
        cprof_prof_arc *arc = &p->arcs[p->narcs++];
        arc->caller = in[i].caller;
        arc->callee = in[i].callee;
        for (end = i; end < n && in[end].caller == arc->caller && in[end].callee == arc->callee;
             end++)
            if (in[end].file && (end == i || !same_site(&in[end], &in[end - 1])))
                arc->nsites++;
        arc->sites = cprof_xcalloc(arc->nsites, sizeof *arc->sites);
        cprof_prof_site *site = NULL;
        for (size_t k = i; k < end; k++) {
            const struct contrib *x = &in[k];
            if (!tally_sum(&arc->s, &x->s) || !tally_sum(&arc->c, &x->c))
                return overflow(l);
            if (!x->file)
                continue;
            if (!site || !same_site(x, x - 1)) {
                site = site ? site + 1 : arc->sites;
                site->file = cprof_xstrdup(x->file);
                site->line = x->line;
            }
            if (!tally_sum(&site->s, &x->s) || !tally_sum(&site->c, &x->c))
                return overflow(l);
        }
    }
    return 0;
}

/* Nested counts too: compensation may zero a time, and must list the same arcs. */
static bool nonzero(const struct contrib *c)
{
    return c->s.n || c->s.t || c->s.nested || c->c.n || c->c.t || c->c.nested;
}

/* Add file rf's rows to the routines of p and list what they add to arcs in c[*n...]. */
static int merge_rows(struct loader *l, cprof_profile *p, const struct raw_file *rf,
                      struct contrib *c, size_t *n)
{
    for (size_t w = 0; w < rf->nworkers; w++) {
        const struct raw_worker *wk = &rf->workers[w];
        for (size_t i = 0; i < wk->nroutine_rows; i++) {
            const int64_t *v = wk->routine_rows[i];
            size_t g = rf->routines[v[CPROF_R_ROUTINE]].global;
            cprof_prof_routine *r = &p->routines[g];
            cprof_prof_routine_worker *rw = &r->worker[w];
            if (!tally_add(&r->s_caller, v[CPROF_R_S_ENTRIES], v[CPROF_R_S_TIME],
                           v[CPROF_R_S_NESTED], 0) ||
                !tally_add(&rw->c_caller, v[CPROF_R_C_ENTRIES], v[CPROF_R_C_TIME],
                           v[CPROF_R_C_NESTED], 0) ||
                !add(&r->s_self_t, v[CPROF_R_S_SELF]) || !add(&rw->c_self_t, v[CPROF_R_C_SELF]) ||
                !add(&r->s_direct, v[CPROF_R_S_DIRECT]) || !add(&rw->c_direct, v[CPROF_R_C_DIRECT]) ||
                !add(&rw->c_thread_t, v[CPROF_R_C_THREAD_TIME]))
                return overflow(l);
            /* Every entry, external or not, went through one profiled call's facade:
             * a counted routine's, its call site's count. */
            double cost = (r->counted ? rf->count_cost_ns : rf->call_cost_ns) *
                          ((double)v[CPROF_R_S_ENTRIES] + (double)v[CPROF_R_C_ENTRIES]);
            r->overhead_ns += cost;
            p->overhead_ns += cost;
            if (v[CPROF_R_MAX_DEPTH] > r->max_depth)
                r->max_depth = v[CPROF_R_MAX_DEPTH];
            c[*n] = (struct contrib){cprof_external_name, NULL, CPROF_EXTERNAL, g, NULL, 0,
                                     {v[CPROF_R_S_EXT], v[CPROF_R_S_EXT_TIME],
                                      v[CPROF_R_S_EXT_NESTED], v[CPROF_R_S_EXT_REC_TIME]},
                                     {v[CPROF_R_C_EXT], v[CPROF_R_C_EXT_TIME],
                                      v[CPROF_R_C_EXT_NESTED], v[CPROF_R_C_EXT_REC_TIME]}};
            *n += nonzero(&c[*n]);
        }
        for (size_t i = 0; i < wk->ncall_rows; i++) {
            const int64_t *v = wk->call_rows[i];
            const struct raw_site *s = &rf->sites[v[CPROF_C_SITE]];
            size_t g = rf->routines[s->caller].global;
            cprof_prof_routine *r = &p->routines[g];
            cprof_prof_routine_worker *rw = &r->worker[w];
            cprof_tally kase[CPROF_COLUMN_CASES] = {{0}}, conc = {0};  /* conc: S-C + C-S + C-C */
            for (int k = 0; k < CPROF_COLUMN_CASES; k++)
                if (!tally_add(&kase[k], v[CPROF_C_CALLS(k)], v[CPROF_C_TIME(k)],
                               v[CPROF_C_NESTED(k)], v[CPROF_C_REC_TIME(k)]) ||
                    (k > 0 && !tally_sum(&conc, &kase[k])))
                    return overflow(l);
            if (!tally_sum(&r->s_callee, &kase[0]) || !tally_sum(&rw->c_callee, &kase[1]) ||
                !tally_sum(&rw->cs_callee, &kase[2]) || !tally_sum(&rw->cc_callee, &kase[3]))
                return overflow(l);
            c[*n] = (struct contrib){r->name, r->file, g, rf->routines[v[CPROF_C_CALLEE]].global,
                                     s->file, s->line, kase[0], conc};
            *n += nonzero(&c[*n]);
        }
    }
    return 0;
}

/* Sum one file, already read, into a profile of its own. */
static int merge_file(struct loader *l, cprof_profile *p, struct raw_file *rf, bool comp)
{
    p->nfiles = 1;
    p->compensated = comp;
    p->programs = cprof_xcalloc(1, sizeof *p->programs);
    p->programs[0] = (cprof_prof_program){cprof_xstrdup(rf->program), 1};
    p->nprograms = 1;
    p->program = p->programs[0].name;
    p->clock = cprof_xstrdup(rf->clock);
    p->pid = rf->pid;
    p->start_unix_ns = rf->start_unix_ns;
    p->call_cost_ns = rf->call_cost_ns;
    p->count_cost_ns = rf->count_cost_ns;
    p->pus = rf->pus;
    p->cores = rf->cores;
    p->packages = rf->packages;
    p->elapsed_ns = rf->elapsed_ns;
    p->nworkers = rf->nworkers;
    size_t ncontrib = 0;
    p->workers = cprof_xcalloc(p->nworkers, sizeof *p->workers);
    for (size_t w = 0; w < rf->nworkers; w++) {
        const struct raw_worker *wk = &rf->workers[w];
        p->workers[w] = (cprof_prof_worker){wk->tid, wk->omp_thread, wk->pu, wk->core};
        ncontrib += wk->nroutine_rows + wk->ncall_rows;
    }

    merge_routines(p, rf);

    struct contrib *c = cprof_xcalloc(ncontrib, sizeof *c);
    size_t n = 0;
    if (comp)
        compensate_rows(p, rf);
    int rc = merge_rows(l, p, rf, c, &n);
    if (!rc) {
        qsort(c, n, sizeof *c, cmp_contrib);
        rc = fold_arcs(l, p, c, n);
    }
    free(c);
    return rc;
}

/* ---- summing two profiles ----
 * Files are summed one at a time into the profile of those before them, so that memory
 * follows the merged result and not the number of files. */

/* Whether profiles of programs a and b may be summed without --force.  The one place
 * that decides what "the same program" is. */
static bool same_program(const char *a, const char *b)
{
    return !strcmp(a, b);
}

static bool routine_worker_sum(cprof_prof_routine_worker *a, const cprof_prof_routine_worker *b)
{
    return tally_sum(&a->c_caller, &b->c_caller) && tally_sum(&a->c_callee, &b->c_callee) &&
           tally_sum(&a->cs_callee, &b->cs_callee) && tally_sum(&a->cc_callee, &b->cc_callee) &&
           add(&a->c_self_t, b->c_self_t) && add(&a->c_direct, b->c_direct) &&
           add(&a->c_thread_t, b->c_thread_t);
}

/* Sum routine b (of a profile with nw workers) into a. */
static bool routine_sum(cprof_prof_routine *a, const cprof_prof_routine *b, size_t nw)
{
    if (b->line < a->line)
        a->line = b->line;
    if (b->max_depth > a->max_depth)
        a->max_depth = b->max_depth;
    a->counted |= b->counted;
    a->inlinable |= b->inlinable;
    a->overhead_ns += b->overhead_ns;
    bool ok = tally_sum(&a->s_caller, &b->s_caller) && tally_sum(&a->s_callee, &b->s_callee) &&
              add(&a->s_self_t, b->s_self_t) && add(&a->s_direct, b->s_direct);
    for (size_t w = 0; w < nw && ok; w++)
        ok = routine_worker_sum(&a->worker[w], &b->worker[w]);
    return ok;
}

/* A new routine of the sum, a copy of r's key (its numbers are summed in after). */
static void routine_key(cprof_prof_routine *out, const cprof_prof_routine *r, size_t nw)
{
    out->name = cprof_xstrdup(r->name);
    out->file = cprof_xstrdup(r->file);
    out->line = r->line;
    out->worker = cprof_xcalloc(nw, sizeof *out->worker);
}

static int cmp_routine_key(const cprof_prof_routine *a, const cprof_prof_routine *b)
{
    int d = strcmp(a->name, b->name);
    return d ? d : strcmp(a->file, b->file);
}

/* An arc of one of the two profiles, with its routines' indexes in the sum. */
struct arc_ref {
    const cprof_prof_arc *arc;
    size_t caller, callee;
    const cprof_profile *sum;
};

static int cmp_arc_ref(const void *x, const void *y)
{
    const struct arc_ref *a = x, *b = y;
    const cprof_prof_routine *r = a->sum->routines;
    bool ea = a->caller == CPROF_EXTERNAL, eb = b->caller == CPROF_EXTERNAL;
    int d = strcmp(ea ? cprof_external_name : r[a->caller].name,
                   eb ? cprof_external_name : r[b->caller].name);
    if (!d)
        d = cmp_null_first(ea ? NULL : r[a->caller].file, eb ? NULL : r[b->caller].file);
    if (!d)
        d = CMP(a->callee, b->callee);
    return d;
}

static int cmp_site(const cprof_prof_site *a, const cprof_prof_site *b)
{
    int d = strcmp(a->file, b->file);
    return d ? d : CMP(a->line, b->line);
}

/* out = x + y (an arc of each profile, the same caller and callee; y may be NULL). */
static bool arc_sum(cprof_prof_arc *out, const cprof_prof_arc *x, const cprof_prof_arc *y)
{
    size_t ny = y ? y->nsites : 0, i = 0, j = 0;
    out->sites = cprof_xcalloc(x->nsites + ny, sizeof *out->sites);
    bool ok = tally_sum(&out->s, &x->s) && tally_sum(&out->c, &x->c) &&
              (!y || (tally_sum(&out->s, &y->s) && tally_sum(&out->c, &y->c)));
    while (ok && (i < x->nsites || j < ny)) {
        int d = i == x->nsites ? 1 : j == ny ? -1 : cmp_site(&x->sites[i], &y->sites[j]);
        const cprof_prof_site *from = d <= 0 ? &x->sites[i++] : &y->sites[j++];
        cprof_prof_site *s = &out->sites[out->nsites++];
        s->file = cprof_xstrdup(from->file);
        s->line = from->line;
        ok = tally_sum(&s->s, &from->s) && tally_sum(&s->c, &from->c);
        if (ok && d == 0)
            ok = tally_sum(&s->s, &y->sites[j].s) && tally_sum(&s->c, &y->sites[j++].c);
    }
    return ok;
}

/* Sum the routines of a and b into out (in report order); amap and bmap give each
 * routine's index in out. */
static int sum_routines(struct loader *l, cprof_profile *out, const cprof_profile *a,
                        const cprof_profile *b, size_t *amap, size_t *bmap)
{
    out->routines = cprof_xcalloc(a->nroutines + b->nroutines, sizeof *out->routines);
    size_t i = 0, j = 0;
    while (i < a->nroutines || j < b->nroutines) {
        int d = i == a->nroutines   ? 1
                : j == b->nroutines ? -1
                                    : cmp_routine_key(&a->routines[i], &b->routines[j]);
        cprof_prof_routine *r = &out->routines[out->nroutines++];
        routine_key(r, d <= 0 ? &a->routines[i] : &b->routines[j], out->nworkers);
        if (d <= 0 && !routine_sum(r, &a->routines[i], a->nworkers))
            return overflow(l);
        if (d >= 0 && !routine_sum(r, &b->routines[j], b->nworkers))
            return overflow(l);
        if (d <= 0)
            amap[i++] = out->nroutines - 1;
        if (d >= 0)
            bmap[j++] = out->nroutines - 1;
    }
    return 0;
}

static int sum_arcs(struct loader *l, cprof_profile *out, const cprof_profile *a,
                    const cprof_profile *b, const size_t *amap, const size_t *bmap)
{
    size_t n = a->narcs + b->narcs, k = 0;
    struct arc_ref *refs = cprof_xcalloc(n, sizeof *refs);
    for (size_t s = 0; s < 2; s++) {
        const cprof_profile *p = s ? b : a;
        const size_t *map = s ? bmap : amap;
        for (size_t i = 0; i < p->narcs; i++, k++) {
            const cprof_prof_arc *arc = &p->arcs[i];
            refs[k] = (struct arc_ref){arc,
                                       arc->caller == CPROF_EXTERNAL ? CPROF_EXTERNAL
                                                                     : map[arc->caller],
                                       map[arc->callee], out};
        }
    }
    /* Each profile has an arc once: equal keys come in pairs, one of a and one of b. */
    qsort(refs, n, sizeof *refs, cmp_arc_ref);
    out->arcs = cprof_xcalloc(n, sizeof *out->arcs);
    int rc = 0;
    for (k = 0; k < n && !rc; k++) {
        bool pair = k + 1 < n && !cmp_arc_ref(&refs[k], &refs[k + 1]);
        cprof_prof_arc *arc = &out->arcs[out->narcs++];
        arc->caller = refs[k].caller;
        arc->callee = refs[k].callee;
        if (!arc_sum(arc, refs[k].arc, pair ? refs[k + 1].arc : NULL))
            rc = overflow(l);
        k += pair;
    }
    free(refs);
    return rc;
}

/* The programs of a, then those of b that a has not, with their numbers of files. */
static void sum_programs(cprof_profile *out, const cprof_profile *a, const cprof_profile *b)
{
    out->programs = cprof_xcalloc(a->nprograms + b->nprograms, sizeof *out->programs);
    for (size_t s = 0; s < 2; s++)
        for (size_t i = 0; i < (s ? b : a)->nprograms; i++) {
            const cprof_prof_program *g = &(s ? b : a)->programs[i];
            size_t k = 0;
            while (k < out->nprograms && strcmp(out->programs[k].name, g->name))
                k++;
            if (k == out->nprograms)
                out->programs[out->nprograms++] = (cprof_prof_program){cprof_xstrdup(g->name), 0};
            out->programs[k].nfiles += g->nfiles;
        }
    out->program = out->programs[0].name;
}

/* out = a + b; what describes the run (pid, machine...) comes from a. */
static int sum_profiles(struct loader *l, cprof_profile *out, const cprof_profile *a,
                        const cprof_profile *b)
{
    memset(out, 0, sizeof *out);
    out->nfiles = a->nfiles + b->nfiles;
    sum_programs(out, a, b);
    out->clock = cprof_xstrdup(a->clock);
    out->pid = a->pid;
    out->start_unix_ns = a->start_unix_ns;
    out->call_cost_ns = a->call_cost_ns;
    out->count_cost_ns = a->count_cost_ns;
    out->overhead_ns = a->overhead_ns + b->overhead_ns;
    out->compensated = a->compensated;
    out->compensated_ns = a->compensated_ns + b->compensated_ns;
    out->pus = a->pus;
    out->cores = a->cores;
    out->packages = a->packages;
    if (__builtin_add_overflow(a->elapsed_ns, b->elapsed_ns, &out->elapsed_ns))
        return overflow(l);
    /* Worker w is described by the first file with more than w workers. */
    out->nworkers = a->nworkers > b->nworkers ? a->nworkers : b->nworkers;
    out->workers = cprof_xcalloc(out->nworkers, sizeof *out->workers);
    for (size_t w = 0; w < out->nworkers; w++)
        out->workers[w] = w < a->nworkers ? a->workers[w] : b->workers[w];

    size_t *amap = cprof_xcalloc(a->nroutines, sizeof *amap);
    size_t *bmap = cprof_xcalloc(b->nroutines, sizeof *bmap);
    int rc = sum_routines(l, out, a, b, amap, bmap);
    if (!rc)
        rc = sum_arcs(l, out, a, b, amap, bmap);
    free(amap);
    free(bmap);
    return rc;
}

/* Read file l->path and sum it into *sum (empty before the first file). */
static int add_file(struct loader *l, cprof_profile *sum, const cprof_load_opts *o)
{
    struct raw_file rf = {0};
    cprof_profile one = {0}, both;
    int rc = read_raw(l, &rf);
    if (!rc && sum->nfiles && !o->force && !same_program(sum->program, rf.program))
        rc = fail(l, "a profile of %s, not of %s like %s (--force sums them anyway)",
                  rf.program, sum->program, l->first);
    if (!rc)
        rc = merge_file(l, &one, &rf, o->compensate);
    raw_file_free(&rf);
    if (!rc && !sum->nfiles) {
        *sum = one;
        l->first = l->path;
        return 0;
    }
    if (!rc && (rc = sum_profiles(l, &both, sum, &one)))
        cprof_profile_free(&both);
    cprof_profile_free(&one);
    if (rc)
        return rc;
    cprof_profile_free(sum);
    *sum = both;
    return 0;
}

int cprof_profile_load(cprof_profile *p, const cprof_load_opts *o, char *err, size_t errlen)
{
    struct loader l = {NULL, NULL, err, errlen};
    size_t skipped = 0;
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < o->npaths; i++) {
        l.path = o->paths[i];
        if (!add_file(&l, p, o))
            continue;
        if (!o->warn) {
            cprof_profile_free(p);
            return -1;
        }
        o->warn(err);
        skipped++;
    }
    if (!p->nfiles) {
        l.path = o->paths[0];
        return fail(&l, "none of the %zu profile files could be used", o->npaths);
    }
    p->nskipped = skipped;
    return 0;
}

void cprof_profile_free(cprof_profile *p)
{
    for (size_t i = 0; i < p->nroutines; i++) {
        free(p->routines[i].name);
        free(p->routines[i].file);
        free(p->routines[i].worker);
    }
    for (size_t i = 0; i < p->narcs; i++) {
        for (size_t j = 0; j < p->arcs[i].nsites; j++)
            free(p->arcs[i].sites[j].file);
        free(p->arcs[i].sites);
    }
    free(p->routines);
    free(p->arcs);
    free(p->workers);
    for (size_t i = 0; i < p->nprograms; i++)
        free(p->programs[i].name);
    free(p->programs);
    free(p->clock);
    memset(p, 0, sizeof *p);
}
