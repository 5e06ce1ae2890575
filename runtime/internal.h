/* internal.h: what the runtime's files share with each other (not installed). */
#ifndef CPROF_INTERNAL_H
#define CPROF_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include "cprof.h"

/* ---- clock.c: one monotonic tick source shared by all workers ---- */

/* CPROF_CLOCK_NONE is the count-only mode (CPROF_MODE=count): no clock is read per
 * call, every time is 0. */
enum cprof_clock_kind { CPROF_CLOCK_TSC, CPROF_CLOCK_MONOTONIC, CPROF_CLOCK_NONE };
extern enum cprof_clock_kind cprof_clock;

static inline uint64_t cprof_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_expect(cprof_clock == CPROF_CLOCK_TSC, 1))
        return __builtin_ia32_rdtsc();
#endif
    if (cprof_clock == CPROF_CLOCK_NONE)
        return 0;
    extern uint64_t cprof_monotonic_ns(void);
    return cprof_monotonic_ns();
}

void cprof_clock_start(void);
uint64_t cprof_monotonic_ns(void);
double cprof_ns_per_tick(void);       /* calibrated between start and now */
uint64_t cprof_start_unix_ns(void);
uint64_t cprof_elapsed_ns(void);
const char *cprof_clock_name(void);

/* ---- workers.c: per-worker shards; only the owner writes its shard ---- */

/* Per worker and routine.  Index [0] is sequential, [1] concurrent. */
struct cprof_routine_rec {
    uint64_t entries[2];
    uint64_t time[2];          /* outermost activations only (paper 4.4.1), ticks */
    uint64_t ext[2];           /* entries from code cprof did not compile */
    uint64_t ext_time[2];
    uint64_t self_time[2];     /* all activations, minus their callees on the same thread */
    /* For compensating the profiler's own cost in reports: profiled calls made on this
     * thread inside the outermost activations (their times include those calls'
     * facades), inside external entries, and directly by any activation (self). */
    uint64_t nested[2];
    uint64_t ext_nested[2];
    uint64_t direct[2];
    int depth;                 /* concurrent activations open on this worker */
    int max_depth;
};

/* The four cases, caller entry then callee call. */
enum { CPROF_SS, CPROF_SC, CPROF_CS, CPROF_CC, CPROF_NCASES };

/* Per worker, call site and callee reached from it. */
struct cprof_call_rec {
    struct cprof_call_rec *next;    /* other callees of the same site (function pointers) */
    int callee;                     /* routine id */
    uint64_t count[CPROF_NCASES];
    uint64_t time[CPROF_NCASES];    /* ticks */
    uint64_t nested[CPROF_NCASES];  /* profiled calls inside these activations, same thread */
};

/* One open activation, on its worker's shadow stack. */
struct cprof_frame {
    uint64_t t0;
    uint64_t children;              /* elapsed time of activations nested in this one */
    uint64_t calls0;                /* the worker's call count at entry */
    uint64_t *nested_slot;          /* call record (or external) nested-calls counter */
    uint32_t direct;                /* activations nested directly in this one */
    uint64_t *time_slot;            /* call record (or external) time to add the elapsed time to */
    struct cprof_routine_rec *rec;
    struct cprof_routine *routine;
    const void *sp;                 /* stack position at entry: finds frames skipped by longjmp */
    unsigned char concurrent, outermost;
};

#define CPROF_JMP_MARKS 16

struct cprof_worker {
    int id;
    pid_t tid;
    int omp_thread;
    int pu;
    /* Taken by the owner only on slow paths (growing tables) and by the profile writer. */
    pthread_mutex_t lock;
    struct cprof_routine_rec **routines;    /* by routine id */
    int routines_cap;
    struct cprof_call_rec **sites;          /* by site id */
    int sites_cap;
    char *arena, *arena_end;                /* records are carved from here: they never move */
    struct cprof_frame *stack, *top, *stack_end;
    uint64_t calls;                         /* entries on this worker so far */
    struct { void *env; struct cprof_frame *top; } jmp[CPROF_JMP_MARKS];
    int jmp_next;
    struct cprof_worker *next;
};

extern __thread struct cprof_worker *cprof_self;

/* A listed worker is the calling thread's shard for good; an unlisted one is scratch
 * (start-up measurement), released with cprof_worker_destroy(). */
struct cprof_worker *cprof_worker_create(int listed);
void cprof_worker_destroy(struct cprof_worker *w);
struct cprof_worker *cprof_workers(void);        /* list head, newest first */
struct cprof_routine_rec *cprof_routine_rec_slow(struct cprof_worker *w, int routine);
struct cprof_call_rec *cprof_call_rec_slow(struct cprof_worker *w, int site, int callee);

/* ---- units.c: the global tables of routines and call sites ---- */

void cprof_routine_id_slow(struct cprof_routine *r);
void cprof_site_id_slow(struct cprof_site *s);
/* Snapshot of the tables for the writer; valid until the next registration. */
void cprof_tables(struct cprof_routine ***routines, int *nroutines,
                  struct cprof_site ***sites, int *nsites);
void cprof_tables_lock(void);
void cprof_tables_unlock(void);

/* ---- facade.c ---- */

/* Closes every open activation of every worker as if it returned now (exit). */
void cprof_close_open_frames(void);
/* Measures what one cprof_enter + cprof_leave pair costs, in ns, on scratch data. */
double cprof_facade_cost_ns(void);

/* ---- profile.c ---- */

void cprof_runtime_start(void);
/* stack.c: lets the initial thread's stack grow past the soft limit it started with. */
void cprof_stack_start(void);

#endif
