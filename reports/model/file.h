/* file.h: one profile file as read and checked (read.c), before anything is summed
 * from it: its header, its own routines, sites and workers by the file's indexes, its
 * rows.  The model sums it into a cprof_profile (profile.h); a view reads it only where
 * the file's own indexes matter: --trace and --timeline, whose events index the
 * routines and sites of the profile that names the trace (trace.c). */
#ifndef CPROF_REPORT_FILE_H
#define CPROF_REPORT_FILE_H

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
    json_t *untimed_at_site;    /* true: it counted its untimed calls itself (the timing's
                                   site_untimed_ns); absent: null */
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
    /* Its "overhead" (docs/overhead.md), if any: how what profiling cost was measured
     * ("cpu samples" or "none"; null: not at all, an older writer), the samples and
     * those in cprof's code, their period, what they leave out, and what was not
     * sampled or why nothing was. */
    const char *ovh_method, *ovh_not_covered, *ovh_reason;
    int64_t ovh_samples, ovh_in_cprof, ovh_period_ns;
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

/* Reads and checks the profile file at path into rf, 0; or -1 with "PATH: why" in err
 * (errlen bytes).  cprof_raw_free frees rf, also after a failure. */
int cprof_file_read(const char *path, struct raw_file *rf, char *err, size_t errlen);
void cprof_raw_free(struct raw_file *rf);

#endif
