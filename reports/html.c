/* html.c: --html, the report as one self-contained page (docs/html.md).
 *
 * The page is a template, reports/page.html with its script reports/page.js (embedded
 * at build time as cprof_page_html and cprof_page_js), into which go two documents: the
 * --json document as cprof_report_json writes it, and every section of the text report
 * (and two tables only the page shows) in both forms of every cell, as
 * cprof_table_json gives them.  So every figure on the page is one the other outputs
 * print, formatted as the text report formats it; the script lays them out, sorts rows
 * by the raw numbers and computes nothing it shows.
 */
#define _GNU_SOURCE
#include "report.h"

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

/* The text report's sections by their --csv names, then the page's own tables. */
static char *sections(const cprof_profile *p)
{
    static const cprof_opts all;   /* every routine, no option: the page sorts and filters */
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
    char *profile = cprof_report_json(p), *tables = sections(p), *page = NULL;
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
