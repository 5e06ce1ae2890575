/* read.c: reading one profile file whole into its raw image, checking every part of
 * it against docs/profile-format.md (raw.h). */
#include "raw.h"
#include "alloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What is read from a file that is not a regular one (a pipe, a device), at most: one
 * that does not end (/dev/zero, a stream) must not take all memory. */
#define STREAM_MAX ((size_t)1 << 30)

int cprof_fail(struct loader *l, const char *fmt, ...)
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

static char *read_whole(struct loader *l, size_t *len)
{
    FILE *f = fopen(l->path, "rb");
    if (!f) {
        cprof_fail(l, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    int stream = fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode);
    size_t cap = 1 << 16, n = 0, got;
    char *buf = cprof_xcalloc(cap, 1);
    const char *cut = NULL;
    while (!cut && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        /* No JSON text holds a NUL byte: a device of them is no profile. */
        if (stream && memchr(buf + n, 0, got))
            cut = "a NUL byte";
        n += got;
        if (stream && n > STREAM_MAX)
            cut = "more than 1 GiB";
        else if (n == cap)
            buf = cprof_xrealloc(buf, cap *= 2);
    }
    int rd_errno = !cut && ferror(f) ? errno : 0;
    fclose(f);
    if (cut)
        cprof_fail(l, "not a profile: a pipe or a device that gave %s (read no further)", cut);
    else if (rd_errno)
        cprof_fail(l, "cannot read: %s", strerror(rd_errno));
    else if (n == 0)
        cprof_fail(l, "empty file");
    else {
        *len = n;
        return buf;
    }
    free(buf);
    return NULL;
}

static const char *const type_name[] = {
    [JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
    [JSON_STRING] = "a string", [JSON_INTEGER] = "an integer", [JSON_REAL] = "a number",
    [JSON_TRUE] = "true",
};

/* Whether key is an optional section the file declares (a version 2 "sections" entry):
 * one a newer writer added, which this reader skips.  A required one it does not know
 * was refused already (check_sections). */
static bool declared(const struct loader *l, const char *key)
{
    size_t i;
    json_t *s;
    json_array_foreach(l->sections, i, s)
        if (!strcmp(json_string_value(json_object_get(s, "name")), key))
            return true;
    return false;
}

int cprof_get_fields(struct loader *l, json_t *obj, const struct field *f, size_t n,
                     const char *where)
{
    if (!json_is_object(obj))
        return cprof_fail(l, "invalid profile: %s is not an object", where);
    size_t present = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_object_get(obj, f[i].key);
        json_type type = f[i].type & ~(OPTIONAL | BOOLEAN);
        if (!v && (f[i].type & OPTIONAL))
            continue;
        present += v != NULL;
        if (!v)
            return cprof_fail(l, "invalid profile: %s has no \"%s\"", where, f[i].key);
        /* A real-valued field may be written as an integer: 19 is 19.0. */
        int same = json_typeof(v) == type || (type == JSON_REAL && json_is_number(v)) ||
                   ((f[i].type & BOOLEAN) && json_is_boolean(v));
        if (!same)
            return cprof_fail(l, "invalid profile: %s: \"%s\" is not %s", where, f[i].key,
                        f[i].type & BOOLEAN ? "true or false" : type_name[type]);
        switch (type) {
        case JSON_STRING:
            *(const char **)f[i].out = json_string_value(v);
            break;
        case JSON_INTEGER:
            if (json_integer_value(v) < f[i].min)
                return cprof_fail(l, "invalid profile: %s: \"%s\" is %" JSON_INTEGER_FORMAT
                            ", below %lld", where, f[i].key, json_integer_value(v),
                            (long long)f[i].min);
            *(int64_t *)f[i].out = json_integer_value(v);
            break;
        case JSON_REAL:
            if (json_number_value(v) < (double)f[i].min)
                return cprof_fail(l, "invalid profile: %s: \"%s\" is below %lld", where, f[i].key,
                            (long long)f[i].min);
            *(double *)f[i].out = json_number_value(v);
            break;
        default:
            *(json_t **)f[i].out = v;
        }
    }
    /* The file is exactly what docs/profile-format.md lists, and the sections a version
     * 2 file declares: anything more means the writer and this reader disagree about the
     * format. */
    if (json_object_size(obj) != present) {
        const char *key;
        json_t *v;
        json_object_foreach(obj, key, v) {
            size_t i = 0;
            while (i < n && strcmp(key, f[i].key))
                i++;
            if (i == n && !declared(l, key))
                return cprof_fail(l, "invalid profile: %s has an unexpected key \"%s\"", where, key);
        }
    }
    return 0;
}

/* The same, where_fmt naming obj. */
__attribute__((format(printf, 5, 6)))
static int get_fields(struct loader *l, json_t *obj, const struct field *f, size_t n,
                      const char *where_fmt, ...)
{
    char where[128];
    va_list ap;
    va_start(ap, where_fmt);
    vsnprintf(where, sizeof where, where_fmt, ap);
    va_end(ap);
    return cprof_get_fields(l, obj, f, n, where);
}

/* A column that holds an index into one of the file's tables. */
struct index_col {
    size_t limit;
    const char *table;
};

/* How a table's rows are laid out in the file: nfile columns (or nold, an older
 * writer's, the rest 0), file column c being schema column to_schema[c] (-1: one this
 * reader does not know, skipped); to_schema NULL: the schema's order (version 1). */
struct layout {
    size_t nfile, nold;
    const int *to_schema;
};

/* Copy worker w's table k into rows in the schema's order: the first nidx schema
 * columns are indexes described by idx, the others counts and times, never negative.
 * The table is flat where rows.c read it from the text, else the array arr. */
static int get_rows(struct loader *l, json_t *arr, const struct raw_table *flat, size_t w,
                    int k, const struct layout *lay, const struct index_col *idx, size_t nidx,
                    int64_t (**rows)[MAX_COLS], size_t *nrows)
{
    const char *name = cprof_row_tables[k];
    *nrows = flat ? flat->nrows : json_array_size(arr);
    *rows = cprof_xcalloc(*nrows, sizeof **rows);
    for (size_t i = 0; i < *nrows; i++) {
        json_t *row = flat ? NULL : json_array_get(arr, i);
        /* A table of empty rows has no values at all (v null). */
        const int64_t *fv = flat && flat->v ? flat->v + flat->start[i] : NULL;
        size_t n = flat ? flat->start[i + 1] - flat->start[i] : json_array_size(row);
        if ((!flat && !json_is_array(row)) || (n != lay->nfile && n != lay->nold))
            return cprof_fail(l, "invalid profile: workers[%zu].%s[%zu] is not an array of %zu"
                        " (or %zu) integers", w, name, i, lay->nfile, lay->nold);
        for (size_t c = 0; c < n; c++) {
            json_t *v = flat ? NULL : json_array_get(row, c);
            if (!flat && !json_is_integer(v))
                return cprof_fail(l, "invalid profile: workers[%zu].%s[%zu]: column %zu is not"
                            " an integer", w, name, i, c);
            int64_t x = flat ? fv[c] : json_integer_value(v);
            if (x < 0)
                return cprof_fail(l, "invalid profile: workers[%zu].%s[%zu]: column %zu is"
                            " negative", w, name, i, c);
            int to = lay->to_schema ? lay->to_schema[c] : (int)c;
            if (to < 0)
                continue;
            if ((size_t)to < nidx && (uint64_t)x >= idx[to].limit)
                return cprof_fail(l, "invalid profile: workers[%zu].%s[%zu]: column %zu: index %"
                            PRId64 " out of range (%zu %s)", w, name, i, c, x,
                            idx[to].limit, idx[to].table);
            (*rows)[i][to] = x;
        }
    }
    return 0;
}

/* A paths row names its parent and the context it folds into by an earlier row (or 0),
 * a site and a routine where its kind has them. */
static int check_paths(struct loader *l, const struct raw_file *rf, const struct raw_worker *w,
                       size_t wi)
{
    for (size_t i = 0; i < w->npath_rows; i++) {
        const int64_t *v = w->path_rows[i];
        int64_t kind = v[CPROF_P_KIND];
        bool construct = kind == CPROF_PATH_REGION || kind == CPROF_PATH_TASK;
        int bad = kind > CPROF_PATH_TASK ? CPROF_P_KIND
                  : (uint64_t)v[CPROF_P_PARENT] > i ? CPROF_P_PARENT
                  : (uint64_t)v[CPROF_P_FOLDS] > i ? CPROF_P_FOLDS
                  : kind == CPROF_PATH_CALL && (uint64_t)v[CPROF_P_SITE] >= rf->nsites ? CPROF_P_SITE
                  : construct && (uint64_t)v[CPROF_P_SITE] > rf->nsites ? CPROF_P_SITE
                  : kind != CPROF_PATH_OTHER && !construct && (uint64_t)v[CPROF_P_CALLEE] >= rf->nroutines
                      ? CPROF_P_CALLEE
                      : -1;
        if (bad >= 0)
            return cprof_fail(l, "invalid profile: workers[%zu].paths[%zu]: %s %lld out of range",
                              wi, i, cprof_path_columns[bad].name, (long long)v[bad]);
    }
    return 0;
}

/* A regions row names a construct's site (+ 1; 0: unnamed) that is one of the kind
 * it says, and its team sizes in order. */
static int check_regions(struct loader *l, const struct raw_file *rf, const struct raw_worker *w,
                         size_t wi)
{
    for (size_t i = 0; i < w->nregion_rows; i++) {
        const int64_t *v = w->region_rows[i];
        long long site = v[CPROF_G_CONSTRUCT], kind = v[CPROF_G_KIND];
        const char *c = site && (uint64_t)site <= rf->nsites ? rf->sites[site - 1].construct : NULL;
        bool known = kind >= CPROF_REGION_PARALLEL && kind < CPROF_REGION_NKINDS;
        const char *want = known ? cprof_region_kinds[kind] : "";
        char why[128] = "";
        if ((uint64_t)site > rf->nsites)
            snprintf(why, sizeof why, "construct %lld out of range (%zu sites)", site, rf->nsites);
        else if (site && !c)
            snprintf(why, sizeof why, "construct %lld: site %lld is no construct", site, site - 1);
        else if (!known)
            snprintf(why, sizeof why, "kind %lld out of range (1 to %d)", kind, CPROF_REGION_NKINDS - 1);
        else if (c && strcmp(c, want))
            snprintf(why, sizeof why, "kind %lld (%s), but site %lld is a %s", kind, want,
                     site - 1, c);
        else if (v[CPROF_G_TEAM_MIN] > v[CPROF_G_TEAM_MAX])
            snprintf(why, sizeof why, "team_min %lld above team_max %lld",
                     (long long)v[CPROF_G_TEAM_MIN], (long long)v[CPROF_G_TEAM_MAX]);
        if (*why)
            return cprof_fail(l, "invalid profile: workers[%zu].regions[%zu]: %s", wi, i, why);
    }
    return 0;
}

/* The layouts of the tables of worker rows; "regions" is optional (declared: whether
 * the header's "columns" names its columns). */
struct layouts {
    struct layout t[NTABLES];
    int *map[NTABLES];
    bool regions_declared;
    bool path_self;         /* the paths rows have self_time (and self_direct) */
};

/* Version 1: the schema's order.  Version 2: the order the file's "columns" names,
 * which must hold every column the schema has, once; names it does not know (a newer
 * writer's columns, a metric's: docs/profile-format.md) are skipped. */
/* Column name of a paths table that holds samples: the resource's index in rf and the
 * side (0 sequential, 1 concurrent), or -1. */
static int samples_column(const struct raw_file *rf, const char *name, int *side)
{
    for (size_t r = 0; r < rf->nresources; r++)
        for (int k = 0; k < 2; k++) {
            char want[160];
            snprintf(want, sizeof want, CPROF_SAMPLES_COLUMN, k ? 'c' : 's', rf->resources[r].name);
            if (!strcmp(name, want)) {
                *side = k;
                return (int)r;
            }
        }
    return -1;
}

static int get_layouts(struct loader *l, const struct raw_file *rf, json_t *columns,
                       struct layouts *ls)
{
    /* n: the columns the file must have; all: the schema's */
    static const struct { const struct cprof_column *cols; size_t n, nold, all; } schema[NTABLES] = {
        {cprof_routine_columns, CPROF_ROUTINE_NCOLUMNS_REQUIRED, CPROF_ROUTINE_NCOLUMNS_OLD,
         CPROF_ROUTINE_NCOLUMNS},
        {cprof_call_columns, CPROF_CALL_NCOLUMNS, CPROF_CALL_NCOLUMNS_OLD, CPROF_CALL_NCOLUMNS},
        {cprof_path_columns, CPROF_PATH_NCOLUMNS_REQUIRED, CPROF_PATH_NCOLUMNS_REQUIRED,
         CPROF_PATH_NCOLUMNS},
        {cprof_region_columns, CPROF_REGION_NCOLUMNS, CPROF_REGION_NCOLUMNS, CPROF_REGION_NCOLUMNS},
    };
    for (int t = 0; t < NTABLES; t++) {
        ls->t[t] = (struct layout){schema[t].n, schema[t].nold, NULL};
        json_t *names = json_object_get(columns, cprof_row_tables[t]);
        if (!columns || (t == T_REGIONS && !names))
            continue;
        ls->regions_declared |= t == T_REGIONS;
        size_t n = json_array_size(names);
        if (!json_is_array(names))
            return cprof_fail(l, "invalid profile: \"columns\" has no array \"%s\"", cprof_row_tables[t]);
        int *map = ls->map[t] = cprof_xcalloc(n + 1, sizeof *map);
        bool *seen = cprof_xcalloc(schema[t].all, sizeof *seen);
        int rc = 0;
        for (size_t c = 0; c < n && !rc; c++) {
            const char *name = json_string_value(json_array_get(names, c));
            map[c] = -1;
            for (size_t k = 0; name && k < schema[t].all; k++)
                if (!strcmp(name, schema[t].cols[k].name))
                    map[c] = (int)k;
            int side, r = t == T_PATHS && name && map[c] < 0 ? samples_column(rf, name, &side) : -1;
            if (r >= 0 && rf->resources[r].period == 0)
                rc = cprof_fail(l, "invalid profile: \"columns\".paths has samples of %s, which"
                                " is not sampled", rf->resources[r].name);
            else if (r >= 0)
                map[c] = SAMPLES_COL(r) + side;
            if (!name)
                rc = cprof_fail(l, "invalid profile: \"columns\".%s[%zu] is not a string",
                                cprof_row_tables[t], c);
            else if (map[c] >= 0 && map[c] < (int)schema[t].all && seen[map[c]])
                rc = cprof_fail(l, "invalid profile: \"columns\".%s names \"%s\" twice",
                                cprof_row_tables[t], name);
            else if (map[c] >= 0 && map[c] < (int)schema[t].all)
                seen[map[c]] = true;
        }
        for (size_t k = 0; k < schema[t].n && !rc; k++)
            if (!seen[k])
                rc = cprof_fail(l, "invalid profile: \"columns\".%s has no \"%s\"", cprof_row_tables[t],
                                schema[t].cols[k].name);
        if (t == T_PATHS && seen[CPROF_P_SELF_TIME] != seen[CPROF_P_SELF_DIRECT] && !rc)
            rc = cprof_fail(l, "invalid profile: \"columns\".paths has one of \"self_time\" and"
                            " \"self_direct\" without the other");
        ls->path_self |= t == T_PATHS && seen[CPROF_P_SELF_TIME];
        free(seen);
        for (size_t r = 0; t == T_PATHS && r < rf->nresources && !rc; r++) {
            bool found[2] = {false, false};
            for (size_t c = 0; c < n; c++)
                for (int k = 0; k < 2; k++)
                    found[k] |= map[c] == (int)SAMPLES_COL(r) + k;
            if (rf->resources[r].period && json_is_true(rf->resources[r].available) &&
                !(found[0] && found[1]))
                rc = cprof_fail(l, "invalid profile: \"columns\".paths has no samples of %s",
                                rf->resources[r].name);
        }
        if (rc)
            return rc;
        ls->t[t] = (struct layout){n, n, map};
    }
    return 0;
}

/* The header's "resources" (docs/resources.md): each resource once. */
static int get_resources(struct loader *l, struct raw_file *rf, json_t *arr)
{
    rf->nresources = json_array_size(arr);
    if (rf->nresources > CPROF_RESOURCES_MAX)
        return cprof_fail(l, "invalid profile: more than %d resources", CPROF_RESOURCES_MAX);
    for (size_t i = 0; i < rf->nresources; i++) {
        struct raw_resource *r = &rf->resources[i];
        const struct field f[] = {
            {"name", JSON_STRING, &r->name, 0},
            {"unit", JSON_STRING, &r->unit, 0},
            {"event", JSON_STRING, &r->event, 0},
            {"period", JSON_INTEGER, &r->period, 0},
            {"available", JSON_TRUE | BOOLEAN, &r->available, 0},
            {"reason", JSON_STRING | OPTIONAL, &r->reason, 0},
        };
        if (get_fields(l, json_array_get(arr, i), f, NELEM(f), "resources[%zu]", i))
            return -1;
        for (size_t k = 0; k < i; k++)
            if (!strcmp(rf->resources[k].name, r->name))
                return cprof_fail(l, "invalid profile: resource \"%s\" is declared twice", r->name);
    }
    return 0;
}

/* The header's "trace" (docs/tracing.md): the file beside the profile, read by --trace
 * and --timeline alone; the rest of the report counts its events. */
static int get_trace(struct loader *l, struct raw_file *rf, json_t *obj)
{
    const char *file, *when_full, *include, *exclude;
    int64_t bytes, buffer, min_ns;
    const struct field f[] = {
        {"file", JSON_STRING, &file, 0},
        {"bytes", JSON_INTEGER, &bytes, 0},
        {"events", JSON_INTEGER, &rf->trace_events, 0},
        {"dropped", JSON_INTEGER, &rf->trace_dropped, 0},
        {"buffer", JSON_INTEGER, &buffer, 0},
        {"when_full", JSON_STRING, &when_full, 0},
        {"min_ns", JSON_INTEGER, &min_ns, 0},
        {"include", JSON_STRING, &include, 0},
        {"exclude", JSON_STRING, &exclude, 0},
    };
    rf->traced = true;
    return get_fields(l, obj, f, NELEM(f), "\"%s\"", CPROF_SECTION_TRACE);
}

/* The header's "openmp": the runtime, how cprof observed it, what it could not. */
static int get_openmp(struct loader *l, struct raw_file *rf, json_t *obj)
{
    const char *version;
    const struct field f[] = {
        {"runtime", JSON_STRING, &rf->omp_runtime, 0},
        {"version", JSON_STRING | OPTIONAL, &version, 0},
        {"observed", JSON_STRING, &rf->omp_observed, 0},
        {"cases", JSON_TRUE | BOOLEAN, &rf->omp_cases, 0},
        {"regions", JSON_TRUE | BOOLEAN, &rf->omp_regions, 0},
        {"reason", JSON_STRING | OPTIONAL, &rf->omp_reason, 0},
    };
    return get_fields(l, obj, f, NELEM(f), "\"%s\"", CPROF_SECTION_OPENMP);
}

/* The header's "overhead" (docs/overhead.md): CPU samples, of which some in cprof's
 * code; or none, and why. */
static int get_overhead(struct loader *l, struct raw_file *rf, json_t *obj)
{
    rf->ovh_samples = rf->ovh_in_cprof = rf->ovh_period_ns = -1;     /* -1: absent */
    const struct field f[] = {
        {"method", JSON_STRING, &rf->ovh_method, 0},
        {"samples", JSON_INTEGER | OPTIONAL, &rf->ovh_samples, 0},
        {"in_cprof", JSON_INTEGER | OPTIONAL, &rf->ovh_in_cprof, 0},
        {"period_ns", JSON_INTEGER | OPTIONAL, &rf->ovh_period_ns, 1},
        {"not_covered", JSON_STRING | OPTIONAL, &rf->ovh_not_covered, 0},
        {"reason", JSON_STRING | OPTIONAL, &rf->ovh_reason, 0},
    };
    if (get_fields(l, obj, f, NELEM(f), "\"%s\"", CPROF_SECTION_OVERHEAD))
        return -1;
    if (!strcmp(rf->ovh_method, "none")) {
        if (!rf->ovh_reason || rf->ovh_samples >= 0 || rf->ovh_in_cprof >= 0)
            return cprof_fail(l, "invalid profile: \"%s\" with method \"none\" has a \"reason\""
                              " and no samples", CPROF_SECTION_OVERHEAD);
        return 0;
    }
    if (strcmp(rf->ovh_method, "cpu samples"))
        return cprof_fail(l, "invalid profile: \"%s\": method \"%s\" is neither \"cpu samples\""
                          " nor \"none\"", CPROF_SECTION_OVERHEAD, rf->ovh_method);
    if (rf->ovh_samples < 0 || rf->ovh_in_cprof < 0 || rf->ovh_period_ns < 0 || !rf->ovh_not_covered)
        return cprof_fail(l, "invalid profile: \"%s\" with method \"cpu samples\" needs"
                          " \"samples\", \"in_cprof\", \"period_ns\" (positive) and"
                          " \"not_covered\"", CPROF_SECTION_OVERHEAD);
    if (rf->ovh_in_cprof > rf->ovh_samples)
        return cprof_fail(l, "invalid profile: \"%s\": %lld samples in cprof's code of %lld",
                          CPROF_SECTION_OVERHEAD, (long long)rf->ovh_in_cprof,
                          (long long)rf->ovh_samples);
    return 0;
}

/* The units compiled without profiling (docs/cprof-cc.md), each {"file", "reason"}. */
static int get_unprofiled(struct loader *l, struct raw_file *rf, json_t *arr)
{
    rf->nunprofiled = json_array_size(arr);
    rf->unprofiled = cprof_xcalloc(rf->nunprofiled + 1, sizeof *rf->unprofiled);
    for (size_t i = 0; i < rf->nunprofiled; i++) {
        struct raw_unprofiled *u = &rf->unprofiled[i];
        const struct field f[] = {
            {"file", JSON_STRING, &u->file, 0},
            {"reason", JSON_STRING, &u->reason, 0},
        };
        if (get_fields(l, json_array_get(arr, i), f, NELEM(f), "%s[%zu]", CPROF_SECTION_UNPROFILED, i))
            return -1;
    }
    return 0;
}

/* The "sources" section (docs/source.md): per unit, its files. */
static int get_sources(struct loader *l, struct raw_file *rf, json_t *arr)
{
    rf->has_sources = true;
    rf->nunits = json_array_size(arr);
    rf->units = cprof_xcalloc(rf->nunits, sizeof *rf->units);
    for (size_t i = 0; i < rf->nunits; i++) {
        struct raw_unit *u = &rf->units[i];
        json_t *files;
        const struct field f[] = {
            {"unit", JSON_STRING, &u->file, 0},
            {"files", JSON_ARRAY, &files, 0},
        };
        if (get_fields(l, json_array_get(arr, i), f, NELEM(f), "sources[%zu]", i))
            return -1;
        u->nfiles = json_array_size(files);
        u->files = cprof_xcalloc(u->nfiles, sizeof *u->files);
        for (size_t k = 0; k < u->nfiles; k++) {
            struct raw_source *x = &u->files[k];
            const struct field g[] = {
                {"name", JSON_STRING, &x->name, 0},
                {"path", JSON_STRING | OPTIONAL, &x->path, 0},
                {"bytes", JSON_INTEGER, &x->bytes, -1},
                {"hash", JSON_STRING | OPTIONAL, &x->hash, 0},
            };
            if (get_fields(l, json_array_get(files, k), g, NELEM(g), "sources[%zu].files[%zu]", i, k))
                return -1;
            if ((x->bytes < 0) != !x->hash)
                return cprof_fail(l, "invalid profile: sources[%zu].files[%zu] has %s", i, k,
                                  x->hash ? "a hash but no size" : "a size but no hash");
        }
    }
    return 0;
}

/* A worker's "resources": per resource, [total or null, samples outside any profiled
 * activation entered sequentially, concurrently]. */
static int get_worker_resources(struct loader *l, const struct raw_file *rf,
                                struct raw_worker *w, json_t *arr, size_t wi)
{
    if (!arr && rf->nresources)
        return cprof_fail(l, "invalid profile: workers[%zu] has no \"resources\"", wi);
    if (arr && json_array_size(arr) != rf->nresources)
        return cprof_fail(l, "invalid profile: workers[%zu].resources does not have one entry per"
                          " resource (%zu)", wi, rf->nresources);
    for (size_t r = 0; r < rf->nresources; r++) {
        json_t *e = json_array_get(arr, r), *total = json_array_get(e, 0);
        json_t *s = json_array_get(e, 1), *c = json_array_get(e, 2);
        if (json_array_size(e) != 3 || !(json_is_null(total) || json_is_integer(total)) ||
            !json_is_integer(s) || !json_is_integer(c) ||
            (json_is_integer(total) && json_integer_value(total) < 0) ||
            json_integer_value(s) < 0 || json_integer_value(c) < 0)
            return cprof_fail(l, "invalid profile: workers[%zu].resources[%zu] is not [total or"
                              " null, samples, samples] of integers not below 0", wi, r);
        w->res_total[r] = json_is_null(total) ? -1 : json_integer_value(total);
        w->res_outside[r][0] = json_integer_value(s);
        w->res_outside[r][1] = json_integer_value(c);
    }
    return 0;
}

static int get_workers(struct loader *l, struct raw_file *rf, json_t *arr,
                       const struct layouts *ls, const struct row_tables *rt)
{
    rf->nworkers = json_array_size(arr);
    rf->workers = cprof_xcalloc(rf->nworkers, sizeof *rf->workers);
    bool *seen = cprof_xcalloc(rf->nworkers, sizeof *seen);
    int rc = 0;
    for (size_t i = 0; i < rf->nworkers && !rc; i++) {
        int64_t id;
        struct raw_worker tmp = {0};
        json_t *routines, *calls, *paths = NULL, *resources = NULL, *regions = NULL;
        json_t *sampled = NULL;  /* read by estimates.c */
        const struct field f[] = {
            {"id", JSON_INTEGER, &id, 0},
            {"tid", JSON_INTEGER, &tmp.tid, 0},
            {"omp_thread", JSON_INTEGER, &tmp.omp_thread, 0},
            {"pu", JSON_INTEGER, &tmp.pu, 0},
            {"core", JSON_INTEGER, &tmp.core, -1},
            {"routines", JSON_ARRAY, &routines, 0},
            {"calls", JSON_ARRAY, &calls, 0},
            {"paths", JSON_ARRAY | OPTIONAL, &paths, 0},
            {"resources", JSON_ARRAY | OPTIONAL, &resources, 0},
            {CPROF_SECTION_REGIONS, JSON_ARRAY | OPTIONAL, &regions, 0},
            {CPROF_SECTION_PLACEMENT, JSON_OBJECT | OPTIONAL, &tmp.placement, 0},
            {"sampled", JSON_ARRAY | OPTIONAL, &sampled, 0},
        };
        rc = get_fields(l, json_array_get(arr, i), f, NELEM(f), "workers[%zu]", i);
        if (!rc && sampled && !declared(l, CPROF_SECTION_TIMING))
            rc = cprof_fail(l, "invalid profile: workers[%zu] has \"sampled\" without the \"%s\""
                            " section", i, CPROF_SECTION_TIMING);
        if (rc)
            break;
        /* Ids are dense: n workers are 0..n-1, each once. */
        if ((uint64_t)id >= rf->nworkers) {
            rc = cprof_fail(l, "invalid profile: workers[%zu]: id %lld out of range (%zu workers)",
                      i, (long long)id, rf->nworkers);
            break;
        }
        if (seen[id]) {
            rc = cprof_fail(l, "invalid profile: workers[%zu]: duplicate worker id %lld", i,
                      (long long)id);
            break;
        }
        seen[id] = true;
        struct raw_worker *w = &rf->workers[id];
        *w = tmp;
        const struct index_col routine_idx[] = {{rf->nroutines, "routines"}};
        const struct index_col call_idx[] = {{rf->nsites, "sites"},
                                             {rf->nroutines, "routines"}};
        /* The tables rows.c read from the text, if it did. */
        const struct raw_table *flat[NTABLES] = {0};
        for (int k = 0; k < NTABLES && i < rt->nworkers; k++)
            flat[k] = rt->has[i][k] ? &rt->t[i][k] : NULL;
        rc = get_rows(l, routines, flat[T_ROUTINES], i, T_ROUTINES, &ls->t[T_ROUTINES],
                      routine_idx, 1, &w->routine_rows, &w->nroutine_rows);
        if (!rc)
            rc = get_rows(l, calls, flat[T_CALLS], i, T_CALLS, &ls->t[T_CALLS], call_idx, 2,
                          &w->call_rows, &w->ncall_rows);
        if (!rc && paths)
            rc = get_rows(l, paths, flat[T_PATHS], i, T_PATHS, &ls->t[T_PATHS], NULL, 0,
                          &w->path_rows, &w->npath_rows);
        if (!rc)
            rc = check_paths(l, rf, w, i);
        if (!rc && regions && !ls->regions_declared)
            rc = cprof_fail(l, "invalid profile: workers[%zu] has \"regions\", but \"columns\""
                            " has none", i);
        if (!rc && regions)
            rc = get_rows(l, regions, flat[T_REGIONS], i, T_REGIONS, &ls->t[T_REGIONS], NULL, 0,
                          &w->region_rows, &w->nregion_rows);
        if (!rc)
            rc = check_regions(l, rf, w, i);
        if (!rc)
            rc = get_worker_resources(l, rf, w, resources, i);
    }
    free(seen);
    return rc;
}

void cprof_raw_free(struct raw_file *rf)
{
    for (size_t w = 0; w < rf->nworkers; w++) {
        free(rf->workers[w].routine_rows);
        free(rf->workers[w].call_rows);
        free(rf->workers[w].path_rows);
        free(rf->workers[w].region_rows);
    }
    free(rf->workers);
    free(rf->sites);
    free(rf->routines);
    free(rf->unprofiled);
    for (size_t i = 0; i < rf->nunits; i++)
        free(rf->units[i].files);
    free(rf->units);
    json_decref(rf->root);
}

static int check_format(struct loader *l, json_t *root)
{
    if (!json_is_object(root))
        return cprof_fail(l, "not a cprof profile (the JSON document is not an object)");
    json_t *format = json_object_get(root, "format");
    json_t *version = json_object_get(root, "version");
    if (!json_is_string(format) || strcmp(json_string_value(format), CPROF_FORMAT_NAME))
        return cprof_fail(l, "not a cprof profile (\"format\" is not \"cprof-profile\")");
    if (!json_is_integer(version))
        return cprof_fail(l, "not a cprof profile (\"version\" is missing or not an integer)");
    if (json_integer_value(version) != 1 && json_integer_value(version) != CPROF_FORMAT_VERSION)
        return cprof_fail(l, "unsupported profile version %" JSON_INTEGER_FORMAT
                    " (this cprof-report reads versions 1 to %d)", json_integer_value(version),
                    CPROF_FORMAT_VERSION);
    return 0;
}

/* Version 2's "sections": the additions a writer declares, each {"name", "required"}.
 * This reader knows every one format/schema.h lists (cprof_sections: "job" read with
 * the header, "input_sizes" by sizes.c, "topology" and "placement" by placement.c,
 * "sources" by sources.c, "unprofiled" here...); another optional one is skipped
 * (get_fields lets its key by), another required one refuses the file. */
static int check_sections(struct loader *l, json_t *sections)
{
    size_t i;
    json_t *s;
    json_array_foreach(sections, i, s) {
        json_t *name = json_object_get(s, "name"), *required = json_object_get(s, "required");
        if (!json_is_object(s) || !json_is_string(name) || !json_is_boolean(required) ||
            json_object_size(s) != 2)
            return cprof_fail(l, "invalid profile: sections[%zu] is not {\"name\", \"required\"}", i);
        size_t k = 0;
        while (k < NELEM(cprof_sections) && strcmp(json_string_value(name), cprof_sections[k]))
            k++;
        if (json_is_true(required) && k == NELEM(cprof_sections))
            return cprof_fail(l, "needs section \"%s\", which this cprof-report cannot read (a"
                              " newer cprof wrote it)", json_string_value(name));
    }
    return 0;
}

/* The parsed document, its tables of rows where rows.c read them. */
static int read_document(struct loader *l, struct raw_file *rf, const struct row_tables *rt)
{
    l->sections = NULL;
    if (check_format(l, rf->root))
        return -1;

    const char *format;
    json_t *machine = NULL, *routines = NULL, *sites = NULL, *workers = NULL;
    json_t *columns = NULL, *metrics = NULL, *sections = NULL, *resources = NULL, *trace = NULL;
    json_t *sources = NULL, *openmp = NULL, *unprofiled = NULL, *overhead = NULL;
    rf->rank = rf->size = -1;
    rf->job = "";
    const struct field top[] = {
        {"format", JSON_STRING, &format, 0},
        {"version", JSON_INTEGER, &rf->version, 0},
        /* version 2 */
        {"columns", JSON_OBJECT | OPTIONAL, &columns, 0},
        {"metrics", JSON_ARRAY | OPTIONAL, &metrics, 0},
        {"sections", JSON_ARRAY | OPTIONAL, &sections, 0},
        {"host", JSON_STRING | OPTIONAL, &rf->host, 0},
        {"rank", JSON_INTEGER | OPTIONAL, &rf->rank, -1},
        {"size", JSON_INTEGER | OPTIONAL, &rf->size, -1},
        {CPROF_SECTION_JOB, JSON_STRING | OPTIONAL, &rf->job, 0},
        {"cprof_version", JSON_STRING | OPTIONAL, &rf->cprof_version, 0},
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
        {"resources", JSON_ARRAY | OPTIONAL, &resources, 0},
        {CPROF_SECTION_TRACE, JSON_OBJECT | OPTIONAL, &trace, 0},
        {CPROF_SECTION_OPENMP, JSON_OBJECT | OPTIONAL, &openmp, 0},
        {CPROF_SECTION_UNPROFILED, JSON_ARRAY | OPTIONAL, &unprofiled, 0},
        {CPROF_SECTION_PLACEMENT, JSON_OBJECT | OPTIONAL, &rf->placement, 0},
        {CPROF_SECTION_SOURCES, JSON_ARRAY | OPTIONAL, &sources, 0},
        {CPROF_SECTION_OVERHEAD, JSON_OBJECT | OPTIONAL, &overhead, 0},
    };
    const struct field mach[] = {
        {"pus", JSON_INTEGER, &rf->pus, -1},      /* -1: unknown */
        {"cores", JSON_INTEGER, &rf->cores, -1},
        {"packages", JSON_INTEGER, &rf->packages, -1},
        {CPROF_SECTION_TOPOLOGY, JSON_OBJECT | OPTIONAL, &rf->topology, 0},
    };
    /* The sections first: their keys pass get_fields (version 2 only). */
    if (json_integer_value(json_object_get(rf->root, "version")) >= 2) {
        sections = json_object_get(rf->root, "sections");
        if (check_sections(l, sections))
            return -1;
        l->sections = sections;
    }
    if (get_fields(l, rf->root, top, NELEM(top), "the profile") ||
        get_fields(l, machine, mach, NELEM(mach), "\"machine\""))
        return -1;
    if ((trace && get_trace(l, rf, trace)) || get_unprofiled(l, rf, unprofiled))
        return -1;
    if (openmp && get_openmp(l, rf, openmp))
        return -1;
    bool v2 = rf->version >= 2;
    if (v2 != (columns && metrics && rf->host && json_object_get(rf->root, "rank") &&
               json_object_get(rf->root, "size")))
        return cprof_fail(l, "invalid profile: version %lld %s \"columns\", \"metrics\", \"host\","
                          " \"rank\" and \"size\"", (long long)rf->version, v2 ? "needs" : "has no");
    if (!v2 && json_object_get(rf->root, CPROF_SECTION_JOB))
        return cprof_fail(l, "invalid profile: version 1 has no \"%s\"", CPROF_SECTION_JOB);
    if (sources && !declared(l, CPROF_SECTION_SOURCES))
        return cprof_fail(l, "invalid profile: \"%s\" without its section", CPROF_SECTION_SOURCES);
    if (sources && get_sources(l, rf, sources))
        return -1;
    if (overhead && !declared(l, CPROF_SECTION_OVERHEAD))
        return cprof_fail(l, "invalid profile: \"%s\" without its section", CPROF_SECTION_OVERHEAD);
    if (overhead && get_overhead(l, rf, overhead))
        return -1;
    if (rf->rank >= 0 && rf->size >= 0 && rf->rank >= rf->size)
        return cprof_fail(l, "invalid profile: rank %lld is not below size %lld",
                          (long long)rf->rank, (long long)rf->size);
    /* Times are ns of elapsed time: the first metric.  Others are a newer writer's, their
     * columns skipped by name. */
    json_t *first = json_array_get(metrics, 0);
    if (v2 && (!json_is_string(json_object_get(first, "name")) ||
               strcmp(json_string_value(json_object_get(first, "name")), "time")))
        return cprof_fail(l, "invalid profile: the first of \"metrics\" is not \"time\"");

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
            {CPROF_SECTION_SOURCES, JSON_INTEGER | OPTIONAL, &r->unit, 0},
        };
        r->unit = -1;
        if (get_fields(l, json_array_get(routines, i), f, NELEM(f), "routines[%zu]", i))
            return -1;
        if (r->unit >= (int64_t)rf->nunits)
            return cprof_fail(l, "invalid profile: routines[%zu]: unit %lld out of range (%zu in"
                              " \"%s\")", i, (long long)r->unit, rf->nunits, CPROF_SECTION_SOURCES);
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
            {"construct", JSON_STRING | OPTIONAL, &s->construct, 0},
            {"untimed_at_site", JSON_TRUE | OPTIONAL, &s->untimed_at_site, 0},
            {CPROF_SECTION_SOURCES, JSON_INTEGER | OPTIONAL, &s->unit, 0},
        };
        s->unit = -1;
        if (get_fields(l, json_array_get(sites, i), f, NELEM(f), "sites[%zu]", i))
            return -1;
        if (s->unit >= (int64_t)rf->nunits)
            return cprof_fail(l, "invalid profile: sites[%zu]: unit %lld out of range (%zu in"
                              " \"%s\")", i, (long long)s->unit, rf->nunits, CPROF_SECTION_SOURCES);
        if ((uint64_t)s->caller >= rf->nroutines)
            return cprof_fail(l, "invalid profile: sites[%zu]: caller index %lld out of range"
                        " (%zu routines)", i, (long long)s->caller, rf->nroutines);
        int k = CPROF_REGION_PARALLEL;
        while (s->construct && k < CPROF_REGION_NKINDS && strcmp(s->construct, cprof_region_kinds[k]))
            k++;
        if (k == CPROF_REGION_NKINDS)
            return cprof_fail(l, "invalid profile: sites[%zu]: construct \"%s\" is no construct"
                              " this reader knows", i, s->construct);
    }

    struct layouts ls = {0};
    int rc = get_resources(l, rf, resources);
    if (!rc)
        rc = get_layouts(l, rf, columns, &ls);
    rf->path_self = ls.path_self;
    if (!rc)
        rc = get_workers(l, rf, workers, &ls, rt);
    for (int t = 0; t < NTABLES; t++)
        free(ls.map[t]);
    return rc;
}

int cprof_raw_read(struct loader *l, struct raw_file *rf)
{
    size_t len;
    char *text = read_whole(l, &len);
    if (!text)
        return -1;
    json_error_t je;
    struct row_tables rt;
    cprof_rows_take(text, len, &rt);
    rf->root = json_loadb(rt.text ? rt.text : text, rt.text ? rt.len : len,
                          JSON_REJECT_DUPLICATES, &je);
    /* Where the text is broken, the file's own line and column. */
    if (!rf->root && rt.text)
        json_decref(json_loadb(text, len, JSON_REJECT_DUPLICATES, &je));
    free(text);
    if (!rf->root) {
        cprof_rows_free(&rt);
        return cprof_fail(l, "not a cprof profile (truncated or corrupted JSON at line %d, column"
                    " %d: %s)", je.line, je.column, je.text);
    }
    int rc = read_document(l, rf, &rt);
    cprof_rows_free(&rt);
    return rc;
}

int cprof_file_read(const char *path, struct raw_file *rf, char *err, size_t errlen)
{
    struct loader l = {path, NULL, err, errlen};
    return cprof_raw_read(&l, rf);
}
