/* profile.h: the merged profile that every part of cprof-report reads.
 *
 * cprof_profile_load() reads one or more profile files (docs/profile-format.md),
 * validates them completely and sums them into the model below; the report writers
 * (json.c and the text sections) only read it.  Field names follow
 * docs/semantics.md.  Counts and times (ns) are 64-bit and never negative.
 * With compensation (--compensate) the times are built already compensated, so every
 * writer shows the same numbers without knowing about it.
 */
#ifndef CPROF_REPORT_PROFILE_H
#define CPROF_REPORT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A number of events, their elapsed time in ns, and the profiled calls made inside
 * those activations on their own thread (whose facades' cost is inside t).  For callee
 * times (calls, arcs, sites) rec_t is the part of t spent in activations nested in an
 * activation of the same routine on the same thread (recursion): t - rec_t counts each
 * stretch of a thread's time once.  0 elsewhere, and in profiles of older writers. */
typedef struct {
    int64_t n, t, nested, rec_t;
} cprof_tally;

/* Worker w of the merged profile is workers[w], in the order of (rank, id): a worker is
 * keyed by its MPI rank (-1 outside a job) and its id in its file (ids are dense,
 * docs/profile-format.md), so repeated runs add up worker by worker and the ranks of a
 * job keep theirs apart.  Its description comes from the first file that has it. */
typedef struct {
    int64_t rank, id;
    int64_t tid, omp_thread, pu, core;
} cprof_prof_worker;

/* What routine B did on one worker. */
typedef struct {
    cprof_tally s_caller;   /* sequential entries of B, time of the outermost ones */
    int64_t s_self_t;       /* self time of B's sequential activations on this worker */
    cprof_tally c_caller;   /* concurrent entries of B, time of the outermost ones */
    cprof_tally c_callee;   /* S-C calls made by B */
    cprof_tally cs_callee;  /* C-S calls made by B */
    cprof_tally cc_callee;  /* C-C calls made by B */
    int64_t c_self_t;       /* self time of B's concurrent activations on this worker */
    int64_t c_direct;       /* calls made directly by them (their facades are in c_self_t) */
    /* Concurrent activations outermost on this worker's thread but not by the paper's
     * rule (the initial thread had B open sequentially): their time.  c_caller.t +
     * c_thread_t is the time B was open on this thread in concurrent entries. */
    int64_t c_thread_t;
    /* Team time (docs/semantics.md): bodies of B's parallel regions (or of regions
     * opened under B) that this worker ran for a team another thread opened, outside
     * any activation of B here; team_self_t: less the activations nested in them. */
    int64_t team_t, team_self_t;
} cprof_prof_routine_worker;

/* A routine, identified by (name, file); every routine the files declare is here,
 * even one that never ran. */
typedef struct {
    char *name, *file;
    int64_t line;                       /* smallest line declared for the key */
    cprof_tally s_caller;               /* sequential entries, outermost time (all workers) */
    cprof_tally s_callee;               /* S-S calls made by B */
    int64_t max_depth;                  /* over all workers and files */
    int64_t s_self_t;                   /* self time of the sequential activations (all workers) */
    int64_t s_direct;                   /* calls made directly by them, on their thread */
    bool counted;                       /* counted at its call sites, not timed */
    bool inlinable;                     /* timed, though gcc may inline it in a plain build */
    double overhead_ns;                 /* estimated cost of its entries' facades */
    cprof_prof_routine_worker *worker;  /* [nworkers] */
} cprof_prof_routine;

/* One call site (file, line) of an arc. */
typedef struct {
    char *file;
    int64_t line;
    cprof_tally s, c;  /* as in cprof_prof_arc, restricted to this site */
    cprof_tally cases[4];   /* S-S, S-C, C-S, C-C: s is cases[0], c the others summed */
    cprof_tally *worker;    /* [nworkers]: all cases on each worker */
} cprof_prof_site;

#define CPROF_EXTERNAL SIZE_MAX  /* the caller of entries from code cprof did not compile */

/* A call arc caller -> callee: s counts the calls whose callee entry was sequential
 * (S-S, or a sequential entry from outside), c all the others. */
typedef struct {
    size_t caller, callee;  /* indexes into routines; caller may be CPROF_EXTERNAL */
    cprof_tally s, c;
    cprof_prof_site *sites; /* by file, then line; none for an external caller */
    size_t nsites;
} cprof_prof_arc;

#define CPROF_NO_PATH SIZE_MAX        /* the parent of a root context */
#define CPROF_OTHER_ROUTINE SIZE_MAX  /* the routine of an <other> context */
/* The "routine" of a parallel region's and of a task's context (its site: the
 * construct's, NULL for one cprof-cc did not compile): no routine of the profile. */
#define CPROF_REGION_ROUTINE (SIZE_MAX - 1)
#define CPROF_TASK_ROUTINE (SIZE_MAX - 2)
#define CPROF_IS_ROUTINE(r) ((r) < CPROF_TASK_ROUTINE)
/* What such a context is called where a routine's name would be. */
const char *cprof_path_special_name(size_t routine);
/* a + b, saturating (paths.c): sums of valid counts can still exceed 64 bits (a
 * routine's sequential and concurrent calls, every routine's calls, a context's
 * inclusive time), and the report then says so (cprof_sums_clamped). */
int64_t cprof_add(int64_t a, int64_t b);
bool cprof_sums_clamped(void);

/* Whether a time is an estimate from a sample of the activations (docs/semantics.md,
 * "Sampled timing"), and the square of its error in ns^2 (NAN: unknown). */
typedef struct {
    bool estimated;
    double var;
} cprof_error;
/* Its error in ns (NAN: unknown). */
double cprof_error_ns(cprof_error e);
/* a and b together (independent errors: in quadrature). */
cprof_error cprof_error_add(cprof_error a, cprof_error b);

/* A calling context (docs/semantics.md, "Calling contexts"): a call from a site, or an
 * entry from outside, that reached a routine, under its parent context.  The contexts
 * of every worker and file with the same path (routine and site at each step) are one.
 * An <other> context stands for calls past the runtime's limit: cases[0].n says how
 * many, and their figures are in their arcs only. */
typedef struct {
    size_t parent;          /* an earlier context, or CPROF_NO_PATH for a root */
    size_t routine;         /* index into routines, or CPROF_OTHER_ROUTINE, _REGION_, _TASK_ */
    char *site_file;        /* where the call is spelled; NULL for an entry from outside */
    int64_t site_line;
    size_t folds_into;      /* the context its activations' calls hang from: itself, or
                               an ancestor of the same routine (recursion folded) */
    cprof_tally cases[4];   /* S-S, S-C, C-S, C-C: calls, time, nested calls, rec_t */
    cprof_tally *worker;    /* [nworkers]: all cases on each worker */
    /* Worker time (docs/report.md, "Call paths"): self, the time the workers' calls were
     * made in this context (its activations', its recursion's folded into it, less
     * what nested there), and inclusive, its subtree's self times added up: each
     * stretch of a worker's time in one context.  Not measured (0) where the profile
     * has no path_self. */
    int64_t self, inclusive;
    /* Sampled timing: the errors of its calls' times (cases[].t, and inclusive) and of
     * its self time (its own and its children's calls' errors). */
    cprof_error time_err, self_err;
    /* [2 * nresources]: the samples of each resource taken while this context's
     * activation was on top of its thread's stack, entered sequentially ([2r]) or
     * concurrently ([2r + 1]); NULL with no resource. */
    int64_t *samples;
} cprof_prof_path;

/* What one worker did in one parallel region or task construct (docs/semantics.md,
 * "Parallel regions and tasks"; the format's "regions" rows): as a member of its teams
 * (the runner of its tasks), and as the thread that opened its executions. */
typedef struct {
    int64_t executions;     /* executions of the body on this worker */
    int64_t busy_t;         /* time in the body, less the waits at barriers inside it */
    int64_t nested;         /* profiled calls made inside busy_t */
    int64_t barriers;       /* barriers passed inside the body */
    int64_t barrier_wait;   /* time waited in them */
    int64_t end_wait;       /* time waited at the region's closing barrier */
    int64_t team_min, team_max, team_sum;  /* team sizes of its executions (0: none) */
    int64_t opened;         /* executions this worker opened */
    int64_t max_busy;       /* over them: the slowest member's busy time, summed */
    int64_t mean_busy;      /* and the team's mean busy time, summed */
} cprof_prof_region_worker;

/* A construct: an OpenMP parallel region (a combined parallel loop too), task, or a
 * worksharing construct or barrier (a barrier's figures), keyed by its kind and place;
 * the constructs cprof-cc did not compile are one per kind, with no place. */
typedef struct {
    int kind;               /* CPROF_REGION_* (schema.h) */
    char *file;             /* where the pragma is; NULL for the unnamed ones */
    int64_t line;
    int64_t d;              /* parallel constructs of its routine around it (its site's) */
    size_t routine;         /* the routine it is in; CPROF_OTHER_ROUTINE if unnamed */
    cprof_prof_region_worker *worker;  /* [nworkers] */
} cprof_prof_region;

/* A resource beyond elapsed time (docs/resources.md), as every file summed declares it. */
typedef struct {
    char *name, *unit, *event;
    int64_t period;         /* units per sample; 0: counted, not sampled */
    bool available;         /* measured in every file */
    char *reason;           /* else why not (the first file's words), or NULL */
} cprof_prof_resource;

/* A routine's activations of read memory size n (docs/input-size.md), in one calling
 * context or all of them: how many, and of each cost ([0] elapsed ns, [1] memory
 * accesses) the largest, the smallest, the sum and the sum of squares. */
typedef struct {
    size_t routine;
    size_t path;            /* index into paths; CPROF_NO_PATH: every context, or none
                               known (CPROF_PATHS=0) */
    int64_t n, calls;
    int64_t max[2], min[2], sum[2];
    double sq[2];
} cprof_prof_size;

/* What the files say of their input sizes: the cell (bytes), the shadow memory's size
 * (the largest of a file's) and bound, the accesses past the bound, and whether a
 * file's stamps ran out (its later activations unsized); sampled runs' largest slowdown
 * budget (0: every file sized every activation), their samples and the samples' time.
 * cell 0: no file has sizes. */
typedef struct {
    int64_t cell, shadow_bytes, shadow_limit, untracked;
    bool saturated;
    double slowdown_budget;
    int64_t samples, sampled_ns;
} cprof_prof_sizes_info;

/* A unit of the program cprof-cc compiled without profiling (docs/cprof-cc.md): its
 * routines are not in the profile. */
typedef struct {
    char *file, *reason;
} cprof_prof_unprofiled;

/* Where the workers ran (docs/placement.md).  A set of PUs, by OS index, ascending. */
typedef struct {
    int64_t *pu;
    size_t n;
} cprof_pu_set;

/* A package, NUMA node or cache of a machine, as hwloc saw it. */
typedef struct {
    int kind;               /* CPROF_TOPO_PACKAGE, _NODE or _CACHE (format/topology.h) */
    int64_t os;             /* a package's or a node's OS index */
    int64_t level;          /* a cache's level (1...) */
    int type;               /* a cache's: CPROF_CACHE_UNIFIED, _DATA, _INSTRUCTION */
    int64_t size, line;     /* a cache's bytes and line size; a node's memory */
    cprof_pu_set pus;       /* the PUs it covers (share) */
} cprof_prof_topo_obj;

/* The machine of a host: its PUs, each [pu, core, package, node] (core a logical
 * index, the others OS indexes, -1 for none) in hwloc's order, and its objects;
 * error (topology unknown) says why not. */
typedef struct {
    char *host;
    char *error;
    char *hwloc, *cpu_model;
    int64_t (*pus)[4];
    size_t npus;
    cprof_prof_topo_obj *objs;
    size_t nobjs;
} cprof_prof_machine;

/* One process's binding settings (a run, or a rank of a job): the variables set (env
 * names and values), libgomp's binding and places, the affinity mask at its start;
 * when it started and how long its placement was observed. */
typedef struct {
    int64_t rank, pid;
    size_t machine;             /* index into machines */
    int64_t start_unix_ns, span_ns;
    char **env_names, **env_values;
    size_t nenv;
    char *proc_bind;
    cprof_pu_set *places;
    size_t nplaces;
    bool has_affinity;
    cprof_pu_set affinity;
} cprof_prof_process;

/* A worker's placement: its process, its affinity mask as it was made; its first and
 * last observation (ns since its process's start), how many, its moves between PUs, its
 * placed time and each PU's share of it ([pu, ns], in order of first visit); and its
 * bins of bin_ns of the run, [bin, pu, ns] (the PU it was on longest in the bin). */
typedef struct {
    bool known;
    size_t process;
    bool has_affinity;
    cprof_pu_set affinity;
    int64_t first_ns, last_ns, observations, moves, placed_ns;
    double bin_ns;
    int64_t (*pus)[2];
    size_t npus;
    int64_t (*bins)[3];
    size_t nbins;
} cprof_prof_placement;
/* A source file the routines and sites name (docs/source.md): by the name the report
 * gives it (their `file`: gcc's name, or the end of its path that tells two files of
 * that name apart), where it was and what it held when its units were compiled (the
 * profile's "sources"), as far as the files say. */
typedef struct {
    char *name;
    char *path;             /* absolute; NULL if no file says */
    char *hash;             /* format/hash.h's text; NULL if unknown */
    int64_t bytes;          /* -1 if unknown */
    char *conflict;         /* NULL, or why the units or files disagree about it */
} cprof_prof_source;

/* A time that is an estimate (docs/semantics.md, "Sampled timing"): the callee time of
 * one call site's calls of a routine, in one calling context and case, measured on a
 * sample of them and scaled up (calls x timed_time / timed, which the file's time
 * columns hold); var, the square of its error: calls^2 x s^2 / timed x (1 - timed / calls), s^2 the sample variance of
 * the timed activations (NAN: unknown, with one timed activation of several).  The
 * rows of every worker and file with the same key are one, their vars added
 * (independent samples). */
typedef struct {
    size_t routine;         /* the callee */
    size_t caller;          /* the routine its call site is in */
    size_t path;            /* its context; CPROF_NO_PATH without contexts */
    int kase;               /* 0 S-S, 1 S-C, 2 C-S, 3 C-C */
    int64_t calls, timed;
    double var;
} cprof_prof_estimate;

/* How the files' activations were timed (their "timing"): the files that timed a
 * sample of some activations, and the first such file's rule. */
typedef struct {
    size_t sampled_files;
    int64_t period, min_activations;
    double short_ns;
    double call_cost_ns;
    bool periods_differ;    /* another sampled file had another period */
    size_t uncorrected_files;   /* sampled files with no measured untimed_ns (an older
                                   writer's, or no probe round measured one): their
                                   estimates' correction may be 0, and they may be high */
} cprof_prof_timing;

/* A program whose profiles are summed, and how many of its files. */
typedef struct {
    char *name;
    size_t nfiles;
} cprof_prof_program;

/* One process of an MPI job: the file of one rank (docs/mpi.md). */
typedef struct {
    int64_t rank;
    char *host;
    int64_t pid, start_unix_ns, elapsed_ns;
    size_t first_worker, nworkers;   /* its workers: workers[first_worker...] */
} cprof_prof_rank;

typedef struct {
    size_t nfiles;                   /* files summed */
    size_t nskipped;                 /* files left out by --keep-going */
    cprof_prof_program *programs;    /* [nprograms]: the first file's first */
    size_t nprograms;                /* more than 1 only with --force */
    const char *program;             /* programs[0].name */
    /* The ranks of one MPI job (files of rank >= 0), by rank; none for repeated runs
     * (files of rank -1).  A job's "first file" below is its lowest rank's. */
    cprof_prof_rank *ranks;
    size_t nranks;
    char *job;                       /* the job's id ("": unknown); NULL without ranks */
    int64_t size;                    /* the job's size (-1: unknown) */
    size_t nhosts;                   /* the ranks' different hosts */
    char *clock;                     /* from the first file */
    size_t untimed_files;            /* of them, those with no clock (CPROF_MODE=count) */
    /* Every file with calling contexts has their self times (an older writer's have
     * not: then no path output has worker times). */
    bool path_self;
    int64_t pid, start_unix_ns;      /* from the first file */
    double call_cost_ns;             /* from the first file: one profiled call's cost */
    double count_cost_ns;            /* from the first file: one call-site count's (0: none) */
    double overhead_ns;              /* sum over files of call_cost_ns x entries */
    /* What profiling cost, measured (docs/overhead.md): the files with CPU samples,
     * their samples and those in cprof's code summed, the first one's period, what the
     * samples leave out and its notes (what was not sampled); the files measured with
     * no samples, the first one's reason. */
    size_t ovh_files, ovh_none_files;
    int64_t ovh_samples, ovh_in_cprof, ovh_period_ns;
    char *ovh_not_covered, *ovh_notes, *ovh_reason;
    bool compensated;                /* times have the profiler's cost taken out */
    double compensated_ns;           /* what that took out of the self times, in all */
    /* The OpenMP runtime of the first file that names one, and how it was observed
     * (docs/profile-format.md, "openmp"); the files whose calls' cases were not measured
     * (two runtimes loaded), and those whose parallel regions and tasks were not
     * observed, with the first file's reason. */
    char *omp_runtime, *omp_observed, *omp_reason;
    size_t omp_uncased_files, omp_unseen_files;
    /* The files recorded with a trace (CPROF_TRACE=1), their events recorded and
     * dropped (a full buffer), summed. */
    size_t trace_files;
    int64_t trace_events, trace_dropped;
    int64_t pus, cores, packages;    /* "machine" of the first file */
    int64_t elapsed_ns;              /* sum over the files; a job's: its longest rank's */
    cprof_prof_worker *workers;      /* [nworkers], by id */
    size_t nworkers;
    cprof_prof_routine *routines;    /* by name, then file (strcmp order) */
    size_t nroutines;
    cprof_prof_arc *arcs;            /* by caller (external first among equal names), callee */
    size_t narcs;
    cprof_prof_path *paths;          /* a parent before its children */
    size_t npaths;
    cprof_prof_resource *resources;  /* [nresources], the order the files give */
    size_t nresources;
    cprof_prof_region *regions;      /* by file, line, kind; the unnamed last */
    size_t nregions;
    /* [w * nresources + r]: resource r's exact total on worker w, -1 if it had no
     * counter there; [(w * nresources + r) * 2 + side]: its samples outside any
     * profiled activation.  NULL with no resource. */
    int64_t *res_total, *res_outside;
    /* Input-sensitive profiles (docs/input-size.md), if the files have them: per
     * routine and read memory size, the tuples of every worker, context and file; and
     * per routine, calling context (the context a recursion folds into) and size, those
     * of every worker and file. */
    cprof_prof_size *sizes;          /* by routine, then n; path CPROF_NO_PATH */
    size_t nsizes;
    cprof_prof_size *path_sizes;     /* by routine, path, then n */
    size_t npath_sizes;
    cprof_prof_sizes_info size_info;
    /* The units the files say cprof-cc compiled without profiling, each (file, reason)
     * once, by file then reason. */
    cprof_prof_unprofiled *unprofiled;
    size_t nunprofiled;
    /* Placement (docs/placement.md): the machines (one per host), the processes (a job's
     * ranks; of repeated runs the first file's), and each worker's ([nworkers], NULL if
     * no file has any). */
    cprof_prof_machine *machines;
    size_t nmachines;
    cprof_prof_process *processes;
    size_t nprocesses;
    cprof_prof_placement *placement;
    cprof_prof_source *sources;      /* by name: every file a routine or site names */
    size_t nsources;
    /* Sampled timing: the estimated times, by routine, caller, path and case; none
     * where every activation was timed. */
    cprof_prof_estimate *estimates;
    size_t nestimates;
    cprof_prof_timing timing;
} cprof_profile;

/* Name under which an external caller is reported (merge.c). */
extern const char cprof_external_name[];

typedef struct {
    char *const *paths;  /* the files, npaths >= 1 */
    size_t npaths;
    bool compensate;     /* take out of every time the estimated cost of the profiled
                          * calls made inside it (docs/report.md, "Compensation") */
    bool force;          /* sum profiles of different programs */
    /* NULL: the first bad file fails the load.  Otherwise a bad file is left out and
     * warn gets its "FILE: problem" (--keep-going). */
    void (*warn)(const char *msg);
} cprof_load_opts;

/* The calling contexts of p seen from the routines named name (paths.c): with up false,
 * Hall and Goldberg's downward profile rooted there (the trees under its outermost
 * contexts, merged); with up true, the upward one (from the routine to each path's
 * root, every step weighted by the routine's figures there, its resources' samples
 * those of its context's subtree).  Contexts of the routine
 * nested in one of its own count in the outer one only.  *paths is malloc'd (free it
 * with cprof_paths_free on a profile holding it); -1 if no context has the routine. */
int cprof_paths_derive(const cprof_profile *p, const char *name, bool up,
                       cprof_prof_path **paths, size_t *npaths);
/* Frees p->paths (and only them). */
void cprof_paths_free(cprof_profile *p);
/* Each context's inclusive time, from the self times (paths before their children). */
void cprof_paths_inclusive(cprof_prof_path *paths, size_t npaths);

/* Read, validate and sum the profile files into *p, one file at a time.  Counts are the
 * same with compensation or without.  Profiles of different programs are refused
 * unless o->force; the files are either repeated runs (rank -1) or the ranks of one
 * MPI job, each rank once (job.c).  Returns 0, or -1 with *p left empty and "FILE:
 * problem" in err. */
int cprof_profile_load(cprof_profile *p, const cprof_load_opts *o, char *err, size_t errlen);

void cprof_profile_free(cprof_profile *p);

/* Whether no file measured the calls' cases (two OpenMP runtimes were loaded). */
bool cprof_cases_unknown(const cprof_profile *p);

#endif
