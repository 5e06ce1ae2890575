/* raw.h: what the parts of the model share (private to reports/model/): the loader
 * that names the file in every error, the reader's helpers, and each part's reading of
 * one file's raw image (file.h) into the profile and summing of two profiles. */
#ifndef CPROF_REPORT_RAW_H
#define CPROF_REPORT_RAW_H

#include "profile.h"
#include "file.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

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

/* read.c: "PATH: message" into l->err; returns -1. */
__attribute__((format(printf, 2, 3)))
int cprof_fail(struct loader *l, const char *fmt, ...);

/* read.c: reads and checks file l->path whole into rf (cprof_raw_free frees it, also
 * after a failure). */
int cprof_raw_read(struct loader *l, struct raw_file *rf);

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

/* estimates.c: the sampled timing of file rf into p (its routines and contexts merged
 * already, ctx as cprof_paths_of_file made it), of a and b into out, as the maps say
 * (their paths summed already); frees p's. */
int cprof_estimates_of_file(struct loader *l, cprof_profile *p, const struct raw_file *rf,
                            size_t *const *ctx);
int cprof_estimates_sum(struct loader *l, cprof_profile *out, const cprof_profile *a,
                        const cprof_profile *b, const struct sum_map *amap,
                        const struct sum_map *bmap);
void cprof_estimates_free(cprof_profile *p);
/* Each context's errors from p's estimates, once p is summed whole. */
void cprof_estimates_paths(cprof_profile *p);

#define NELEM(a) (sizeof (a) / sizeof *(a))
#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

#endif
