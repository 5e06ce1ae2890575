/* diff.c: --diff BEFORE AFTER, what changed per routine between two profiles.
 *
 * Routines are matched by (name, file); one that ran in only one profile counts 0 in
 * the other.  Every number is the one the flat profile and the cases section show for
 * the routine, so a change here is a change there.
 */
#define _GNU_SOURCE
#include "report.h"
#include "../model/alloc.h"

#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char summary_explain[] =
    "The two profiles compared, each with its program and elapsed time (summed over\n"
    "its files), and the change of elapsed time from before to after.\n";

static const char routines_explain[] =
    "One row per routine that ran in either profile, matched by name and file (a\n"
    "routine that ran in one only counts 0 in the other).  Changes are after - before.\n"
    "self, incl   the change of worker self and worker inclusive time (as in the flat\n"
    "             profile: summed over workers); self before and after are shown too\n"
    "calls        the change of all entries; S, C: of sequential and concurrent entries\n"
    "S-S ... C-C  the change of the calls the routine made, by case (as in the cases\n"
    "             section)\n"
    "imbalance    of the routine's concurrent entries, before and after: max / mean of\n"
    "             the per-worker times over the workers that entered it (empty: none)\n"
    "-            not measured: the times of a routine counted at its call sites in\n"
    "             that profile, or of a CPROF_MODE=count run, and so their change\n"
    "Rows are sorted by the size of the change of the --sort column (self by default;\n"
    "name: by name; a change not measured as none), largest first.  Times are in\n"
    "milliseconds.\n";

static const cprof_column summary_cols[] = {
    {"item", NULL, true},
    {NULL, "key", false},
    {"value", "value", true},
};

static const cprof_column routine_cols[] = {
    {"self", "self_worker_diff_ns", false},
    {"before", "self_worker_before_ns", false},
    {"after", "self_worker_after_ns", false},
    {"incl", "inclusive_worker_diff_ns", false},
    {NULL, "inclusive_worker_before_ns", false},
    {NULL, "inclusive_worker_after_ns", false},
    {"calls", "calls_diff", false},
    {NULL, "calls_before", false},
    {NULL, "calls_after", false},
    {"S", "s_calls_diff", false},
    {"C", "c_calls_diff", false},
    {"S-S", "ss_diff", false},
    {"S-C", "sc_diff", false},
    {"C-S", "cs_diff", false},
    {"C-C", "cc_diff", false},
    {"imbal before", "imbalance_before", false},
    {"imbal after", "imbalance_after", false},
    {"name", "name", true},
    {NULL, "file", false},
};

/* What one profile says of one routine. */
struct side {
    int64_t self, inclusive, calls, s_calls, c_calls, ss, sc, cs, cc;
    double imbalance;  /* 0: no concurrent entry */
    bool timed;        /* self and inclusive were measured (or it did not run there) */
    char self_mark, incl_mark;  /* estimated times (marks.c) */
};

struct row {
    const char *name, *file;
    char *label;       /* name, or "name (file)" if another row has the same name */
    struct side s[2];  /* before, after */
};

/* a - b, saturating, and never INT64_MIN (so that its sign can be taken off). */
static int64_t sub(int64_t a, int64_t b)
{
    int64_t d;
    if (__builtin_sub_overflow(a, b, &d))
        return a < b ? -INT64_MAX : INT64_MAX;
    return d < -INT64_MAX ? -INT64_MAX : d;
}

static void fill(struct side *s, const cprof_view *v, size_t i)
{
    const cprof_rview *r = &v->r[i];
    cprof_spread entries = cprof_view_spread(v, i, offsetof(cprof_prof_routine_worker, c_caller));
    *s = (struct side){
        r->self, r->inclusive, cprof_add(r->s_calls, r->c_calls), r->s_calls, r->c_calls,
        v->p->routines[i].s_callee.n,
        cprof_view_spread(v, i, offsetof(cprof_prof_routine_worker, c_callee)).sum.n,
        cprof_view_spread(v, i, offsetof(cprof_prof_routine_worker, cs_callee)).sum.n,
        cprof_view_spread(v, i, offsetof(cprof_prof_routine_worker, cc_callee)).sum.n,
        cprof_spread_imbalance(&entries), r->timed, cprof_mark(v, r->self_err),
        cprof_mark(v, r->incl_err),
    };
}

static int64_t key(const struct row *r, cprof_sort sort)
{
    if (sort != CPROF_SORT_CALLS && !(r->s[0].timed && r->s[1].timed))
        return 0;
    switch (sort) {
    case CPROF_SORT_INCLUSIVE:
        return sub(r->s[1].inclusive, r->s[0].inclusive);
    case CPROF_SORT_CALLS:
        return sub(r->s[1].calls, r->s[0].calls);
    default:
        return sub(r->s[1].self, r->s[0].self);
    }
}

/* Largest change (either sign) first; then by name and file. */
static int by_change(const void *x, const void *y, void *arg)
{
    const struct row *a = x, *b = y;
    cprof_sort sort = *(const cprof_sort *)arg;
    if (sort != CPROF_SORT_NAME) {
        int64_t ka = key(a, sort), kb = key(b, sort);
        ka = ka < 0 ? -ka : ka;
        kb = kb < 0 ? -kb : kb;
        if (ka != kb)
            return ka < kb ? 1 : -1;
    }
    int d = strcmp(a->name, b->name);
    return d ? d : strcmp(a->file, b->file);
}

/* The rows, matched by (name, file) (both profiles list routines in that order),
 * sorted; *n of them. */
static struct row *rows(const cprof_view *v[2], size_t *n)
{
    const cprof_profile *b = v[0]->p, *a = v[1]->p;
    struct row *out = cprof_xcalloc(b->nroutines + a->nroutines, sizeof *out);
    size_t i = 0, j = 0;
    *n = 0;
    while (i < b->nroutines || j < a->nroutines) {
        int d = i == b->nroutines   ? 1
                : j == a->nroutines ? -1
                                    : strcmp(b->routines[i].name, a->routines[j].name);
        if (!d)
            d = strcmp(b->routines[i].file, a->routines[j].file);
        bool ran = (d <= 0 && v[0]->r[i].ran) || (d >= 0 && v[1]->r[j].ran);
        struct row *r = &out[*n];
        *r = (struct row){0};
        r->s[0].timed = v[0]->timed;
        r->s[1].timed = v[1]->timed;
        if (d <= 0) {
            r->name = b->routines[i].name;
            r->file = b->routines[i].file;
            fill(&r->s[0], v[0], i++);
        }
        if (d >= 0) {
            r->name = a->routines[j].name;
            r->file = a->routines[j].file;
            fill(&r->s[1], v[1], j++);
        }
        *n += ran;
    }
    /* Rows are in name order here: rows sharing a name are neighbours. */
    for (size_t k = 0; k < *n; k++) {
        bool shared = (k > 0 && !strcmp(out[k - 1].name, out[k].name)) ||
                      (k + 1 < *n && !strcmp(out[k + 1].name, out[k].name));
        out[k].label = shared ? cprof_xasprintf("%s (%s)", out[k].name, out[k].file)
                              : cprof_xstrdup(out[k].name);
    }
    cprof_sort sort = v[0]->o->sort;
    qsort_r(out, *n, sizeof *out, by_change, &sort);
    return out;
}

static void imbalance_cell(cprof_table *t, double x)
{
    if (x > 0)
        cprof_cell_real(t, x);
    else
        cprof_cell_empty(t);
}

/* Two profiles of which fewer than half the routines that ran in the smaller one ran in
 * the other too: rather two programs than two runs of one (a rebuild is named anew, so
 * the programs' paths tell nothing). */
static bool unrelated(const struct row *r, size_t n, size_t *shared, size_t ran[2])
{
    *shared = ran[0] = ran[1] = 0;
    for (size_t k = 0; k < n; k++) {
        bool in[2] = {r[k].s[0].calls > 0, r[k].s[1].calls > 0};
        ran[0] += in[0];
        ran[1] += in[1];
        *shared += in[0] && in[1];
    }
    return 2 * *shared < (ran[0] < ran[1] ? ran[0] : ran[1]);
}

static cprof_table *summary(const cprof_view *v[2], const char *const paths[2])
{
    cprof_table *t = cprof_table_new("Profiles compared", summary_explain, summary_cols, 3);
    cprof_table_no_header(t);
    static const char *const side[2] = {"before", "after"};
    for (int s = 0; s < 2; s++) {
        char key[64];
        cprof_table_row(t);
        cprof_cell_str(t, side[s]);
        cprof_cell_str(t, side[s]);
        cprof_cell_str(t, paths[s]);
        snprintf(key, sizeof key, "%s_program", side[s]);
        cprof_table_row(t);
        cprof_cell_str(t, "  program");
        cprof_cell_str(t, key);
        cprof_cell_str(t, v[s]->p->program);
        snprintf(key, sizeof key, "%s_elapsed_ns", side[s]);
        cprof_table_row(t);
        cprof_cell_str(t, "  elapsed (ms)");
        cprof_cell_str(t, key);
        cprof_cell_time(t, v[s]->p->elapsed_ns);
    }
    cprof_table_row(t);
    cprof_cell_str(t, "elapsed change (ms)");
    cprof_cell_str(t, "elapsed_diff_ns");
    cprof_cell_diff_time(t, sub(v[1]->p->elapsed_ns, v[0]->p->elapsed_ns));
    return t;
}

static cprof_table *routines(const struct row *r, size_t n, const cprof_view *v[2])
{
    cprof_table *t = cprof_table_new("Changes per routine", routines_explain, routine_cols,
                                     sizeof routine_cols / sizeof *routine_cols);
    for (size_t k = 0; k < n; k++, r++) {
        const struct side *b = &r->s[0], *a = &r->s[1];
        bool both = a->timed && b->timed;
        cprof_table_row(t);
        cprof_cell_diff_time(t, cprof_if_measured(both, sub(a->self, b->self)));
        cprof_cell_time_mark(t, cprof_if_measured(b->timed, b->self), b->self_mark);
        cprof_cell_time_mark(t, cprof_if_measured(a->timed, a->self), a->self_mark);
        cprof_cell_diff_time(t, cprof_if_measured(both, sub(a->inclusive, b->inclusive)));
        cprof_cell_time_mark(t, cprof_if_measured(b->timed, b->inclusive), b->incl_mark);
        cprof_cell_time_mark(t, cprof_if_measured(a->timed, a->inclusive), a->incl_mark);
        cprof_cell_diff_int(t, sub(a->calls, b->calls));
        cprof_cell_int(t, b->calls);
        cprof_cell_int(t, a->calls);
        cprof_cell_diff_int(t, sub(a->s_calls, b->s_calls));
        cprof_cell_diff_int(t, sub(a->c_calls, b->c_calls));
        cprof_cell_diff_int(t, sub(a->ss, b->ss));
        cprof_cell_diff_int(t, sub(a->sc, b->sc));
        cprof_cell_diff_int(t, sub(a->cs, b->cs));
        cprof_cell_diff_int(t, sub(a->cc, b->cc));
        imbalance_cell(t, b->imbalance);
        imbalance_cell(t, a->imbalance);
        cprof_cell_str2(t, r->label, r->name);
        cprof_cell_str(t, r->file);
    }
    cprof_note_estimates(t, v[v[1]->p->nestimates ? 1 : 0], false);
    return t;
}

static const char *const sections[] = {"summary", "routines"};

int cprof_diff_section(const char *name)
{
    for (int i = 0; i < 2; i++)
        if (!strcmp(name, sections[i]))
            return i;
    return -1;
}

/* A time, null where not measured. */
static json_t *time_json(bool timed, int64_t ns)
{
    return timed ? json_integer(ns) : json_null();
}

/* An estimated time (sampled timing) says so: "time_estimated": true, last. */
static json_t *side_json(const struct side *s)
{
    json_t *o = json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f}",
                     "self_worker_ns", time_json(s->timed, s->self),
                     "inclusive_worker_ns", time_json(s->timed, s->inclusive),
                     "calls", (json_int_t)s->calls, "s_calls", (json_int_t)s->s_calls,
                     "c_calls", (json_int_t)s->c_calls, "ss", (json_int_t)s->ss,
                     "sc", (json_int_t)s->sc, "cs", (json_int_t)s->cs, "cc", (json_int_t)s->cc,
                     "imbalance", s->imbalance);
    if (o && (s->self_mark == '~' || s->incl_mark == '~') &&
        json_object_set_new(o, "time_estimated", json_true())) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *profile_json(const cprof_view *v, const char *path)
{
    return json_pack("{s:s, s:s, s:I, s:I}", "file", path, "program", v->p->program,
                     "files", (json_int_t)v->p->nfiles, "elapsed_ns",
                     (json_int_t)v->p->elapsed_ns);
}

/* The --json form (docs/report-json.md, "--diff"); NULL if out of memory. */
static char *json(const cprof_view *v[2], const char *const paths[2], const struct row *r,
                  size_t n)
{
    json_t *list = json_array();
    for (size_t k = 0; k < n && list; k++) {
        const struct side *b = &r[k].s[0], *a = &r[k].s[1];
        struct side d = {sub(a->self, b->self), sub(a->inclusive, b->inclusive),
                         sub(a->calls, b->calls), sub(a->s_calls, b->s_calls),
                         sub(a->c_calls, b->c_calls), sub(a->ss, b->ss), sub(a->sc, b->sc),
                         sub(a->cs, b->cs), sub(a->cc, b->cc), a->imbalance - b->imbalance,
                         a->timed && b->timed,
                         a->self_mark == '~' || b->self_mark == '~' ? '~' : 0,
                         a->incl_mark == '~' || b->incl_mark == '~' ? '~' : 0};
        json_t *row = json_pack("{s:s, s:s, s:o, s:o, s:o}", "name", r[k].name, "file",
                                r[k].file, "before", side_json(b), "after", side_json(a),
                                "change", side_json(&d));
        if (!row || json_array_append_new(list, row)) {
            json_decref(list);
            list = NULL;
        }
    }
    json_t *doc = json_pack("{s:s, s:i, s:o, s:o, s:I, s:o}", "format", "cprof-diff",
                            "version", 3, "before", profile_json(v[0], paths[0]), "after",
                            profile_json(v[1], paths[1]), "elapsed_diff_ns",
                            (json_int_t)sub(v[1]->p->elapsed_ns, v[0]->p->elapsed_ns),
                            "routines", list);
    char *s = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
    json_decref(doc);
    char *out = s ? cprof_xasprintf("%s\n", s) : NULL;
    free(s);
    return out;
}

char *cprof_report_diff(const cprof_view *before, const cprof_view *after,
                        const char *const paths[2], int csv, bool as_json, char **warning)
{
    const cprof_view *v[2] = {before, after};
    size_t n, shared, ran[2];
    struct row *r = rows(v, &n);
    char *out;
    *warning = unrelated(r, n, &shared, ran)
        ? cprof_xasprintf("warning: --diff: only %zu of the routines that ran are in both "
                          "profiles (%zu before, %zu after): two programs (%s, %s)?", shared,
                          ran[0], ran[1], before->p->program, after->p->program)
        : NULL;
    if (as_json)
        out = json(v, paths, r, n);
    else {
        cprof_table *t[2] = {csv < 1 ? summary(v, paths) : NULL,
                             csv < 0 || csv == 1 ? routines(r, n, v) : NULL};
        out = cprof_tables_text(t, 2, csv, before->o->brief);
    }
    for (size_t k = 0; k < n; k++)
        free(r[k].label);
    free(r);
    return out;
}
