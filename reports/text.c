/* text.c: the whole text report, or one section as CSV, in memory: the report's
 * sections in order, for the command line and the fuzz target alike. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

typedef cprof_table *section_fn(const cprof_view *v);

/* Report order. */
static section_fn *const sections[] = {
    cprof_section_summary, cprof_section_flat,      cprof_section_cases,
    cprof_section_arcs,    cprof_section_callgraph, cprof_section_threads,
    cprof_section_spread,
};
static const char *const csv_names[] = {
    "summary", "flat", "cases", "arcs", "callgraph", "threads", "spread",
};
#define NSECTIONS (sizeof sections / sizeof *sections)

int cprof_report_section(const char *name)
{
    for (size_t i = 0; i < NSECTIONS; i++)
        if (!strcmp(name, csv_names[i]))
            return (int)i;
    return -1;
}

char *cprof_report_text(const cprof_view *v, int csv)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return NULL;
    for (size_t s = 0; s < NSECTIONS; s++) {
        if (csv >= 0 && (size_t)csv != s)
            continue;
        cprof_table *t = sections[s](v);
        if (csv >= 0)
            cprof_table_print_csv(m, t);
        else {
            fputs(s ? "\n\n" : "", m);
            cprof_table_print_text(m, t, v->o->brief);
        }
        cprof_table_free(t);
    }
    if (fclose(m)) {
        free(text);
        return NULL;
    }
    return text;
}

