/* internal.h: what the runtime's files share with each other (not installed). */
#ifndef CPROF_INTERNAL_H
#define CPROF_INTERNAL_H

#include <omp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "cprof.h"
#include "../format/schema.h"

/* ---- openmp.c: the program's OpenMP runtime, and how cprof observes it ---- */

/* What the runtime asks the OpenMP runtime, through this thread's table: libgomp's or
 * libomp's functions, or, on a thread libomp has not registered yet, the answers of
 * the initial task (level 0, one thread) without calling it: libomp initializes itself
 * on its first call, with the program's malloc (docs/semantics.md, "OpenMP runtimes").
 * Every omp_get_ call of the runtime goes through it (the macros below). */
struct cprof_omp_api {
    int (*active_level)(void);
    int (*level)(void);
    int (*team_size)(int level);
    int (*num_threads)(void);
    int (*thread_num)(void);
};
extern __thread const struct cprof_omp_api *cprof_omp_here;
#define omp_get_active_level() (cprof_omp_here->active_level())
#define omp_get_level() (cprof_omp_here->level())
#define omp_get_team_size(l) (cprof_omp_here->team_size(l))
#define omp_get_num_threads() (cprof_omp_here->num_threads())
#define omp_get_thread_num() (cprof_omp_here->thread_num())
/* libomp registered the calling thread (OMPT thread-begin): its own answers from now;
 * and let it go (thread-end): the initial task's again. */
void cprof_omp_registered(void);
void cprof_omp_unregistered(void);

/* How the parallel regions and tasks are observed: at the link (gomp.c wraps libgomp's
 * entry points), by OMPT (ompt.c, libomp), or not at all: libomp gives no OMPT (so the
 * cases are right, but no region is seen), or two runtimes are loaded (neither the
 * cases nor the regions can be known). */
enum cprof_omp_source { CPROF_OMP_UNKNOWN, CPROF_OMP_LINK, CPROF_OMP_OMPT, CPROF_OMP_UNSEEN,
                        CPROF_OMP_MIXED };
extern enum cprof_omp_source cprof_omp_source;
/* Start-up (before the facade is chosen): which runtimes the process loaded, the
 * source, and one line on stderr if the regions or the cases cannot be observed. */
void cprof_openmp_start(void);
/* ompt.c: libomp offers OMPT (runtime_version its name): whether cprof takes it; and
 * the tool's initialization, which registered every callback (ok) or not (missing
 * names the first it could not). */
int cprof_openmp_tool_offered(const char *runtime_version);
void cprof_openmp_tool_ready(int ok, const char *missing);
/* Whether the OpenMP runtime may be asked anything now without starting it (libgomp:
 * always; libomp: once it has started, by itself or by cprof; two runtimes: never). */
int cprof_openmp_ready(void);
struct cprof_json;
/* The profile's "openmp" section (format/schema.h). */
void cprof_openmp_write(struct cprof_json *j);
/* ompt.c's ompt_start_tool, which openmp.c checks the runtime will call. */
struct ompt_start_tool_result_t;
struct ompt_start_tool_result_t *cprof_ompt_start_tool(unsigned int omp_version,
                                                       const char *runtime_version);

/* ---- clock.c: one monotonic tick source shared by all workers ---- */

/* CPROF_CLOCK_NONE is the count-only mode (CPROF_MODE=count): no clock is read per
 * call, every time is 0. */
enum cprof_clock_kind { CPROF_CLOCK_TSC, CPROF_CLOCK_MONOTONIC, CPROF_CLOCK_NONE };
extern enum cprof_clock_kind cprof_clock;

/* The facade is compiled once per clock kind, so the kind is a constant there. */
static inline __attribute__((always_inline)) uint64_t cprof_ticks_of(enum cprof_clock_kind kind)
{
#if defined(__x86_64__) || defined(__i386__)
    if (kind == CPROF_CLOCK_TSC)
        return __builtin_ia32_rdtsc();
#endif
    if (kind == CPROF_CLOCK_NONE)
        return 0;
    extern uint64_t cprof_monotonic_ns(void);
    return cprof_monotonic_ns();
}

static inline uint64_t cprof_ticks(void) { return cprof_ticks_of(cprof_clock); }

void cprof_clock_start(void);
uint64_t cprof_monotonic_ns(void);
double cprof_ns_per_tick(void);       /* calibrated between start and now */
uint64_t cprof_start_unix_ns(void);
uint64_t cprof_elapsed_ns(void);       /* since start, or the last reset */
void cprof_clock_reset(void);           /* elapsed and the start time from now */
const char *cprof_clock_name(void);

/* ---- settings.c: CPROF_ variables that take a word or a number ---- */

/* The index of the word (a null-terminated list) that variable name is set to; unset or
 * empty: fallback; any other value: fallback, after one line on stderr that lists the
 * words and says what is done instead (meaning). */
int cprof_setting_word(const char *name, const char *const *words, int fallback,
                       const char *meaning);
/* Variable name as a whole number in [min, max] into *out: 0 (*out kept if unset or
 * empty), or -1 after one line on stderr ending with meaning (*out kept). */
int cprof_setting_number(const char *name, unsigned long long min, unsigned long long max,
                         unsigned long long *out, const char *meaning);

/* ---- memory.c: the runtime's memory, never the program's malloc ---- */

/* Zeroed, 64-byte aligned; freed with the size it was asked with. */
void *cprof_alloc(size_t size);
void cprof_free(void *p, size_t size);
void *cprof_realloc(void *p, size_t old, size_t size);
__attribute__((noreturn)) void cprof_out_of_memory(void);

/* ---- topology.c: the machine, as the profile describes it (docs/placement.md) ---- */

struct cprof_json;
/* The "machine" section, its topology from cprof-topology (run once, at the first
 * profile written), or why there is none. */
void cprof_topology_write(struct cprof_json *j);
int cprof_topology_core_of(int pu);     /* the logical index of its core; -1 if unknown */

/* ---- json.c: the profile's JSON, written as it is made ---- */

struct cprof_json {
    int fd, err, need_comma;
    char *buf;
    size_t len;
};
void cprof_json_open(struct cprof_json *j, int fd);
int cprof_json_close(struct cprof_json *j);     /* -1 with errno if a write failed */
void cprof_json_begin(struct cprof_json *j, char bracket);     /* '{' or '[' */
void cprof_json_end(struct cprof_json *j, char bracket);       /* '}' or ']' */
void cprof_json_key(struct cprof_json *j, const char *key);
void cprof_json_string(struct cprof_json *j, const char *s);
void cprof_json_int(struct cprof_json *j, int64_t v);
void cprof_json_uint(struct cprof_json *j, uint64_t v);
void cprof_json_real(struct cprof_json *j, double v);
void cprof_json_bool(struct cprof_json *j, int v);
void cprof_json_null(struct cprof_json *j);
/* A key and its value. */
void cprof_json_field_int(struct cprof_json *j, const char *key, int64_t v);
void cprof_json_field_uint(struct cprof_json *j, const char *key, uint64_t v);
void cprof_json_field_string(struct cprof_json *j, const char *key, const char *s);
void cprof_json_field_real(struct cprof_json *j, const char *key, double v);

/* ---- workers.c: per-worker shards; only the owner writes its shard ---- */

/* The four cases, caller entry then callee call. */
enum { CPROF_SS, CPROF_SC, CPROF_CS, CPROF_CC, CPROF_NCASES };

struct cprof_routine_rec;

struct cprof_node;

/* What a call record and a calling context hold alike, per case: a frame's slot points
 * at time[case] of either, and finds the others at fixed distances.  Only the owner
 * writes them (the profile writer reads them as they are).
 *  - count: the calls counted here; for a routine whose calls are timed on a sample
 *    (docs/semantics.md, "Sampled timing"), the timed ones, the others in untimed;
 *  - time: the elapsed time of the timed activations (ticks);
 *  - nested: the profiled calls inside those activations, same thread;
 *  - self, direct: their time less that of the activations nested directly in them on
 *    their thread, and how many those were (the routine's self time and, in the
 *    calling contexts, the context's: the profile writer sums them);
 *  - rec_time, rec_nested: of those activations, the ones nested in an activation of the
 *    same routine on the same thread (recursion): their time and nested calls, kept only
 *    when such an activation closes, so that a report can count each stretch of a
 *    thread's time once (docs/semantics.md, "Wall and worker time");
 *  - thread_time, thread_nested: concurrent activations outermost on their own thread
 *    that the paper's rule does not count as outermost (the initial thread had the
 *    routine open sequentially); the others are outermost: their time is the routine's
 *    caller time;
 *  - untimed: calls counted without a frame (a sampled routine's unsampled calls). */
#define CPROF_FIGURE_FIELDS \
    unsigned long long count[CPROF_NCASES];     /* the type cprof.h gives counted sites */ \
    uint64_t time[CPROF_NCASES]; \
    uint64_t nested[CPROF_NCASES]; \
    uint64_t self[CPROF_NCASES]; \
    uint64_t direct[CPROF_NCASES]; \
    uint64_t rec_time[CPROF_NCASES]; \
    uint64_t rec_nested[CPROF_NCASES]; \
    uint64_t thread_time[CPROF_NCASES]; \
    uint64_t thread_nested[CPROF_NCASES]; \
    unsigned long long untimed[CPROF_NCASES]; \
    struct cprof_routine_rec *rec;  /* the callee's record on this worker (a context's \
                                       root or <other>: null) */ \
    struct cprof_sample *sample;    /* its sampled activations' sums, once it has any */
/* The figures' arrays, in their order: a frame's slot is &time[case], the others are
 * CPROF_NCASES apart. */
enum { CPROF_FIG_COUNT, CPROF_FIG_TIME, CPROF_FIG_NESTED, CPROF_FIG_SELF, CPROF_FIG_DIRECT,
       CPROF_FIG_REC_TIME, CPROF_FIG_REC_NESTED, CPROF_FIG_THREAD_TIME, CPROF_FIG_THREAD_NESTED,
       CPROF_FIG_UNTIMED, CPROF_NFIGS };
#define CPROF_SLOT(fig) (((fig) - CPROF_FIG_TIME) * CPROF_NCASES)
struct cprof_figures {
    CPROF_FIGURE_FIELDS
};
_Static_assert(__builtin_offsetof(struct cprof_routine, seq_depth) % 8 == 0,
               "a frame marks the low bits of a depth's address");
_Static_assert(sizeof(struct cprof_figures) == CPROF_NFIGS * CPROF_NCASES * 8 + 16,
               "the figures' arrays, back to back");

/* A sampled routine's timed activations of one case in one record or context: their
 * number, the sum of their times and of their squares (ticks), what its estimated
 * times are made of (docs/semantics.md, "Sampled timing").  The activations timed
 * before it was sampled are in the figures, not here. */
struct cprof_sample {
    uint64_t n[CPROF_NCASES];
    uint64_t sum[CPROF_NCASES];
    double sq[CPROF_NCASES];
};

/* Per worker, call site and callee reached from it.  Also embedded in each routine
 * record for the entries from code cprof did not compile, which use the SS slot
 * (sequential entry) and the CS slot (concurrent entry). */
struct cprof_call_rec {
    union {
        struct cprof_figures fig;
        struct { CPROF_FIGURE_FIELDS };
    };
    struct cprof_call_base *base;   /* control.c: what a reset or a stop took out; null
                                       until the program first stops or resets */
    struct cprof_node *nodes;       /* the calling contexts of its calls: its own figures
                                       hold only the calls no context took */
    struct cprof_call_rec *made_next;   /* the worker's records, newest first */
    struct cprof_call_rec *next_of_callee;  /* the worker's other records of its callee */
    int callee;                     /* routine id */
    int site;                       /* site id (not for a routine's external entries) */
};

/* A context's adjustments of its self time and direct calls: for the routine's
 * sequential and concurrent activations (a region's or task's body nested directly in
 * one: its calls are not the context's children in the tree; an activation past the
 * node limit nested directly in one), and for the context alone (a body's own time,
 * which is the context's but no routine's; the frames under an <other> context). */
enum { CPROF_ADJ_SELF_S, CPROF_ADJ_SELF_C, CPROF_ADJ_DIRECT_S, CPROF_ADJ_DIRECT_C,
       CPROF_ADJ_SELF, CPROF_ADJ_DIRECT, CPROF_NADJ };

/* A calling context on one worker (docs/semantics.md, "Calling contexts"): a call
 * record (a site and the routine it reached, or a routine's entries from outside) in
 * the context of its parent.  Its figures have the call record's layout, so a frame's
 * slot points at either; a record's figures in the profile are its own plus its
 * contexts'.  A context that would put a routine on its path a second time is not
 * made deeper: its activations' calls hang from the context of that routine further up
 * (canon), so recursion never grows the tree.  Found by (parent, key) in the worker's
 * hash (workers.c); made, and written, by its worker alone; the profile writer reads
 * the worker's contexts from their list (made_next), which only grows at its head. */
struct cprof_node {
    union {
        struct cprof_figures fig;
        struct { CPROF_FIGURE_FIELDS };
    };
    struct cprof_call_rec *key;     /* null for a worker's root and for an <other> node */
    struct cprof_node *parent;
    struct cprof_node *canon;       /* where its activations' calls hang: itself, or the
                                       ancestor of the same routine it folds into */
    struct cprof_node *other;       /* the <other> child: calls past the node limit */
    struct cprof_node *same_key;    /* the next context of the same call record */
    struct cprof_node *made_next;   /* every node of the worker, newest first */
    struct cprof_call_base *base;   /* control.c, as a call record's */
    /* Its self time (and direct calls) is made by the profile writer from the tree:
     * the time of the activations whose calls hang from it, less that of the
     * activations nested in them (its call children).  What the tree does not show is
     * added here as it happens (modulo 2^64: a figure taken out is a large one added),
     * per side of the routine whose context it is (so, for a routine's activations
     * too) or for the context alone: CPROF_ADJ_*. */
    uint64_t adj[CPROF_NADJ];
    int id;                         /* in order of making, 0 the root */
    /* Samples of each resource (resources.c), entered sequentially and concurrently:
     * [2 * resource + side], cprof_node_extra bytes.  A copy of a node has none. */
    uint64_t samples[];
};

/* A worker's cache of one call site (by site id): the context its calls were made in
 * last with their case (key: the context's address, whose low bits are free, or'ed
 * with the case), and what an entry from it needs then, worked out once: where it
 * counts and times (time[case] of its figures), the context of the calls its
 * activation makes, the depth it raises and the one it adds (the paper's rule: a
 * routine's shared sequential depth, its own on the worker, or zero), the routine it
 * reached (a site through a pointer reaches several). */
struct cprof_slot {
    uintptr_t key;
    uint64_t *time;
    struct cprof_node *ctx;
    int *mine;
    const int *other;
    const struct cprof_routine *routine;
    struct cprof_routine_rec *rec;
    long case0;                     /* the callee's case0 (cprof_pending): C-S unless the
                                       key's case is S-S */
};

/* A routine's figures on one worker, for its sequential or its concurrent entries, and
 * its team time.  The first two are the sums of the routine's records' and contexts'
 * figures, which the profile writer makes (profile.c); omp.c keeps the team side as
 * bodies end.  The thread_ fields are concurrent activations
 * outermost on their own thread that the paper's rule does not count as outermost (the
 * initial thread had the routine open sequentially): with `time` they give the time
 * the routine was open on this thread. */
struct cprof_side {
    uint64_t time;                  /* outermost activations only (paper 4.4.1), ticks */
    uint64_t thread_time;
    uint64_t self_time;             /* all activations, minus their callees on this thread */
    /* For compensating the profiler's own cost in reports: profiled calls made on this
     * thread inside the outermost activations (their times include those calls'
     * facades), and directly by any activation (self). */
    uint64_t nested;
    uint64_t thread_nested;
    uint64_t direct;
};

/* A routine record's sides: its sequential and concurrent entries, and its team time
 * (omp.c, docs/semantics.md "Team time"): the bodies of parallel regions that this
 * worker ran for a team opened under the routine by another thread, where it has no
 * activation.  The team side's time is their inclusive time, self_time the part of the
 * routine whose body has the construct, nested and direct the calls made in them;
 * thread_time and thread_nested stay 0. */
enum { CPROF_SIDE_S, CPROF_SIDE_C, CPROF_SIDE_TEAM, CPROF_NSIDES };

/* Per worker and routine.  Entries are not counted here: they are the sum of the call
 * records that reach the routine. */
struct cprof_routine_rec {
    struct cprof_call_rec ext;      /* entries from code cprof did not compile */
    struct cprof_call_rec *records; /* the worker's records of calls from sites to it */
    struct cprof_side side[CPROF_NSIDES];
    /* Activations open on this worker, but the initial thread's sequential ones
     * (cprof_routine.seq_depth); 8-aligned, as that one: a frame keeps its marks in the
     * low bits of the depth's address. */
    int depth __attribute__((aligned(8)));
    int max_depth;                  /* of its nested activations: 1 is not kept */
    struct cprof_side *side_base;   /* control.c: side[] at the last reset, or null */
    signed char traced;             /* trace.c: 1 its activations (or a construct's
                                       bodies) are traced, -1 not (CPROF_TRACE_INCLUDE,
                                       _EXCLUDE), 0 not known yet */
};
/* One open activation, on its worker's shadow stack.  The stack's first frame is a
 * sentinel that is never closed: every real frame has a parent to add its time to.
 * What the common exit needs comes first. */
struct cprof_frame {
    uint64_t t0;
    uint64_t *slot;                 /* time[case] of its figures (cprof_figures) */
    uint64_t calls0;                /* the worker's call count at entry */
    uintptr_t depth;                /* the depth this entry raised (an int *, 8-aligned)
                                       and in its low bits the CPROF_FRAME_ marks */
    uint64_t children;              /* elapsed time of activations nested in this one */
    struct cprof_node *ctx;         /* the context of the calls this activation makes */
    const void *sp;                 /* stack position at entry: finds frames skipped by longjmp */
    union {
        struct {
            uint32_t direct;        /* activations nested directly in this one */
            uint16_t rare;          /* with CPROF_FRAME_RARE: CPROF_RARE_* */
            uint16_t kase;          /* its case: kept only where resources are sampled
                                       (the facade variant they choose), else 0 */
        };
        uint64_t direct_rare;       /* the three, set at once */
    };
    /* An entry from outside (a signal handler) may have interrupted a call between its
     * site's handshake and the callee's entry: the handshake it found, given back at
     * its exit (CPROF_RARE_SAVED). */
    union {
        struct {
            const struct cprof_site *saved_site;
            void (*saved_target)(void);
            long saved_kase;
            int saved_case0;
            const void *saved_context;  /* the calls' context then (the frame below's,
                                           if it was whole) */
        };
    };
};
/* A frame's marks, which take its exit off the common path: not the routine's
 * outermost activation on its thread (or by the paper's rule), whose time goes to the
 * recursion's columns; and rarer needs, said in its rare field: its calls hang from an
 * <other> context (past the limit), whose self time is that context's; timed as a
 * sample of a sampled routine; an entry from outside (a child of the worker's root in
 * the tree, whatever frame it is nested in), which may keep the handshake it found. */
enum { CPROF_FRAME_INNER = 1, CPROF_FRAME_RARE = 2, CPROF_FRAME_MARKS = 7 };
enum { CPROF_RARE_OTHER = 1, CPROF_RARE_SAMPLE = 2, CPROF_RARE_SAVED = 4, CPROF_RARE_EXTERNAL = 8 };
static inline int *cprof_frame_depth(const struct cprof_frame *f)
{
    return (int *)(f->depth & ~(uintptr_t)CPROF_FRAME_MARKS);
}

/* Per worker, a parallel region or task construct (omp.c): its figures on the worker
 * (docs/semantics.md, "Parallel regions and tasks").  Its key stands for the construct
 * in calling contexts: a call record whose callee is no routine (-2 - site: recursion
 * folds on it as on a routine), whose count and time per case are the executions and
 * the time in the body, entered from the opener's (or creator's) side and run
 * sequentially or concurrently; own is the side and depth its frames use. */
struct cprof_construct_sums {
    uint64_t team_sum;
    uint64_t barriers, barrier_wait;    /* ticks */
    uint64_t end_wait;              /* ticks; added by the opener of each execution,
                                       another thread: atomically */
    uint64_t opened, max_busy, mean_busy;
    uint64_t tasks_inside;          /* ticks: other tasks run inside its task bodies,
                                       which are theirs, not its busy time */
    uint64_t end_tasks;             /* ticks: tasks its members ran at the closing
                                       barrier, busy time; added as end_wait is */
};
struct cprof_construct_rec {
    struct cprof_call_rec key;
    struct cprof_routine_rec own;
    int kind;                       /* CPROF_REGION_PARALLEL or _TASK */
    int team_min, team_max;         /* since the start, whatever a reset took out */
    struct cprof_construct_sums sum;
    struct cprof_construct_sums base;   /* sum at the last reset (control.c) */
    struct cprof_construct_rec *next;   /* the worker's, newest first */
};

/* A worker's lookup table (workers.c): its entries, open addressing. */
struct cprof_hash {
    void **cells;
    size_t cap, n;
};

#define CPROF_JMP_MARKS 16
#define CPROF_REGIONS_MAX 32        /* regions.c: user regions nested on a thread */

struct cprof_worker {
    /* What an entry and an exit read, together. */
    struct cprof_frame *top, *stack_end;
    struct cprof_slot *slots;               /* by site id */
    unsigned nslots;
    int initial;                    /* the process's initial thread (docs/semantics.md:
                                       its sequential depths are shared) */
    uint64_t calls;                         /* entries on this worker so far */
    struct cprof_frame *stack;
    int zero;                               /* the depth a plain pthread's sequential
                                               entry adds: its own alone */
    int bodies __attribute__((aligned(8)));     /* region and task bodies open: their
                                                   frames' depth (8-aligned, as a depth) */
    int id;
    pid_t tid;
    int omp_thread;
    struct cprof_place *place;      /* placement.c: where it ran */
    /* Taken by the profile writer and by control.c, to exclude each other; never by the
     * owner, which alone makes and writes its records and contexts.  Others read them
     * from the lists below, which only grow at their heads (stored with release). */
    pthread_mutex_t lock;
    struct cprof_routine_rec **routines;    /* by routine id; an index that grows is
                                               copied and the old one kept, so a reader
                                               of the old one never reads freed memory */
    int routines_cap;
    struct cprof_call_rec *records;         /* every call record, newest first */
    /* The owner's lookups: the records by (site, callee) and the contexts by (parent,
     * record). */
    struct cprof_hash recs, nodes_by_key;
    char *arena, *arena_end;                /* records are carved from here: they never move */
    struct cprof_node *root;                /* the context of entries from outside */
    struct cprof_node *nodes;               /* every context, newest first */
    int nnodes;
    uint64_t other_calls;                   /* timed calls past the node limit */
    int res_fd[CPROF_RESOURCES_MAX];        /* its counters (resources.c), -1: none */
    uint64_t res_base[CPROF_RESOURCES_MAX]; /* their values at the last reset */
    struct { void *env; struct cprof_frame *top; } jmp[CPROF_JMP_MARKS];
    /* User regions open on this thread, innermost last (regions.c): each one's frame
     * (null if none was kept) and the calls count it was entered at, which tells a
     * frame still open from one reused since. */
    struct { struct cprof_frame *frame; uint64_t calls0; } regions[CPROF_REGIONS_MAX];
    int nregions;                           /* may exceed CPROF_REGIONS_MAX: not kept */
    int jmp_next;
    /* omp.c: its construct records, by construct site id (unnamed ones chained only),
     * the execution of the innermost region or task it runs (barriers inside it are
     * its waits), the time it spent running tasks (a barrier's wait is less that), and
     * contexts of other workers already found in its own tree. */
    struct cprof_construct_rec **constructs, *construct_list;
    int constructs_cap;
    struct cprof_execution *running;
    uint64_t task_ticks;
    struct { const struct cprof_node *theirs; struct cprof_node *mine; } *mapped;
    /* omp.c: its task state off the thread's stack; gomp.c: the newest task block on
     * it, and the if(0) tasks' heads waiting for libgomp to run their bodies; ompt.c:
     * the innermost OMPT scope open on this thread, and its free task records. */
    struct cprof_lifo *lifo;
    struct cprof_task_call *blocks;
    struct cprof_inline_task *inline_tasks;
    struct cprof_ompt_scope *ompt_top;
    struct cprof_ompt_task *ompt_free;
    int ompt_nfree;
    struct cprof_worker *next;
    struct cprof_trace *trace;              /* trace.c: its events; null if not tracing */
};

/* This thread's shard, null until it runs instrumented code (the handshake then holds
 * cprof_no_worker: an entry's straight path, which finds it has no call site cached,
 * needs no test of its own). */
extern struct cprof_worker cprof_no_worker;
#define cprof_self (cprof_pending.worker == &cprof_no_worker ? (struct cprof_worker *)0 \
                                                             : cprof_pending.worker)
static inline void cprof_self_set(struct cprof_worker *w)
{
    cprof_pending.worker = w ? w : &cprof_no_worker;
}

/* The runtime's own code on this thread, between these two (they nest): its worker is
 * hidden, so that entries take the slow path, and they count nothing there. */
void cprof_inside_begin(void);
void cprof_inside_end(void);
/* Whether this thread may count now: its thread-local storage is set up and it is not
 * inside the runtime. */
int cprof_may_count(void);
/* For a slow path that found no worker: the thread's new one, or null if it may not
 * count now. */
struct cprof_worker *cprof_self_slow(void);
/* A listed worker is the calling thread's shard for good; an unlisted one is scratch
 * (start-up measurement), released with cprof_worker_destroy(). */
struct cprof_worker *cprof_worker_create(int listed);
void cprof_worker_destroy(struct cprof_worker *w);
struct cprof_worker *cprof_workers(void);        /* list head, newest first */
/* Worker w's record of routine id, made if need be (the owner's thread). */
static inline struct cprof_routine_rec *cprof_routine_rec(struct cprof_worker *w, int routine)
{
    extern struct cprof_routine_rec *cprof_routine_rec_slow(struct cprof_worker *w, int routine);
    struct cprof_routine_rec *r;
    if (routine < w->routines_cap && (r = w->routines[routine]))
        return r;
    return cprof_routine_rec_slow(w, routine);
}
/* Worker w's record of the calls from site id to routine id callee, made if need be. */
struct cprof_call_rec *cprof_call_rec_slow(struct cprof_worker *w, int site, int callee);
/* The context of call record c under parent (a canonical context), made if need be;
 * parent's <other> child when the worker has CPROF_PATHS_MAX contexts already (or
 * parent itself when it is an <other>): its calls count there, its key null. */
struct cprof_node *cprof_node_slow(struct cprof_worker *w, struct cprof_node *parent,
                                   struct cprof_call_rec *c);
/* Worker w's cache of site id (the owner's), grown to hold it. */
struct cprof_slot *cprof_slot_slow(struct cprof_worker *w, int site);

/* Worker w's record of construct site (or of an unnamed construct of kind, site null). */
struct cprof_construct_rec *cprof_construct_rec_slow(struct cprof_worker *w,
                                                     const struct cprof_site *site, int kind);

/* Carves zeroed memory from w's arena (w's own thread): it lives as long as w. */
void *cprof_worker_alloc(struct cprof_worker *w, size_t size);
/* A list head another thread reads, and its reading. */
#define cprof_publish(head, item) __atomic_store_n(&(head), (item), __ATOMIC_RELEASE)
#define cprof_published(head) __atomic_load_n(&(head), __ATOMIC_ACQUIRE)

/* ---- control.c: cprof_stop(), cprof_start(), cprof_reset() from the program ---- */

/* A call record's figures that a reset or a stop took out: its figures as they were at
 * the last reset, plus the calls counted while stopped; and the counts (timed and
 * untimed) at the last stop. */
struct cprof_call_base {
    uint64_t v[CPROF_NFIGS][CPROF_NCASES];
    uint64_t adj[CPROF_NADJ];           /* a context's */
    unsigned long long stop_count[2][CPROF_NCASES];
    uint64_t samples[];             /* a context's, cprof_node_extra bytes */
};
/* Start-up: CPROF_START=off begins stopped. */
void cprof_control_start(void);
/* What the profile shows of a record: the record less what was taken out (and a call
 * record's plus its contexts').  The record itself when nothing is, else scratch. */
const struct cprof_call_rec *cprof_call_now(const struct cprof_call_rec *c,
                                            struct cprof_call_rec *scratch);
const struct cprof_routine_rec *cprof_routine_now(const struct cprof_routine_rec *r,
                                                  struct cprof_routine_rec *scratch);
const struct cprof_node *cprof_node_now(const struct cprof_node *n, struct cprof_node *scratch);
/* Its samples[i], less what a reset took out. */
uint64_t cprof_node_samples(const struct cprof_node *n, int i);

/* ---- resources.c: resources beyond time, CPROF_RESOURCES (docs/resources.md) ---- */

struct cprof_resource {
    const char *name, *unit, *event;
    uint32_t type;
    uint64_t config;
    uint64_t period;            /* units per sample; 0: counted only */
    int sampled;                /* charged to contexts by sampling, else counted only */
    int monitored;              /* sampled by the monitor thread (csw, migrations) */
    int available;              /* else reason says why not */
    int opened;                 /* by some worker */
    char reason[400];           /* why not available, or not sampled as asked; what
                                   happened to its sampling signal */
};
/* Start-up, before the first worker: reads CPROF_RESOURCES, installs the handler. */
void cprof_resources_start(void);
/* Whether samples are charged to calling contexts (the facade then keeps each frame's
 * case, by which the side a sample goes to is known). */
int cprof_resources_sampled(void);
/* The resources asked for, in order. */
int cprof_resources(const struct cprof_resource **r);
/* Bytes each calling context holds beyond struct cprof_node: its samples. */
extern size_t cprof_node_extra;
/* On a listed worker's own thread, at its creation: its counters. */
void cprof_resources_open(struct cprof_worker *w);
/* Worker w's total of resource r so far; *ok 0 if it has no counter. */
uint64_t cprof_resource_read(const struct cprof_worker *w, int r, int *ok);
/* The program is about to set the action of sig (its call named): if cprof samples
 * with it, the sampling moves to another signal first.  Whether cprof samples with it. */
void cprof_resources_signal_taken(int sig, const char *call);
int cprof_resources_signal_owned(int sig);
/* As the profile is written: whether the sampling signal still has cprof's handler. */
void cprof_resources_signals_check(void);
/* Every worker's counters on or off (cprof_start, cprof_stop). */
void cprof_resources_enable(int on);
/* The calling thread's counters off (1) while it writes the profile, on again (0). */
void cprof_resources_writing(int writing);

/* ---- signals.c: the program's sigaction, signal... (ld --wrap), kept off cprof's ---- */

struct sigaction;
/* sigaction itself, for cprof's own actions. */
int cprof_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* The highest realtime signal whose action is the default and that the program never
 * set, other than avoid; 0 if none. */
int cprof_signal_free(int avoid);

/* ---- trace.c: CPROF_TRACE, a time-stamped trace per worker (docs/tracing.md) ---- */

/* Start-up, the clock known: reads CPROF_TRACE and the rest; whether to trace. */
int cprof_trace_start(void);
int cprof_tracing(void);
/* The traced facade's: frame f of worker w just opened for an entry of routine r (its
 * record rec, case kase) from site id site (-1: from outside), returned; and a frame
 * closing at now. */
struct cprof_frame *cprof_trace_enter(struct cprof_worker *w, const struct cprof_routine *r,
                                      struct cprof_frame *f, struct cprof_routine_rec *rec,
                                      int kase, int site);
void cprof_trace_exit(struct cprof_worker *w, const struct cprof_frame *f, uint64_t now);
/* Frame f just opened for the body of construct c (a parallel region's on one member
 * of its team, or a task's), case kase; returned. */
struct cprof_frame *cprof_trace_body(struct cprof_worker *w, struct cprof_frame *f,
                                     struct cprof_construct_rec *c, int kase);
/* A new worker's trace (tracing on), and an unlisted worker's, at its release. */
void cprof_trace_new(struct cprof_worker *w);
void cprof_trace_free(struct cprof_worker *w);
/* Writes the trace file at path (profile.c names it), with the profile's ns per tick: 0,
 * or -1 after one line on stderr.  *bytes: its size. */
int cprof_trace_write(const char *path, double npt, uint64_t *bytes);
/* The profile's "trace" section (the file at path, named by its base name if beside
 * the profile), and a worker's. */
void cprof_trace_describe(struct cprof_json *j, const char *path, int beside, uint64_t bytes);
void cprof_trace_worker(struct cprof_json *j, const struct cprof_worker *w);

/* ---- placement.c: where each worker ran (docs/placement.md) ---- */

/* Start-up, after the clock: the launch's binding settings and affinity mask. */
void cprof_placement_start(void);
/* On a listed worker's own thread, as it is made: its first observation. */
void cprof_placement_new(struct cprof_worker *w);
/* On w's own thread: the PU it runs on now; idle: it waits for work from here (a team
 * member after its region), and the time until its next observation is no one's. */
void cprof_placement_observe(struct cprof_worker *w, int idle);
/* The same from a signal handler on w's thread (a CPU sample). */
void cprof_placement_sample(struct cprof_worker *w);
/* The PU w was placed on longest. */
int cprof_placement_main_pu(const struct cprof_worker *w);
/* The header's "placement" (the writing thread observed first), and worker w's (w->lock
 * held), with the profile's ns per tick. */
void cprof_placement_write(struct cprof_json *j, double npt);
void cprof_placement_write_worker(struct cprof_json *j, const struct cprof_worker *w, double npt);

/* ---- units.c: the global tables of routines and call sites ---- */

void cprof_routine_id_slow(struct cprof_routine *r);
void cprof_site_id_slow(struct cprof_site *s);
/* The tables, for the writer: valid while it holds cprof_tables_lock(); an entry of a
 * unit that unregistered points at the runtime's copy. */
void cprof_tables(struct cprof_routine ***routines, int *nroutines,
                  struct cprof_site ***sites, int *nsites);
void cprof_tables_lock(void);
void cprof_tables_unlock(void);
/* The units registered, each once, with copies of the files they name (only file,
 * nsources and sources are set), and the index there of the unit of routine (site 0) or
 * site id (-1: none known): the profile's "sources".  Under cprof_tables_lock(). */
int cprof_sources(const struct cprof_unit **units);
int cprof_unit_of(int site, int id);
/* Site id's descriptor (or its copy), taking the tables' lock. */
const struct cprof_site *cprof_site_by_id(int id);
/* Units registered and not yet unregistered. */
int cprof_units_loaded(void);
/* The units compiled without profiling that registered, each (file, reason) once, in
 * that order: a list that only grows at its end (read with __atomic_load_n from the
 * head this returns). */
struct cprof_unprofiled {
    char *file, *reason;
    struct cprof_unprofiled *next;
};
const struct cprof_unprofiled *cprof_unprofiled_units(void);
/* Units are loaded and the program has not stopped profiling: OpenMP constructs are
 * followed (omp.c).  Changed as they change (units.c, cprof_facade_stop). */
extern int cprof_following_now;
static inline int cprof_following(void)
{
    return __atomic_load_n(&cprof_following_now, __ATOMIC_RELAXED);
}
void cprof_following_update(void);

/* ---- facade.c ---- */

/* Points cprof_facade at the entry and exit for the clock chosen (clock.c). */
void cprof_facade_select(void);
/* While stopped (control.c), entries count nothing and keep no frame; the exit stays,
 * for the activations open at the stop. */
void cprof_facade_stop(int stopped);
extern int cprof_stopped;

/* A parallel region's or a task's body on this worker (omp.c), of construct record c:
 * counted in the figures whose time[case] is time, and a frame that times it there, its
 * calls made in context ctx (the construct's, the root, or past the node limit its
 * parent's <other>), case kase.  It is not an activation: for the routines, what nests
 * in it counts for the frame below, as if it were not there, and its time is the
 * body's; for the contexts, its self time is its opener's (docs/semantics.md).  Null if
 * the worker's stack is full, or in count mode.  Closed by cprof_body_close, with frames
 * a longjmp left above it, which returns the body frame's time and what nested directly
 * in it. */
struct cprof_frame *cprof_body_open(struct cprof_worker *w, struct cprof_construct_rec *c,
                                    uint64_t *time, struct cprof_node *ctx, int kase,
                                    const void *sp);
struct cprof_body_nest {
    uint64_t elapsed;               /* the frame's: what its context counts */
    uint64_t time;                  /* of the activations nested directly in the body */
    uint64_t direct;                /* how many */
};
struct cprof_body_nest cprof_body_close(struct cprof_worker *w, struct cprof_frame *f);
extern int cprof_paths_on;
/* Whether frame f's self time is the calling-context tree's to give (an activation
 * whose calls hang from a context of its routine, not past the limit): the profile
 * writer makes it; and the side (0 sequential, 1 concurrent entry) of an activation. */
int cprof_tree_frame(const struct cprof_frame *f);
int cprof_frame_side(const struct cprof_worker *w, const struct cprof_frame *f);
extern int cprof_paths_max;         /* contexts per worker (CPROF_PATHS_MAX) */
/* Of the d innermost nesting levels, how many are active (more than one thread). */
int cprof_active_levels_within(int d);

/* ---- omp.c: the model of parallel regions and tasks (docs/semantics.md, "Parallel
 * regions and tasks"), which two sources feed: gomp.c, libgomp's entry points wrapped
 * at the link, and ompt.c, libomp's OMPT callbacks.  Each hands the model the same
 * moments: a team opened and joined, a member's body begun and ended, a task made,
 * a task's body begun and ended, a barrier's wait; the rest is the model's. ---- */

/* Profiled units are loaded, the program has not stopped profiling, and this thread
 * may count; and this thread's worker, made if need be (null if it may not count). */
int cprof_omp_counting(void);
struct cprof_worker *cprof_omp_self(void);
/* The construct the rewritten code left for the next request of kind on this thread,
 * taken (null: none, or one of another kind). */
const struct cprof_site *cprof_omp_take(int kind);

/* A worker's task state, off its thread's stack: the tasks a thread runs nest, so a
 * LIFO serves, in chunks kept once made. */
struct cprof_lifo {
    struct cprof_lifo *prev, *next;
    char *top, *end;
};
void *cprof_lifo_push_slow(struct cprof_worker *w, size_t size, size_t align);
/* size bytes aligned to align (a power of two), until cprof_lifo_pop(w, them); each
 * keeps the top it was pushed at just below it. */
static inline void *cprof_lifo_push(struct cprof_worker *w, size_t size, size_t align)
{
    struct cprof_lifo *c = w->lifo;
    if (__builtin_expect(!c, 0))
        return cprof_lifo_push_slow(w, size, align);
    uintptr_t at = ((uintptr_t)c->top + sizeof(char *) + align - 1) & ~(uintptr_t)(align - 1);
    char *p = (char *)at;
    if (__builtin_expect(p > c->end || size > (size_t)(c->end - p), 0))
        return cprof_lifo_push_slow(w, size, align);
    ((char **)p)[-1] = c->top;
    c->top = p + size;
    return p;
}
static inline void cprof_lifo_pop(struct cprof_worker *w, void *p)
{
    struct cprof_lifo *c = w->lifo;
    c->top = ((char **)p)[-1];
    if (c->top == (char *)(c + 1) && c->prev)
        w->lifo = c->prev;
}

/* One execution of a region's body on one worker, or of a task: the innermost one a
 * worker runs takes the waits at the barriers it meets. */
struct cprof_execution {
    struct cprof_construct_rec *rec;
    uint64_t barrier_wait;
    uint64_t last_sync;             /* its start, or the end of the last barrier in it */
    struct cprof_execution *outer;
};

/* A body: a region's on one member, or a task's. */
struct cprof_body {
    struct cprof_worker *w;
    struct cprof_frame *frame;
    struct cprof_execution e;
    uint64_t t0, tasks0;            /* its start, and the worker's task time then */
    uint64_t calls0;                /* the worker's calls then */
    uint64_t *counted;              /* the count its opening added to */
    struct cprof_body_nest in;      /* at its end: its frame's time, and the activations
                                       nested directly in it */
};

/* What a member tells the opener of its execution: its time then, and the time it
 * had spent in tasks, which it runs while it waits at the closing barrier. */
struct cprof_member {
    struct cprof_construct_rec *rec;    /* null: no such member, or not counted */
    const struct cprof_worker *w;
    uint64_t busy, end, tasks;
};

/* One execution of a parallel region, kept by its opener until the team joined. */
struct cprof_team {
    const struct cprof_site *construct;
    const struct cprof_node *ctx;       /* the opener's context, in its worker's tree */
    const struct cprof_worker *opener;
    int kase;                           /* the construct's case at the opener: C-S (2) if
                                           it was entered concurrently, + 1 if one of its
                                           routine's own constructs around it is active */
    int cap;
    struct cprof_member *members;       /* by thread number, cap of them */
};

/* Contexts of the opener's path looked at for a member's team time: a region opened
 * deeper leaves the routines above them out. */
#define CPROF_TEAM_PATH_MAX 64

/* A member's body, and, on a member other than the opener, the routines its body
 * works for and the time each had been open on this thread then (docs/semantics.md,
 * "Team time"). */
struct cprof_member_body {
    struct cprof_body b;
    int followed;
    int n, self;
    struct cprof_routine_rec *rec[CPROF_TEAM_PATH_MAX];
    uint64_t open0[CPROF_TEAM_PATH_MAX];
};

/* The opener: the construct left for it taken, its context and case.  0 if the region
 * is not followed (then the source runs it as the program asked). */
int cprof_team_begin(struct cprof_team *t, struct cprof_member *m, int cap);
/* After the team joined: each member's wait at the closing barrier, the imbalance. */
void cprof_team_end(struct cprof_team *t);
/* A member of t's team (size threads, this one index) begins its body, or ends it;
 * sp: the stack position no activation in the body is above. */
void cprof_member_begin(struct cprof_member_body *mb, const struct cprof_team *t, int size,
                        const void *sp);
void cprof_member_end(struct cprof_member_body *mb, const struct cprof_team *t, int index);
/* An upper bound of a team's size: what it asks for, or the default. */
int cprof_team_cap(unsigned num_threads);

/* What a task carries from where it was made to where its body runs. */
struct cprof_task_origin {
    /* On the creator's worker: the body's context there, under the creator's (null:
     * no calling contexts kept; its parent's <other> past the node limit), and the
     * construct's record. */
    struct cprof_node *node;
    struct cprof_construct_rec *rec;
    const struct cprof_worker *creator;
    unsigned char kase;                 /* of the body: as a call at the construct, not a
                                           parallel construct of the creator's */
};
/* A task construct s met on w, the creator: its origin, and the construct's count of
 * tasks opened (a taskloop's counts once, for all its tasks). */
void cprof_task_made(struct cprof_task_origin *o, struct cprof_worker *w,
                     const struct cprof_site *s, int opened);
/* The body of a task of origin o begins on this thread, worker w, and ends.  A body
 * that is no task of the program's, or the later part of one (libomp's taskloop
 * generators, an untied task's parts), takes back the execution it counted. */
void cprof_task_begin(struct cprof_body *b, struct cprof_worker *w,
                      const struct cprof_task_origin *o, const void *sp);
void cprof_task_uncount(struct cprof_body *b);
void cprof_task_close(struct cprof_body *b);

/* A barrier's wait: of the innermost execution on this worker, and of the construct
 * that ends there (the one the rewritten code left, or an unnamed barrier). */
struct cprof_wait {
    struct cprof_worker *w;
    const struct cprof_site *construct;
    uint64_t t0, tasks0;
};
void cprof_wait_begin(struct cprof_wait *x);
void cprof_wait_end(struct cprof_wait *x);

/* Closes every open activation of every worker as if it returned now (exit). */
void cprof_close_open_frames(void);
/* What one call costs, in ns, measured on scratch data: the entry and exit facade,
 * and the call-site count of a counted routine. */
struct cprof_costs {
    double timed, counted;
};
struct cprof_costs cprof_facade_cost_ns(void);

/* ---- plt.c ---- */

/* Where f leads if it is a PLT entry (an ifunc's address, say), else null. */
void (*cprof_plt_target(void (*f)(void)))(void);

/* ---- profile.c ---- */

void cprof_runtime_start(void);
/* units.c: the last loaded unit unregistered (at exit: its destructor was the last). */
void cprof_last_unit_gone(void);
/* stack.c: lets the initial thread's stack grow past the soft limit it started with. */
void cprof_stack_start(void);
/* stack.c: on another thread's first profiled call: where its stack runs out, one line. */
void cprof_stack_thread(void);

/* ---- sizes.c: input-sensitive profiles (-fcprof-input-size, docs/input-size.md) ----
 * Weak: only a program with a unit compiled with -fcprof-input-size (whose memory
 * accesses call sizes.c's __tsan_* entry points) links sizes.c; in any other these
 * are null and none of it runs. */
/* The facade that wraps chosen with the input sizes' entry and exit, or chosen itself
 * when no instrumented unit started (or in count mode: no frame to size). */
struct cprof_facade cprof_sizes_facade(struct cprof_facade chosen) __attribute__((weak));
/* Whether sizes are kept this run; the header's and worker w's "sizes" sections. */
int cprof_sizes_kept(void) __attribute__((weak));
void cprof_sizes_write_header(struct cprof_json *j) __attribute__((weak));
void cprof_sizes_write_worker(struct cprof_json *j, struct cprof_worker *w, double npt)
    __attribute__((weak));
/* cprof_reset(): the tuples and the header's counts from now on. */
void cprof_sizes_reset(void) __attribute__((weak));
/* libcalls.c: a library call's read (write 0) or write of size bytes at a. */
void cprof_sizes_access(const void *a, size_t size, int write);

#endif
