/* raw.h: what the parts of the profile reader share (not used outside reading): one
 * file's raw image, checked completely before anything is summed from it, and the
 * loader that names the file in every error. */
#ifndef CPROF_REPORT_RAW_H
#define CPROF_REPORT_RAW_H

#include "profile.h"
#include "../../format/schema.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* A worker's "routines", "calls", "paths" and "regions" rows (format/schema.h) are all
 * stored MAX_COLS wide.  Rows of older writers lack the recursion columns: they read as 0.  A paths
 * row's samples of the file's resource r follow its schema columns, at SAMPLES_COL(r)
 * (entered sequentially) and the one after (concurrently). */
#define CPROF_MAX2(a, b) ((int)(a) > (int)(b) ? (int)(a) : (int)(b))
enum { MAX_COLS = CPROF_MAX2(CPROF_MAX2(CPROF_ROUTINE_NCOLUMNS, CPROF_CALL_NCOLUMNS),
                             CPROF_MAX2(CPROF_PATH_NCOLUMNS + 2 * CPROF_RESOURCES_MAX,
                                        CPROF_REGION_NCOLUMNS)) };
#define SAMPLES_COL(r) (CPROF_PATH_NCOLUMNS + 2 * (r))

/* A resource the file declares (docs/resources.md). */
struct raw_resource {
    const char *name, *unit, *event, *reason;   /* reason: NULL if none */
    int64_t period;
    json_t *available;
};

struct raw_routine {
    const char *name, *file;
    int64_t line;
    json_t *counted;    /* true, or absent: null */
    json_t *inlinable;  /* true, or absent: null */
    int64_t unit;   /* its unit in the file's "sources", -1 if none (docs/source.md) */
    size_t global;  /* index in the merged profile */
};

struct raw_site {
    int64_t caller;
    const char *file;
    int64_t line, d;  /* d is checked but plays no part in the report */
    const char *construct;  /* "parallel", "task": an OpenMP construct's; else NULL */
    int64_t unit;           /* as a routine's */
};

/* What a unit's entry of the "sources" section says of one file it names. */
struct raw_source {
    const char *name, *path, *hash;     /* path, hash: NULL if absent */
    int64_t bytes;
};

struct raw_unit {
    const char *file;
    struct raw_source *files;
    size_t nfiles;
};

struct raw_worker {
    int64_t tid, omp_thread, pu, core;
    json_t *placement;  /* its "placement" (placement.c), or NULL */
    /* Per resource: the worker's total (-1: no counter), and its samples outside any
     * profiled activation, entered sequentially and concurrently. */
    int64_t res_total[CPROF_RESOURCES_MAX], res_outside[CPROF_RESOURCES_MAX][2];
    int64_t (*routine_rows)[MAX_COLS], (*call_rows)[MAX_COLS], (*path_rows)[MAX_COLS];
    int64_t (*region_rows)[MAX_COLS];
    size_t nroutine_rows, ncall_rows, npath_rows, nregion_rows;
};

/* A unit of the program cprof-cc compiled without profiling, and why. */
struct raw_unprofiled {
    const char *file, *reason;
};

struct raw_file {
    json_t *root;  /* owns the strings below */
    const char *program, *clock;
    const char *cprof_version;     /* what wrote the file; null if an older cprof did */
    int64_t version;               /* of the format: 1 or 2 */
    const char *host;              /* version 2: the host name, and the process's MPI */
    int64_t rank, size;            /* rank and job size (-1 outside a job) */
    const char *job;               /* the job's id ("": none, or unknown) */
    int64_t pid, start_unix_ns, elapsed_ns, pus, cores, packages;
    double call_cost_ns, count_cost_ns;
    /* Its "placement" and its machine's "topology" (docs/placement.md), NULL if none. */
    json_t *placement, *topology;
    /* Its paths rows have the contexts' self times (an older writer's have not). */
    bool path_self;
    /* Its "openmp" section (docs/profile-format.md), if any: the OpenMP runtime, how it
     * was observed, and whether the calls' cases and the parallel regions were (null:
     * an older writer's, which always saw both). */
    const char *omp_runtime, *omp_observed, *omp_reason;
    json_t *omp_cases, *omp_regions;
    /* Its "trace" section (docs/tracing.md), if any: the events recorded and dropped. */
    bool traced;
    int64_t trace_events, trace_dropped;
    struct raw_routine *routines;
    struct raw_site *sites;
    struct raw_worker *workers;  /* by id */
    size_t nroutines, nsites, nworkers;
    struct raw_resource resources[CPROF_RESOURCES_MAX];
    size_t nresources;
    struct raw_unprofiled *unprofiled;
    size_t nunprofiled;
    /* Its "sources" section (docs/source.md): each unit's files; has_sources false
     * without one. */
    bool has_sources;
    struct raw_unit *units;
    size_t nunits;
};

struct loader {
    const char *path;  /* the file being read or merged: errors are about it */
    json_t *sections;  /* version 2: the sections the file declares (read.c), or NULL */
    char *err;
    size_t errlen;
};

/* A worker's tables of rows, and their keys ("routines", "calls", "paths", "regions"). */
enum { T_ROUTINES, T_CALLS, T_PATHS, T_REGIONS, NTABLES };
extern const char *const cprof_row_tables[NTABLES];

/* rows.c: a file's tables of rows read from its text before jansson parses the rest.
 * Table k of worker object w, where rows.c could read it (has[w][k]), is in t[w][k]:
 * row i is v[start[i] ... start[i + 1] - 1], every value from 0 to 2^63 - 1.  text (len
 * bytes) is the file with those tables written as [], for jansson; NULL if rows.c read
 * none, and jansson parses the file itself. */
struct raw_table {
    int64_t *v;
    size_t *start;      /* [nrows + 1] */
    size_t nrows;
};

struct row_tables {
    struct raw_table (*t)[NTABLES];
    bool (*has)[NTABLES];
    size_t nworkers;
    char *text;
    size_t len;
};

void cprof_rows_take(const char *text, size_t len, struct row_tables *rt);
void cprof_rows_free(struct row_tables *rt);

/* One key of an object: a string (out is const char **), an integer not below min
 * (out is int64_t *), a real not below min (out is double *), or an array or object
 * (out is json_t **).  Its type is or'ed with OPTIONAL when it may be absent (out is
 * then left as it is): additions to version 1 that older writers do not make. */
enum { OPTIONAL = 0x100, BOOLEAN = 0x200 };  /* BOOLEAN: with JSON_TRUE, false too */

struct field {
    const char *key;
    int type;
    void *out;
    int64_t min;
};

/* Fills f[0..n-1] from obj, which must have exactly these keys (and the file's declared
 * sections); where names obj in messages.  0, or -1 with the problem said. */
int cprof_get_fields(struct loader *l, json_t *obj, const struct field *f, size_t n,
                     const char *where);

/* "PATH: message" into l->err; returns -1. */
__attribute__((format(printf, 2, 3)))
int cprof_fail(struct loader *l, const char *fmt, ...);

/* read.c: reads and checks file l->path whole into rf (cprof_raw_free frees it, also
 * after a failure). */
int cprof_raw_read(struct loader *l, struct raw_file *rf);
void cprof_raw_free(struct raw_file *rf);

/* compensate.c: takes the profiled calls' cost out of every time of rf, row by row,
 * with the file's own call_cost_ns; adds what came out of self times to
 * p->compensated_ns. */
void cprof_raw_compensate(cprof_profile *p, struct raw_file *rf);

/* job.c: what the files summed so far are, set by the first one (docs/mpi.md): one
 * program's repeated runs (job NULL), or ranks of one job, each once. */
struct job_files {
    const char *first;      /* the first file's path; NULL before it */
    char *program;          /* its program */
    char *job;              /* its job's id ("": none given), NULL if it is no rank */
    int64_t size;           /* its job's size */
    json_t *seen;           /* the ranks summed: rank (decimal) -> the file that has it */
    int64_t latest_start, earliest_end;  /* of the ranks' runs (no job id: they overlap) */
};
/* Whether file rf may be summed with those of j ("PATH: why not" in l->err and -1 if
 * not); then, once it is summed, cprof_job_add counts it in. */
int cprof_job_check(struct loader *l, const struct job_files *j, const struct raw_file *rf,
                    bool force);
void cprof_job_add(struct job_files *j, const struct raw_file *rf, const char *path);
void cprof_job_free(struct job_files *j);

/* merge.c: sums one file, already read (and compensated if comp), into a profile of
 * its own; sums two profiles into out. */
int cprof_merge_file(struct loader *l, cprof_profile *p, struct raw_file *rf, bool comp);
int cprof_sum_profiles(struct loader *l, cprof_profile *out, const cprof_profile *a,
                       const cprof_profile *b);

/* Where the routines, the workers and the calling contexts of one of two profiles
 * being summed are in the sum: routine[i], worker[w] and path[c] are indexes into it
 * (path[] is filled by cprof_paths_sum). */
struct sum_map {
    size_t *routine, *worker, *path;
};

/* paths.c: the calling contexts of file rf into p (its routines merged already: each
 * raw routine's global index set), ctx[w][i] (rf->nworkers arrays, malloc'd: the
 * caller frees them, also after a failure) the context of worker w's paths row i; of
 * a and b into out, with the maps of the sum (their path[] set). */
int cprof_paths_of_file(struct loader *l, cprof_profile *p, const struct raw_file *rf,
                        size_t **ctx);
int cprof_paths_sum(struct loader *l, cprof_profile *out, const cprof_profile *a,
                    const cprof_profile *b, const struct sum_map *amap,
                    const struct sum_map *bmap);

/* regions.c: the parallel regions and tasks of file rf into p (its routines merged
 * already), of a and b into out (its workers made already, as the maps say); frees p's. */
int cprof_regions_of_file(struct loader *l, cprof_profile *p, const struct raw_file *rf);
int cprof_regions_sum(struct loader *l, cprof_profile *out, const cprof_profile *a,
                      const cprof_profile *b, const struct sum_map *amap,
                      const struct sum_map *bmap);
void cprof_regions_free(cprof_profile *p);

/* resources.c: the resources of file rf into p (its workers made already), of a and
 * b into out (its workers made already, as the maps say); frees p's. */
struct sum_map;
int cprof_resources_of_file(struct loader *l, cprof_profile *p, const struct raw_file *rf);
int cprof_resources_sum(struct loader *l, cprof_profile *out, const cprof_profile *a,
                        const cprof_profile *b, const struct sum_map *amap,
                        const struct sum_map *bmap);
void cprof_resources_free(cprof_profile *p);

/* placement.c: the machine, the binding settings and the workers' placement of file rf
 * into p (its workers made already), of a and b into out (its workers made already, as
 * the maps say: a job's ranks each keep theirs, repeated runs the first file's); frees
 * p's. */
int cprof_placement_of_file(struct loader *l, cprof_profile *p, const struct raw_file *rf);
void cprof_placement_sum(cprof_profile *out, const cprof_profile *a, const cprof_profile *b,
                         const struct sum_map *amap, const struct sum_map *bmap);
void cprof_placement_free(cprof_profile *p);
/* sources.c: the source files of file rf into p, before its routines are merged: a
 * routine's or site's file that names two files of different units (two util.c
 * compiled in two directories) becomes the shortest end of their paths that tells
 * them apart (docs/source.md), in rf; of a and b into out; frees p's. */
int cprof_sources_of_file(struct loader *l, cprof_profile *p, struct raw_file *rf);
int cprof_sources_sum(struct loader *l, cprof_profile *out, const cprof_profile *a,
                      const cprof_profile *b);
void cprof_sources_free(cprof_profile *p);

/* sizes.c: the input sizes of file rf into p (its routines and contexts merged
 * already, ctx as cprof_paths_of_file made it), of a and b into out, as the maps say
 * (their paths summed already); frees p's. */
int cprof_sizes_of_file(struct loader *l, cprof_profile *p, const struct raw_file *rf,
                        size_t *const *ctx);
int cprof_sizes_sum(struct loader *l, cprof_profile *out, const cprof_profile *a,
                    const cprof_profile *b, const struct sum_map *amap,
                    const struct sum_map *bmap);
void cprof_sizes_free(cprof_profile *p);

#define NELEM(a) (sizeof (a) / sizeof *(a))
#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

#endif
