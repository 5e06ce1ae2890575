/* report.h: the report writers.  Each renders a merged profile in memory, so that
 * nothing reaches stdout unless the whole report could be made. */
#ifndef CPROF_REPORT_REPORT_H
#define CPROF_REPORT_REPORT_H

#include <stdio.h>
#include "../model/profile.h"
#include "table.h"
#include "../model/view.h"

/* The --json document (docs/report-json.md), newline-terminated; malloc'd, NULL if out
 * of memory. */
char *cprof_report_json(const cprof_profile *p);
struct json_t;
/* The --json document's "unprofiled" (the units cprof-cc compiled without profiling),
 * which --html's page shows first: a jansson array, NULL if out of memory. */
struct json_t *cprof_unprofiled_json(const cprof_profile *p);

/* Sampled timing (marks.c, docs/report.md, "Estimated times"): the mark of a time with
 * error e (0 in a profile without estimates, '~' an estimate, ' ' measured); an error
 * as a cell (text: in % of the time ns, "?" unknown; CSV: in ns, 0 measured, empty
 * unknown); the legend under a table with marks (and error columns). */
char cprof_mark(const cprof_view *v, cprof_error e);
void cprof_cell_error(cprof_table *t, cprof_error e, int64_t ns);
void cprof_note_estimates(cprof_table *t, const cprof_view *v, bool columns);

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
/* The OpenMP parallel regions and tasks (NULL if none ran, but with csv): each with
 * its figures over the workers, then each on each worker. */
cprof_table *cprof_section_regions(const cprof_view *v);          /* regview.c */
cprof_table *cprof_section_region_workers(const cprof_view *v);   /* regview.c */
/* Placement (placeview.c, docs/placement.md), NULL without it (but with csv): each
 * worker's PUs, the flags a user can act on, each process's binding settings, each
 * host's machine. */
cprof_table *cprof_section_placement(const cprof_view *v);
cprof_table *cprof_section_placement_flags(const cprof_view *v);
cprof_table *cprof_section_binding(const cprof_view *v);
cprof_table *cprof_section_machine(const cprof_view *v);
/* Worker w's main PU (where it was placed longest), that PU's core (hwloc's logical
 * index), package and NUMA node (-1: unknown), and its moves; false if the profile has
 * no placement for it. */
typedef struct {
    int64_t pu, core, package, node, moves;
} cprof_where;
bool cprof_worker_where(const cprof_profile *p, size_t w, cprof_where *out);
/* --json's "placement" (docs/report-json.md): NULL without placement. */
struct json_t *cprof_placement_json(const cprof_profile *p);
/* A place (PU, core, package, NUMA node) or count that a profile gives as -1 where it is
 * not known, as --json gives it: null there (placeview.c). */
struct json_t *cprof_json_known(int64_t v);
/* Construct i's team sizes, as three cells (regview.c): their range (text only), the
 * smallest and the largest (CSV only); empty for a task. */
void cprof_cells_team(cprof_table *t, const cprof_view *v, size_t i);
/* The profile by source line (lines.c, docs/source.md): per routine, OpenMP construct
 * and callee of a call site, at its file and line, its figures; and per worker.  Only
 * the files k of p->sources with shown[k] (all if shown is NULL), and the rows about
 * routines i with in[i] (all if in is NULL): a call's caller and callee both. */
cprof_table *cprof_section_lines(const cprof_view *v, const bool *shown, const bool *in);
cprof_table *cprof_section_line_workers(const cprof_view *v, const bool *shown, const bool *in);

/* --source (source.c, docs/source.md): where the sources are looked for now (each
 * --source-map OLD=NEW substitution of the path they were compiled at, that path, then
 * under each --source-dir), and the files shown (--source=FILE: those named; all if
 * none). */
typedef struct {
    const char **dirs;
    size_t ndirs;
    const char **maps;      /* "OLD=NEW" */
    size_t nmaps;
    const char **only;
    size_t nonly;
} cprof_source_opts;
/* 0 if every --source=FILE names a file of p; else -1 and why in err. */
int cprof_source_check(const cprof_profile *p, const cprof_source_opts *o, char *err,
                       size_t errlen);
/* The annotated sources (csv < 0, json false), one of lines and line-workers as CSV
 * (csv 0, 1), or the document of the files found and both tables' rows (json).
 * malloc'd, NULL if out of memory. */
char *cprof_report_source(const cprof_view *v, const cprof_source_opts *o, int csv, bool json);
/* The files shown, each with where it was found now and whether it changed, and with
 * text its lines where it did not (the page's embedded sources). */
struct json_t *cprof_source_files(const cprof_view *v, const cprof_source_opts *o, bool text);
/* Two more that only the HTML page shows: per routine the calls it made in each case,
 * summed over workers; per routine and worker its concurrent entries. */
cprof_table *cprof_section_by_case(const cprof_view *v);           /* cases.c */
cprof_table *cprof_section_worker_entries(const cprof_view *v);    /* threads.c */

/* The text report (every section in order, then with --resources their tables), or
 * with csv >= 0 that section as CSV; malloc'd, NULL if out of memory. */
char *cprof_report_text(const cprof_view *v, int csv);
/* The index of the section named name (summary, ranks, flat, ... spread) for csv, or
 * -1. */
int cprof_report_section(const char *name);
/* Section i of the text report (0, 1, ... in report order) and, in *name, its --csv
 * name; NULL for a section this profile does not have (an MPI job's, in another run),
 * and past the last, where *name is NULL too. */
cprof_table *cprof_report_section_table(const cprof_view *v, size_t i, const char **name);

/* Tables t[0..n-1] (NULL ones skipped) as text, or with csv >= 0 table csv as CSV; frees
 * them.  malloc'd, NULL if out of memory. */
char *cprof_tables_text(cprof_table **t, size_t n, int csv, bool brief);

/* --diff (diff.c): what changed per routine from before to after (files paths), as
 * text (both sections), one section as CSV (csv >= 0), or JSON; sorted by the change
 * of before->o->sort.  malloc'd, NULL if out of memory.  *warning: a line to say
 * (malloc'd) when the profiles look like two programs', else null. */
char *cprof_report_diff(const cprof_view *before, const cprof_view *after,
                        const char *const paths[2], int csv, bool json, char **warning);
/* The index of the --diff section named name (summary, routines) for csv, or -1. */
int cprof_diff_section(const char *name);

/* Call paths (pathview.c): the --paths section (also --csv paths, --root, --callers); --folded, folded
 * stacks of self times in ns; --hatchet, Hatchet's literal tree.  malloc'd, NULL if out
 * of memory. */
typedef enum { CPROF_PATHS_ALL, CPROF_PATHS_DOWN, CPROF_PATHS_UP } cprof_paths_mode;
/* v's contexts: all of them, or (DOWN, UP) those cprof_paths_derive made for name. */
cprof_table *cprof_section_paths(const cprof_view *v, cprof_paths_mode mode, const char *name);
char *cprof_report_folded(const cprof_view *v);
/* Why v's calling contexts have no times (no contexts at all, a CPROF_MODE=count run, an
 * older writer's file), in words, or NULL if they have; whether some context is a
 * counted routine's. */
const char *cprof_paths_untimed(const cprof_view *v);
bool cprof_paths_counted(const cprof_view *v);
/* The whole path of context i, its steps joined by sep; malloc'd. */
char *cprof_path_label(const cprof_view *v, size_t i, const char *sep);
/* A cell with the site context i was called from (file:line), empty at a root. */
void cprof_cell_path_site(cprof_table *t, const cprof_view *v, size_t i);
char *cprof_report_hatchet(const cprof_view *v);

/* Resources beyond time (resview.c, --resources): what was measured and each worker's
 * totals, then for each sampled resource its routines and its call paths.  n tables
 * into *t (malloc'd), and their --csv names. */
void cprof_sections_resources(const cprof_view *v, cprof_table ***t, const char *const **names,
                              size_t *n);
/* --csv of one of them, by name: resources, resource-routines, resource-paths. */
int cprof_resources_section(const char *name);
/* The resources' figures (rescols.c), shared by those tables and the columns below.
 * Resource r's samples per routine (self: entered sequentially, concurrently), their
 * inclusive sums (recursion once), and each context's subtree. */
void cprof_resource_sums(const cprof_profile *p, size_t r, int64_t (*self)[2], int64_t *incl,
                         int64_t *path_incl);
/* samples of x as an amount of its unit: samples x period, saturating. */
int64_t cprof_resource_amount(const cprof_prof_resource *x, int64_t samples);
bool cprof_resource_is_cpu(const cprof_prof_resource *x);
/* Worker w's exact total of resource r; negative if it had no counter. */
int64_t cprof_resource_total(const cprof_profile *p, size_t w, size_t r);
/* A cell with an amount of x: a time (ms in the text form) if its unit is ns, else a
 * count. */
void cprof_cell_resource(cprof_table *t, const cprof_prof_resource *x, int64_t amount);
/* A cell with the unit those amounts are printed in: ms in the text form of a time (ns
 * in CSV), else x's. */
void cprof_cell_resource_unit(cprof_table *t, const cprof_prof_resource *x);
/* CPU time over a time, in % (a routine's cpu/wall, a worker's utilisation); NAN without
 * a CPU time (negative: no counter) or a time; and as a cell, empty then. */
double cprof_cpu_share(int64_t cpu_ns, int64_t time_ns);
void cprof_cell_cpu_share(cprof_table *t, int64_t cpu_ns, int64_t time_ns);

/* --resources' columns in another table: per sampled resource, a routine's inclusive
 * amount (and for cpu, cpu/wall) or a context's (up from a routine, cprof_paths_derive:
 * each step's own samples, which are the routine's inclusive ones); per measured
 * resource, a worker's total (and for cpu, its utilisation).  NULL, adding nothing,
 * without --resources or resources in the profile. */
typedef enum {
    CPROF_RESCOLS_ROUTINES, CPROF_RESCOLS_PATHS, CPROF_RESCOLS_PATHS_UP, CPROF_RESCOLS_WORKERS
} cprof_rescols_of;
typedef struct cprof_rescols cprof_rescols;
cprof_rescols *cprof_rescols_new(const cprof_view *v, cprof_rescols_of of);
void cprof_rescols_free(cprof_rescols *c);
/* A table of cols[0..ncols) with c's columns before cols[at], and c's explanation after
 * explain. */
cprof_table *cprof_rescols_table(const cprof_rescols *c, const char *title, const char *explain,
                                 const cprof_column *cols, size_t ncols, size_t at);
/* c's cells of routine, context or worker i (in the order of cprof_rescols_new's v). */
void cprof_rescols_cells(const cprof_rescols *c, cprof_table *t, size_t i);

/* A run's trace (trace.c, docs/tracing.md), from the profile at path and the trace file
 * it names, streamed to out once the whole file was checked: --trace, the Chrome Trace
 * Event Format; --timeline, a row of width characters per worker.  0, or -1 with "PATH:
 * problem" in err and nothing written. */
int cprof_report_trace(const char *path, FILE *out, char *err, size_t errlen);
int cprof_report_timeline(const char *path, int width, FILE *out, char *err, size_t errlen);
/* Input sizes (sizesview.c, --sizes, docs/input-size.md): the tuples of the routines
 * named name (all if NULL), binned in the text form (csv false) or each size on its own
 * row, or (by_path, CSV only) each calling context's; each routine's fitted growth per
 * cost; and per calling context of each routine, heaviest first, the fits of both. */
cprof_table *cprof_section_sizes(const cprof_view *v, const char *name, bool csv, bool by_path);
cprof_table *cprof_section_size_growth(const cprof_view *v, const char *name);
cprof_table *cprof_section_size_path_growth(const cprof_view *v, const char *name);
/* 0 if some routine named name (any if NULL) has tuples, else -1. */
int cprof_sizes_check(const cprof_view *v, const char *name);
/* How many calling contexts the tuples of the routines named name (all if NULL) come
 * from (all unknown, CPROF_PATHS=0: one). */
size_t cprof_sizes_contexts(const cprof_view *v, const char *name);
/* How cost ([0] time, [1] accesses) grows with n over one routine's tuples t[0..nt):
 * mean cost ~ a*n^b by least squares on log-log over the sizes n >= 2 (points of
 * them), r2 its coefficient of determination; model (-1: fewer than 3 points) the one
 * of CPROF_SIZE_MODELS g(n) whose fit c*g(n) on the same scale leaves the least mean
 * square residual. */
#define CPROF_SIZE_MODELS 5
typedef struct {
    size_t points;
    double a, b, r2, residual;
    int model;
} cprof_size_fit;
cprof_size_fit cprof_size_fit_of(const cprof_prof_size *t, size_t nt, int cost);
/* The --json document's "sizes" (docs/report-json.md): a jansson value, NULL if out of
 * memory. */
struct json_t *cprof_sizes_json(const cprof_profile *p);

/* --dot (dot.c): the call graph for Graphviz; malloc'd, NULL if out of memory. */
char *cprof_report_dot(const cprof_view *v);

/* --html (html.c): one self-contained page (docs/html.md) carrying the --json document
 * of p and the text report's sections, both forms of every cell, and with embed
 * (--embed-sources) the sources found unchanged; malloc'd, NULL if out of memory. */
char *cprof_report_html(const cprof_profile *p, const cprof_source_opts *embed);

#endif
