/* report.h: the report writers.  Each renders a merged profile in memory, so that
 * nothing reaches stdout unless the whole report could be made. */
#ifndef CPROF_REPORT_REPORT_H
#define CPROF_REPORT_REPORT_H

#include "profile.h"
#include "table.h"
#include "view.h"

/* The --json document (docs/report-json.md), newline-terminated; malloc'd, NULL if out
 * of memory. */
char *cprof_report_json(const cprof_profile *p);
/* doc (a jansson value, released; NULL allowed) as newline-terminated text. */
struct json_t;
char *cprof_json_text(struct json_t *doc, int indent);

/* The sections of the text report, in report order (docs/report.md), each one table;
 * those of ranks are NULL unless the profile is an MPI job's (docs/mpi.md). */
cprof_table *cprof_section_summary(const cprof_view *v);    /* summary.c */
cprof_table *cprof_section_ranks(const cprof_view *v);      /* ranks.c: per rank */
cprof_table *cprof_section_flat(const cprof_view *v);       /* flat.c */
cprof_table *cprof_section_rank_imbalance(const cprof_view *v);  /* ranks.c: per routine */
cprof_table *cprof_section_cases(const cprof_view *v);      /* cases.c */
cprof_table *cprof_section_arcs(const cprof_view *v);       /* arcs.c */
cprof_table *cprof_section_callgraph(const cprof_view *v);  /* callgraph.c */
cprof_table *cprof_section_threads(const cprof_view *v);    /* threads.c: per worker */
cprof_table *cprof_section_spread(const cprof_view *v);     /* threads.c: per region */

/* The text report (every section in order), or with csv >= 0 that section as CSV;
 * malloc'd, NULL if out of memory. */
char *cprof_report_text(const cprof_view *v, int csv);
/* The index of the section named name (summary, ranks, flat, ... spread) for csv, or
 * -1. */
int cprof_report_section(const char *name);

/* Tables t[0..n-1] (NULL ones skipped) as text, or with csv >= 0 table csv as CSV; frees
 * them.  malloc'd, NULL if out of memory. */
char *cprof_tables_text(cprof_table **t, size_t n, int csv, bool brief);

/* --diff (diff.c): what changed per routine from before to after (files paths), as
 * text (both sections), one section as CSV (csv >= 0), or JSON; sorted by the change
 * of before->o->sort.  malloc'd, NULL if out of memory. */
char *cprof_report_diff(const cprof_view *before, const cprof_view *after,
                        const char *const paths[2], int csv, bool json);
/* The index of the --diff section named name (summary, routines) for csv, or -1. */
int cprof_diff_section(const char *name);

/* Call paths (pathview.c): the --paths section (also --csv paths, --root, --callers); --folded, folded
 * stacks of self times in ns; --hatchet, Hatchet's literal tree.  malloc'd, NULL if out
 * of memory. */
typedef enum { CPROF_PATHS_ALL, CPROF_PATHS_DOWN, CPROF_PATHS_UP } cprof_paths_mode;
/* v's contexts: all of them, or (DOWN, UP) those cprof_paths_derive made for name. */
cprof_table *cprof_section_paths(const cprof_view *v, cprof_paths_mode mode, const char *name);
char *cprof_report_folded(const cprof_view *v);
char *cprof_report_hatchet(const cprof_view *v);

/* --dot (dot.c): the call graph for Graphviz; malloc'd, NULL if out of memory. */
char *cprof_report_dot(const cprof_view *v);

#endif
