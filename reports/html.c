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
 * heaviest PAGE_ROUTINES, and every table only their rows (the arcs to and from them,
 * their call graph entries), the call paths their first PAGE_ROWS rows (the tree's
 * order: a parent before its children, so none is cut from its parent); the profile
 * document is then only what the script reads of it (program, workers, those routines,
 * the units not profiled) and says what was cut; each table says it too.
 */
#define _GNU_SOURCE
#include "report.h"
#include "alloc.h"

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

/* Table t with only the rows of the kept routines: a call graph's entries of kept
 * routines (the primary line, and its parents and children that are kept), the arcs
 * between kept routines (or from outside), another row if its name is kept; the call
 * paths' first PAGE_ROWS rows.  A table that lost rows says so. */
static void cut_rows(json_t *t, const char *section, json_t *keep, size_t nroutines)
{
    json_t *rows = json_object_get(t, "rows"), *out = json_array(), *row;
    int name = column(t, "name"), file = column(t, "file"), line = column(t, "line");
    int caller = column(t, "caller"), cfile = column(t, "caller_file");
    int callee = column(t, "callee"), efile = column(t, "callee_file");
    bool paths = !strcmp(section, "paths") || !strcmp(section, "resource-paths");
    if (!paths && name < 0 && caller < 0)
        return;
    bool entry = false;     /* in a kept call graph entry */
    size_t i, n = json_array_size(rows);
    json_array_foreach(rows, i, row) {
        bool keep_it;
        if (paths)
            keep_it = i < PAGE_ROWS;
        else if (json_is_null(row))
            keep_it = entry = false;
        else if (line >= 0 && !strcmp(raw(row, line), "primary"))
            keep_it = entry = kept(keep, raw(row, name), raw(row, file));
        else if (line >= 0)
            keep_it = entry && kept(keep, raw(row, name), raw(row, file));
        else if (caller >= 0)
            keep_it = (!strcmp(raw(row, caller), cprof_external_name) ||
                       kept(keep, raw(row, caller), raw(row, cfile))) &&
                      kept(keep, raw(row, callee), raw(row, efile));
        else
            keep_it = kept(keep, raw(row, name), raw(row, file));
        if (keep_it)
            json_array_append(out, row);
    }
    if (json_array_size(out) == n) {
        json_decref(out);
        return;
    }
    char *note = paths ? cprof_xasprintf("(this page shows the first %zu of these %zu rows: "
                                         "cprof-report --csv %s gives them all)",
                                         json_array_size(out), n, section)
                       : cprof_xasprintf("(this page shows the rows of the %d heaviest of %zu "
                                         "routines, and the calls between them: cprof-report "
                                         "--csv %s gives them all)", PAGE_ROUTINES, nroutines,
                                         section);
    json_array_append_new(json_object_get(t, "notes"), json_string(note));
    free(note);
    json_object_set_new(t, "rows", out);
}

/* What the script reads of the profile document, for a cut page: the program, the
 * workers, the kept routines, and what was cut. */
static char *profile_cut(const cprof_profile *p, json_t *keep)
{
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
    json_t *doc = json_pack("{s:s, s:s, s:o, s:o, s:{s:I, s:I}}", "format", "cprof",
                            "program", p->program, "workers", workers,
                            "routines", routines, "cut", "routines_shown",
                            (json_int_t)json_object_size(keep), "routines",
                            (json_int_t)p->nroutines);
    if (doc && p->nunprofiled && json_object_set_new(doc, "unprofiled", cprof_unprofiled_json(p))) {
        json_decref(doc);
        doc = NULL;
    }
    return cprof_json_text(doc, 0);
}

/* The text report's sections by their --csv names, then the page's own tables. */
static char *sections(const cprof_profile *p, json_t **keep)
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
    cprof_view_free(&v);
    *keep = NULL;
    if (o && p->nroutines > PAGE_ROUTINES) {
        *keep = heaviest(json_object_get(o, "flat"));
        const char *name;
        json_t *t;
        json_object_foreach(o, name, t)
            cut_rows(t, name, *keep, p->nroutines);
    }
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

char *cprof_report_html(const cprof_profile *p)
{
    json_t *keep;
    char *tables = sections(p, &keep), *page = NULL;
    char *profile = keep ? profile_cut(p, keep) : cprof_report_json(p);
    json_decref(keep);
    size_t size = 0;
    FILE *f = profile && tables ? open_memstream(&page, &size) : NULL;
    if (f) {
        const char *data = strstr(cprof_page_html, data_mark);
        const char *script = strstr(data, script_mark);
        fwrite(cprof_page_html, 1, (size_t)(data - cprof_page_html), f);
        embed(f, "cprof-profile", profile);
        embed(f, "cprof-sections", tables);
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
    return page;
}
