/* text.c: the whole text report, or one section as CSV, in memory: the report's
 * sections in order, for the command line and the fuzz target alike. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "../model/alloc.h"

typedef cprof_table *section_fn(const cprof_view *v);

/* Report order.  The sections of ranks are an MPI job's only, those of regions a
 * program's that ran any, those of placement a profile's that has it (NULL otherwise). */
static section_fn *const sections[] = {
    cprof_section_summary, cprof_section_ranks,  cprof_section_flat,
    cprof_section_rank_imbalance, cprof_section_cases, cprof_section_arcs,
    cprof_section_callgraph, cprof_section_threads, cprof_section_placement,
    cprof_section_placement_flags, cprof_section_binding, cprof_section_machine,
    cprof_section_regions, cprof_section_region_workers, cprof_section_spread,
};
static const char *const csv_names[] = {
    "summary", "ranks", "flat", "rank_imbalance", "cases", "arcs", "callgraph", "threads",
    "placement", "placement-flags", "binding", "machine", "regions", "region-workers", "spread",
};
#define NSECTIONS (sizeof sections / sizeof *sections)

int cprof_report_section(const char *name)
{
    for (size_t i = 0; i < NSECTIONS; i++)
        if (!strcmp(name, csv_names[i]))
            return (int)i;
    return -1;
}

cprof_table *cprof_report_section_table(const cprof_view *v, size_t i, const char **name)
{
    *name = i < NSECTIONS ? csv_names[i] : NULL;
    return *name ? sections[i](v) : NULL;
}

char *cprof_tables_text(cprof_table **t, size_t n, int csv, bool brief)
{
    char *text = NULL;
    size_t len = 0, printed = 0;
    FILE *m = open_memstream(&text, &len);
    for (size_t s = 0; s < n; s++) {
        if (m && csv < 0 && t[s]) {
            fputs(printed++ ? "\n\n" : "", m);
            cprof_table_print_text(m, t[s], brief);
        } else if (m && (size_t)csv == s && t[s])
            cprof_table_print_csv(m, t[s]);
        cprof_table_free(t[s]);
    }
    if (!m || fclose(m)) {
        free(text);
        return NULL;
    }
    return text;
}

char *cprof_report_text(const cprof_view *v, int csv)
{
    /* --resources: their own tables close the text report, with what the columns
     * leave out (the s / c samples, those outside any routine, the periods). */
    cprof_table **res = NULL;
    const char *const *names;
    size_t nres = 0;
    if (v->o->resources && csv < 0)
        cprof_sections_resources(v, &res, &names, &nres);
    cprof_table **t = cprof_xcalloc(NSECTIONS + nres, sizeof *t);
    for (size_t s = 0; s < NSECTIONS; s++)
        t[s] = csv < 0 || (size_t)csv == s ? sections[s](v) : NULL;
    for (size_t s = 0; s < nres; s++)
        t[NSECTIONS + s] = res[s];
    free(res);
    char *text = cprof_tables_text(t, NSECTIONS + nres, csv, v->o->brief);
    free(t);
    return text;
}
