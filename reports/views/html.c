/* html.c: --html, the report as one self-contained page (docs/html.md).
 *
 * The page is a template, reports/page.html with its script reports/page.js (embedded
 * at build time as cprof_page_html and cprof_page_js), into which go two documents: the
 * --json document as cprof_report_json writes it, and every section of the text report
 * (and two tables only the page shows) in both forms of every cell, as
 * cprof_table_json gives them.  So every figure on the page is one the other outputs
 * print, formatted as the text report formats it; the script lays them out, sorts rows
 * by the raw numbers and computes nothing it shows.
 *
 * A large profile (10,000 routines on 64 workers: 240 MB as such) would make a page no
 * browser opens.  Past PAGE_ROUTINES routines the page holds the flat profile's
 * heaviest PAGE_ROUTINES, and every table only their rows: the arcs into and out of
 * them (the PAGE_ROWS heaviest if there are more), their call graph entries with the
 * lines of those arcs; the profile document is then only what the script reads of it
 * (program, workers, those routines, the units not profiled) and says what was cut,
 * with each routine's arcs left out.  Past PAGE_ROWS contexts the call paths hold the heaviest PAGE_ROWS and
 * those above them.  Each table that lost rows says what it left out.
 */
#define _GNU_SOURCE
#include "report.h"
#include "../model/alloc.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char cprof_page_html[], cprof_page_js[];

/* Where the template takes the documents, and the script. */
static const char data_mark[] = "@DATA@", script_mark[] = "@SCRIPT@";

/* Table t (freed) as member name of object o (stolen): o, or NULL if memory ran out. */
static json_t *add(json_t *o, const char *name, cprof_table *t)
{
    json_t *j = cprof_table_json(t);
    cprof_table_free(t);
    if (json_object_set_new(o, name, j)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

enum { PAGE_ROUTINES = 300, PAGE_ROWS = 2000 };

/* Column key's index in table t (cprof_table_json's form), or -1. */
static int column(json_t *t, const char *key)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(t, "columns"), i, c) {
        const char *k = json_string_value(json_object_get(c, "key"));
        if (k && !strcmp(k, key))
            return (int)i;
    }
    return -1;
}

/* The raw (CSV) value of a row's cell i, as text; "" if none. */
static const char *raw(json_t *row, int i)
{
    const char *v = i < 0 ? NULL : json_string_value(json_array_get(json_array_get(row, (size_t)i), 1));
    return v ? v : "";
}

/* Whether routine (name, file) is one the page keeps. */
static bool kept(json_t *keep, const char *name, const char *file)
{
    char *k = cprof_xasprintf("%s\t%s", name, file);
    bool yes = json_object_get(keep, k) != NULL;
    free(k);
    return yes;
}

/* The flat profile's first PAGE_ROUTINES routines, as keys of an object. */
static json_t *heaviest(json_t *flat)
{
    json_t *keep = json_object(), *row;
    int name = column(flat, "name"), file = column(flat, "file");
    size_t i;
    json_array_foreach(json_object_get(flat, "rows"), i, row)
        if (!json_is_null(row) && json_object_size(keep) < PAGE_ROUTINES) {
            char *k = cprof_xasprintf("%s\t%s", raw(row, name), raw(row, file));
            json_object_set_new(keep, k, json_true());
            free(k);
        }
    return keep;
}

/* Cell i of a row as a number (its raw value); 0 if none. */
static double value(json_t *row, int i)
{
    return strtod(raw(row, i), NULL);
}

/* The text of cell i of a row, as the text report prints it. */
static const char *shown(json_t *row, int i)
{
    const char *v = i < 0 ? NULL : json_string_value(json_array_get(json_array_get(row, (size_t)i), 0));
    return v ? v : "";
}

/* Table t's rows become out (stolen), with a note (freed) that says what was left out. */
static void replace_rows(json_t *t, json_t *out, char *note)
{
    json_array_append_new(json_object_get(t, "notes"), json_string(note));
    free(note);
    json_object_set_new(t, "rows", out);
}

/* Indexes 0..n-1 by w, largest first (ties in their order). */
static const double *order_by;

static int heavier(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return order_by[a] != order_by[b] ? (order_by[a] < order_by[b]) - (order_by[a] > order_by[b])
                                      : (a > b) - (a < b);
}

/* Marks the PAGE_ROWS largest of w[0..n-1] in mark; the largest one not marked: *rest
 * (-1 if none). */
static void mark_heaviest(const double *w, size_t n, bool *mark, long *rest)
{
    size_t *order = cprof_xcalloc(n + 1, sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    order_by = w;
    qsort(order, n, sizeof *order, heavier);
    for (size_t k = 0; k < n; k++)
        mark[order[k]] = k < PAGE_ROWS;
    *rest = n > PAGE_ROWS ? (long)order[PAGE_ROWS] : -1;
    free(order);
}

/* What a cut page keeps: the routines (keys "name\tfile"), the arcs ("caller\tfile\t
 * callee\tfile"), and per kept routine the arcs into and out of it left out. */
struct cut {
    json_t *keep, *arcs, *left;
    size_t nroutines;
};

static char *arc_key(json_t *row, const int c[4])
{
    return cprof_xasprintf("%s\t%s\t%s\t%s", raw(row, c[0]), raw(row, c[1]), raw(row, c[2]),
                           raw(row, c[3]));
}

/* One more arc of routine (name, file) left out, into it (side 0) or out of it (1). */
static void left_out(struct cut *c, const char *name, const char *file, int side)
{
    char *k = cprof_xasprintf("%s\t%s", name, file);
    json_t *n = json_object_get(c->left, k);
    if (!n) {
        n = json_pack("[s, s, i, i]", name, file, 0, 0);
        json_object_set_new(c->left, k, n);
    }
    json_array_set_new(n, (size_t)side + 2,
                       json_integer(json_integer_value(json_array_get(n, (size_t)side + 2)) + 1));
    free(k);
}

/* The arcs into and out of the kept routines (an arc row with the rows of its sites
 * after it), the PAGE_ROWS heaviest of them by outer time if there are more; the kept
 * ones into c->arcs, those of a kept routine left out counted in c->left. */
static void cut_arcs(json_t *t, struct cut *c)
{
    json_t *rows = json_object_get(t, "rows"), *row;
    const int ends[4] = {column(t, "caller"), column(t, "caller_file"), column(t, "callee"),
                         column(t, "callee_file")};
    int kind = column(t, "row"), s = column(t, "s_outer_wall_ns"), w = column(t, "c_outer_worker_ns");
    size_t n = json_array_size(rows), narcs = 0, ntouching = 0, i;
    size_t *arc = cprof_xcalloc(n + 1, sizeof *arc);       /* each row's arc */
    double *weight = cprof_xcalloc(n + 1, sizeof *weight);  /* by arc, touching ones only */
    size_t *touching = cprof_xcalloc(n + 1, sizeof *touching);
    json_array_foreach(rows, i, row) {
        if (!json_is_null(row) && !strcmp(raw(row, kind), "arc")) {
            bool into = kept(c->keep, raw(row, ends[2]), raw(row, ends[3]));
            bool out = kept(c->keep, raw(row, ends[0]), raw(row, ends[1]));
            if (into || out) {
                weight[ntouching] = value(row, s) + value(row, w);
                touching[narcs] = ++ntouching;
            }
            narcs++;
        }
        arc[i] = narcs;
    }
    bool *mark = cprof_xcalloc(ntouching + 1, sizeof *mark);
    long rest;
    mark_heaviest(weight, ntouching, mark, &rest);
    json_t *out = json_array();
    size_t shown_arcs = 0;
    json_array_foreach(rows, i, row) {
        size_t k = arc[i] ? touching[arc[i] - 1] : 0;
        bool first = !json_is_null(row) && !strcmp(raw(row, kind), "arc");
        if (k && mark[k - 1]) {
            json_array_append(out, row);
            if (first) {
                char *key = arc_key(row, ends);
                json_object_set_new(c->arcs, key, json_true());
                free(key);
                shown_arcs++;
            }
        } else if (first && k) {
            if (kept(c->keep, raw(row, ends[2]), raw(row, ends[3])))
                left_out(c, raw(row, ends[2]), raw(row, ends[3]), 0);
            if (kept(c->keep, raw(row, ends[0]), raw(row, ends[1])))
                left_out(c, raw(row, ends[0]), raw(row, ends[1]), 1);
        }
    }
    if (json_array_size(out) == n) {    /* every arc touches a kept routine */
        json_decref(out);
        out = NULL;
    }
    char *heaviest = !out ? NULL : rest < 0 ? cprof_xstrdup("")
                              : cprof_xasprintf(", the %d heaviest of them by outer time (those "
                                                "left out: %.0f ns or less each)", PAGE_ROWS,
                                                weight[rest]);
    if (out)
        replace_rows(t, out, cprof_xasprintf("(this page shows %zu of the %zu arcs: those into and "
                                             "out of the %zu heaviest of %zu routines%s; "
                                             "cprof-report --csv arcs gives them all)", shown_arcs,
                                             narcs, json_object_size(c->keep), c->nroutines,
                                             heaviest));
    free(heaviest);
    free(mark);
    free(touching);
    free(weight);
    free(arc);
}

/* The call graph's entries of kept routines (rows between two null rows), each with the
 * lines of its callers and callees whose arcs the page shows. */
static void cut_callgraph(json_t *t, struct cut *c)
{
    json_t *rows = json_object_get(t, "rows"), *out = json_array();
    int name = column(t, "name"), file = column(t, "file"), line = column(t, "line");
    size_t n = json_array_size(rows), shown_rows = 0, all = 0;
    for (size_t from = 0; from < n;) {
        size_t to = from;
        while (to < n && !json_is_null(json_array_get(rows, to)))
            to++;
        json_t *primary = NULL;
        for (size_t i = from; i < to; i++)
            if (!strcmp(raw(json_array_get(rows, i), line), "primary"))
                primary = json_array_get(rows, i);
        bool keep_entry = primary && kept(c->keep, raw(primary, name), raw(primary, file));
        for (size_t i = from; i < to; i++) {
            json_t *row = json_array_get(rows, i);
            bool parent = !strcmp(raw(row, line), "parent");
            char *k = !keep_entry || row == primary ? NULL
                      : parent ? cprof_xasprintf("%s\t%s\t%s\t%s", raw(row, name), raw(row, file),
                                                 raw(primary, name), raw(primary, file))
                               : cprof_xasprintf("%s\t%s\t%s\t%s", raw(primary, name), raw(primary, file),
                                                 raw(row, name), raw(row, file));
            if (keep_entry && (row == primary || json_object_get(c->arcs, k))) {
                json_array_append(out, row);
                shown_rows++;
            }
            all++;
            free(k);
        }
        if (keep_entry && to < n)
            json_array_append(out, json_null());
        from = to + 1;
    }
    replace_rows(t, out, cprof_xasprintf("(this page shows the entries of the %zu heaviest of %zu "
                                         "routines, each with the callers and callees of the arcs "
                                         "it shows: %zu of these %zu lines; cprof-report --csv "
                                         "callgraph gives them all)", json_object_size(c->keep),
                                         c->nroutines, shown_rows, all));
}

/* The call paths (a parent before its children, a context's path "a > b > c"): the
 * PAGE_ROWS heaviest contexts by weight and every context above them, in their order.
 * The contexts of each resource (resource-paths) are a tree of their own. */
static void cut_paths(json_t *t, const char *section, const char *weight_key)
{
    json_t *rows = json_object_get(t, "rows"), *row;
    int path = column(t, "path"), weight = column(t, weight_key), res = column(t, "resource");
    size_t n = json_array_size(rows), i;
    if (n <= PAGE_ROWS)
        return;
    double *w = cprof_xcalloc(n, sizeof *w);
    long *parent = cprof_xcalloc(n, sizeof *parent);
    long stack[256];
    json_array_foreach(rows, i, row) {
        parent[i] = -1;
        if (json_is_null(row) ||
            (i > 0 && strcmp(raw(row, res), raw(json_array_get(rows, i - 1), res))))
            stack[0] = -1;
        if (json_is_null(row))
            continue;
        w[i] = value(row, weight);
        size_t depth = 0;
        for (const char *p = raw(row, path); (p = strstr(p, " > ")); p += 3)
            depth++;
        if (depth < sizeof stack / sizeof *stack) {
            parent[i] = depth ? stack[depth - 1] : -1;
            stack[depth] = (long)i;
        }
    }
    bool *mark = cprof_xcalloc(n, sizeof *mark);
    long rest;
    mark_heaviest(w, n, mark, &rest);
    for (i = 0; i < n; i++)
        for (long p = mark[i] ? parent[i] : -1; p >= 0 && !mark[p]; p = parent[p])
            mark[p] = true;
    json_t *out = json_array();
    json_array_foreach(rows, i, row)
        if (mark[i] || json_is_null(row))
            json_array_append(out, row);
    replace_rows(t, out, cprof_xasprintf("(this page shows the %d heaviest of these %zu contexts "
                                         "by %s, with the contexts above them: %zu rows; those left "
                                         "out have %s or less each; cprof-report --csv %s gives "
                                         "them all)", PAGE_ROWS, n,
                                         json_string_value(json_object_get(json_array_get(
                                             json_object_get(t, "columns"), (size_t)weight), "head")),
                                         json_array_size(out), shown(json_array_get(rows, (size_t)rest), weight),
                                         section));
    free(mark);
    free(parent);
    free(w);
}

/* Any other table with a routine's name: the rows of the kept routines (the flat
 * profile's first PAGE_ROUTINES rows, so their own by construction). */
static void cut_rows(json_t *t, const char *section, struct cut *c)
{
    json_t *rows = json_object_get(t, "rows"), *out = json_array(), *row;
    int name = column(t, "name"), file = column(t, "file");
    if (name < 0) {
        json_decref(out);
        return;
    }
    size_t i, n = json_array_size(rows);
    json_t *first_left = NULL;
    json_array_foreach(rows, i, row)
        if (!json_is_null(row) && kept(c->keep, raw(row, name), raw(row, file)))
            json_array_append(out, row);
        else if (!json_is_null(row) && !first_left)
            first_left = row;
    if (json_array_size(out) == n) {
        json_decref(out);
        return;
    }
    if (!strcmp(section, "flat"))
        replace_rows(t, out, cprof_xasprintf("(this page shows the %zu heaviest of %zu routines "
                                             "by worker self time; the %zu left out have %s ms of "
                                             "it or less each; cprof-report --csv flat gives them "
                                             "all)", json_object_size(c->keep), c->nroutines,
                                             c->nroutines - json_object_size(c->keep),
                                             shown(first_left, column(t, "self_worker_ns"))));
    else
        replace_rows(t, out, cprof_xasprintf("(this page shows the rows of the %zu heaviest of %zu "
                                             "routines: %zu of these %zu rows; cprof-report --csv "
                                             "%s gives them all)", json_object_size(c->keep),
                                             c->nroutines, json_array_size(out), n, section));
}

/* What the script reads of the profile document, for a cut page: the program, the
 * workers, the kept routines, and what was cut (with each kept routine's arcs in and
 * out left out: [name, file, in, out]). */
static char *profile_cut(const cprof_profile *p, const struct cut *c)
{
    json_t *keep = c->keep, *left = json_array(), *x;
    const char *k;
    json_object_foreach(c->left, k, x)
        json_array_append(left, x);
    json_t *workers = json_array(), *routines = json_array();
    for (size_t w = 0; w < p->nworkers; w++)
        json_array_append_new(workers, json_pack("{s:I, s:I}", "id", (json_int_t)w,
                                                 "tid", (json_int_t)p->workers[w].tid));
    for (size_t i = 0; i < p->nroutines; i++) {
        const cprof_prof_routine *r = &p->routines[i];
        if (kept(keep, r->name, r->file))
            json_array_append_new(routines, json_pack("{s:s, s:s, s:I, s:b}", "name", r->name,
                                                      "file", r->file, "line", (json_int_t)r->line,
                                                      "inlinable", r->inlinable));
    }
    json_t *doc = json_pack("{s:s, s:s, s:o, s:o, s:{s:I, s:I, s:o}}", "format", "cprof",
                            "program", p->program, "workers", workers,
                            "routines", routines, "cut", "routines_shown",
                            (json_int_t)json_object_size(keep), "routines",
                            (json_int_t)p->nroutines, "arcs_left_out", left);
    if (doc && p->nunprofiled && json_object_set_new(doc, "unprofiled", cprof_unprofiled_json(p))) {
        json_decref(doc);
        doc = NULL;
    }
    return cprof_json_text(doc, 0);
}

/* The source lines' tables; on a cut page only the rows of the kept routines (a
 * routine's, the constructs in their bodies, the calls between them), which say so. */
static json_t *add_lines(json_t *o, const cprof_view *v, json_t *keep)
{
    const cprof_profile *p = v->p;
    bool *in = keep ? cprof_xcalloc(p->nroutines + 1, sizeof *in) : NULL;
    for (size_t i = 0; keep && i < p->nroutines; i++)
        in[i] = kept(keep, p->routines[i].name, p->routines[i].file);
    static const char *const names[] = {"lines", "line_workers"};
    for (int k = 0; k < 2 && o; k++) {
        o = add(o, names[k], k ? cprof_section_line_workers(v, NULL, in) : cprof_section_lines(v, NULL, in));
        if (keep && o) {
            char *note = cprof_xasprintf("(this page shows the lines of the %d heaviest of %zu "
                                         "routines, and the calls between them: cprof-report "
                                         "--csv %s gives them all)", PAGE_ROUTINES, p->nroutines,
                                         k ? "line-workers" : "lines");
            json_array_append_new(json_object_get(json_object_get(o, names[k]), "notes"),
                                  json_string(note));
            free(note);
        }
    }
    free(in);
    return o;
}

/* The text report's sections by their --csv names, then the page's own tables. */
static char *sections(const cprof_profile *p, struct cut *c)
{
    /* Every routine, no option: the page sorts and filters; the resources' columns
     * where the profile has resources. */
    static const cprof_opts all = {.resources = true};
    cprof_view v;
    cprof_view_init(&v, p, &all);
    json_t *o = json_object();
    const char *name;
    cprof_table *t;
    for (size_t i = 0; (t = cprof_report_section_table(&v, i, &name)), name; i++)
        if (t)
            o = add(o, name, t);
    o = add(o, "by_case", cprof_section_by_case(&v));
    o = add(o, "worker_entries", cprof_section_worker_entries(&v));
    if (p->npaths)
        o = add(o, "paths", cprof_section_paths(&v, CPROF_PATHS_ALL, NULL));
    if (p->nresources) {
        cprof_table **r;
        const char *const *names;
        size_t n;
        cprof_sections_resources(&v, &r, &names, &n);
        for (size_t i = 0; i < n; i++)
            o = add(o, names[i], r[i]);
        free(r);
    }
    *c = (struct cut){NULL, json_object(), json_object(), p->nroutines};
    json_t *x;
    if (o && (x = json_object_get(o, "paths")))
        cut_paths(x, "paths", "pct_time");
    if (o && (x = json_object_get(o, "resource-paths")))
        cut_paths(x, "resource-paths", "pct_total");
    if (o && p->nroutines > PAGE_ROUTINES) {
        c->keep = heaviest(json_object_get(o, "flat"));
        cut_arcs(json_object_get(o, "arcs"), c);
        cut_callgraph(json_object_get(o, "callgraph"), c);
        json_object_foreach(o, name, x)
            if (strcmp(name, "arcs") && strcmp(name, "callgraph") && strcmp(name, "paths") &&
                strcmp(name, "resource-paths"))
                cut_rows(x, name, c);
    }
    o = add_lines(o, &v, c->keep);
    cprof_view_free(&v);
    return cprof_json_text(o, 0);
}

/* JSON text inside a <script> element.  '<' occurs only in strings there, and written
 * \u003c it can neither close the element ("</script>") nor open a comment. */
static void embed(FILE *f, const char *id, const char *json)
{
    fprintf(f, "<script type=\"application/json\" id=\"%s\">\n", id);
    for (const char *c = json; *c; c++)
        if (*c == '<')
            fputs("\\u003c", f);
        else
            fputc(*c, f);
    fputs("</script>\n", f);
}

/* The page's sources (docs/html.md): with --embed-sources, each file as found and the
 * text of those found unchanged; else none, and the page says how to have them. */
static char *sources(const cprof_profile *p, const cprof_source_opts *o)
{
    static const cprof_opts all = {0};
    cprof_view v;
    cprof_view_init(&v, p, &all);
    json_t *files = o ? cprof_source_files(&v, o, true) : json_array();
    cprof_view_free(&v);
    return cprof_json_text(json_pack("{s:b, s:o}", "embedded", o != NULL, "files", files), 0);
}

char *cprof_report_html(const cprof_profile *p, const cprof_source_opts *with)
{
    struct cut c;
    char *tables = sections(p, &c), *page = NULL;
    char *profile = c.keep ? profile_cut(p, &c) : cprof_report_json(p);
    char *texts = sources(p, with);
    json_decref(c.keep);
    json_decref(c.arcs);
    json_decref(c.left);
    size_t size = 0;
    FILE *f = profile && tables && texts ? open_memstream(&page, &size) : NULL;
    if (f) {
        const char *data = strstr(cprof_page_html, data_mark);
        const char *script = strstr(data, script_mark);
        fwrite(cprof_page_html, 1, (size_t)(data - cprof_page_html), f);
        embed(f, "cprof-profile", profile);
        embed(f, "cprof-sections", tables);
        embed(f, "cprof-sources", texts);
        data += strlen(data_mark);
        fwrite(data, 1, (size_t)(script - data), f);
        fputs(cprof_page_js, f);
        fputs(script + strlen(script_mark), f);
        if (fclose(f)) {
            free(page);
            page = NULL;
        }
    }
    free(profile);
    free(tables);
    free(texts);
    return page;
}
