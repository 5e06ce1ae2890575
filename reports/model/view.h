/* view.h: what the sections of the text report compute from the merged profile, once:
 * the command-line options, and per routine its label, calls, self and inclusive time
 * (docs/report.md says how each is derived). */
#ifndef CPROF_REPORT_VIEW_H
#define CPROF_REPORT_VIEW_H

#include "profile.h"

#include <stdbool.h>

typedef enum {
    CPROF_SORT_SELF, CPROF_SORT_INCLUSIVE, CPROF_SORT_CALLS, CPROF_SORT_NAME
} cprof_sort;

typedef struct {
    bool brief;            /* -b: no explanations */
    cprof_sort sort;       /* --sort: order of the flat profile */
    double threshold;      /* --threshold: hide flat and call graph entries below (%) */
    bool has_threshold;
    const char *routine;   /* --routine: only entries that involve routines of this name */
    bool csv;              /* --csv: a section the profile has nothing for is its header */
    bool resources;        /* --resources: their columns in the flat profile, the call
                              paths and the per-thread table, their tables at the end */
} cprof_opts;

typedef struct {
    char *label;          /* name, or "name (file)" if another routine has the same name */
    int64_t s_calls;      /* sequential entries */
    int64_t c_calls;      /* concurrent entries, all workers */
    /* Worker time (summed over the workers that ran it) and wall time (elapsed on the
     * thread that entered, sequential entries only), docs/report.md. */
    int64_t self;         /* worker: self time, sequential + concurrent, all workers (ns) */
    int64_t inclusive;    /* worker: time the routine was open on each thread, summed */
    int64_t wall_self;    /* wall: self time of the sequential activations */
    int64_t wall;         /* wall: time of the outermost sequential activations */
    int64_t team;         /* worker: the part of inclusive that is team time */
    int64_t team_self;    /* worker: the part of self that is team time */
    int64_t self_calls;   /* calls of the routine by itself (its self-arc) */
    /* Whether its times were measured (docs/report.md, "Times not measured"): its own
     * (not in a count-only profile, nor of a routine counted at its call sites), and its
     * wall times (not of a routine entered only concurrently, which has none). */
    bool timed, wall_timed;
    /* Whether its sequential (S-S) and its concurrent calls reached a timed routine
     * (calls of routines counted at their call sites add no callee time), and whether
     * it called other routines at all. */
    bool s_callees_timed, c_callees_timed, calls_others;
    bool ran;             /* entered at least once */
    /* The errors of self, inclusive (worker), wall self and wall inclusive: self's
     * those of its own time and of its callees' it is computed from (errors.c). */
    cprof_error self_err, incl_err, wall_self_err, wall_err;
    /* Those of the time of its concurrent entries, and of its calls in each case. */
    cprof_error c_err, callee_err[4];
    bool match;           /* named by --routine (every routine if there is none) */
} cprof_rview;

/* A parallel region's or task's figures over the workers (constructs.c, docs/report.md,
 * "Parallel regions and tasks"). */
typedef struct {
    cprof_prof_region_worker sum;  /* summed over the workers; team sizes over them all */
    int64_t executions;   /* a region's: the executions opened; a task's: the tasks run */
    int64_t workers;      /* workers that ran its body */
    int64_t busy_min, busy_max;    /* over those workers */
    double imbalance;     /* sum.max_busy / sum.mean_busy; 0 for a task, or no time */
    int64_t lost;         /* sum.max_busy - sum.mean_busy: what a balanced team saves */
    size_t parent;        /* the construct it is nested in (SIZE_MAX: none), by the
                             calling contexts: around its heaviest one */
    int depth;            /* how many constructs it is nested in */
    bool ran;             /* its body ran, or it was opened */
} cprof_gview;

typedef struct {
    const cprof_profile *p;
    const cprof_opts *o;
    bool timed;           /* some file read a clock (not all ran with CPROF_MODE=count) */
    cprof_rview *r;       /* [p->nroutines] */
    int64_t total_self;   /* sum of every routine's self: all time spent in routines */
    cprof_gview *g;       /* [p->nregions] */
    size_t *g_order;      /* the constructs that ran, each after the one it is nested in:
                             the most waiting first, then the busiest (ng of them) */
    size_t ng;
    /* Sampled timing (errors.c): each arc's error [narcs]; the routines with an
     * estimated time, those whose error is unknown, and the largest relative error of a
     * routine's worker self time (max_rel_routine SIZE_MAX: none). */
    cprof_error *arc_err;
    size_t nestimated, nunknown;
    double max_rel;
    size_t max_rel_routine;
} cprof_view;

/* A routine's entries and worker times on some of the workers (all of them: its
 * cprof_rview's; in an MPI job, those of one rank). */
typedef struct {
    int64_t s_calls, c_calls, self, inclusive;
    int64_t team, team_self;   /* the team time in inclusive and in self */
} cprof_figures;

/* Routine i on workers [from, to) of the profile. */
cprof_figures cprof_view_figures(const cprof_view *v, size_t i, size_t from, size_t to);
/* Routine i on rank k of an MPI job's profile (p->ranks[k]). */
cprof_figures cprof_view_rank(const cprof_view *v, size_t i, size_t k);

/* One time of a routine over the ranks of a job, those where it did not run counted as
 * 0 (the others waited for them all the same): min, mean and max, and the slowest rank,
 * the lowest with the max (its index in p->ranks). */
typedef struct {
    int64_t min, max;
    double mean;
    size_t slowest;
} cprof_rank_spread;

typedef struct {
    size_t ran;                        /* the ranks where it was entered */
    cprof_rank_spread inclusive, self; /* of its worker inclusive and self time */
    /* The imbalance of its concurrent entries over the workers of each rank (as in the
     * concurrency cases, within one rank): the largest, and that rank (index in
     * p->ranks); 0 if it has none. */
    double threads;
    size_t threads_rank;
} cprof_rank_balance;

cprof_rank_balance cprof_view_rank_balance(const cprof_view *v, size_t i);
/* max / mean; 0 if there is no time to spread. */
double cprof_rank_imbalance(const cprof_rank_spread *s);

/* constructs.c: v->g and v->g_order (cprof_view_init calls it). */
void cprof_view_regions(cprof_view *v);
/* Worker w's busy time in parallel regions: in the outermost constructs it ran. */
int64_t cprof_view_region_busy(const cprof_view *v, size_t w);

/* errors.c: v's errors (cprof_view_init calls it). */
void cprof_view_errors(cprof_view *v);

/* Fill v from p and o; -1 (and nothing to free) if o->routine names no routine of p. */
int cprof_view_init(cprof_view *v, const cprof_profile *p, const cprof_opts *o);
void cprof_view_free(cprof_view *v);

/* A callee time counted once per stretch of its thread's time: t less the activations
 * nested in one of the same routine on the same thread (never below 0). */
int64_t cprof_outer(const cprof_tally *x);

/* One per-worker tally of a routine (at byte offset off in cprof_prof_routine_worker)
 * summed over all workers, and spread over the workers with at least one event: how
 * many, the min, sum and max of their times.  A worker with no event is left out: with
 * nested parallelism most workers are the short-lived threads of other teams. */
typedef struct {
    cprof_tally sum;
    int64_t workers, min, busy, max;
} cprof_spread;

cprof_spread cprof_view_spread(const cprof_view *v, size_t i, size_t off);
/* The same over workers [from, to) only (in an MPI job, one rank's). */
cprof_spread cprof_view_spread_of(const cprof_view *v, size_t i, size_t off, size_t from,
                                  size_t to);
/* max / mean over the workers with events; 0 if there is no time to spread. */
double cprof_spread_imbalance(const cprof_spread *s);

/* Whether the routine or the caller/callee of an arc is named by --routine (an
 * external caller never is). */
bool cprof_view_arc_match(const cprof_view *v, const cprof_prof_arc *a);
/* Whether the times of an arc (its callee's activations) were measured. */
bool cprof_view_arc_timed(const cprof_view *v, const cprof_prof_arc *a);
/* Whether context i's times were measured (docs/report.md, "Call paths"): not those of a
 * counted routine (its time is its caller's context's), nor of a recursive call's (in
 * the context it folds into), nor in a profile without the contexts' self times. */
bool cprof_view_path_timed(const cprof_view *v, size_t i);

#endif
