/* core.h: what the runtime's core offers (not installed): the facade, the workers'
 * shards, the units' tables, the clock, the memory, the settings, the JSON writer, the
 * OpenMP runtime's answers, and the registration points the extensions plug into
 * (cprof_hooks, cprof_tracer, the facade variants cprof_facade_select chooses). */
#ifndef CPROF_CORE_H
#define CPROF_CORE_H

#include <omp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "../cprof.h"
#include "../../format/schema.h"

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

/* The sampled-timing rule's state of one case of a record or context (facade.c,
 * docs/semantics.md "Sampled timing"): left > 0, that many entries untimed before the
 * next timed one; 0, the next is timed and its frame marked for the rule to see; < 0,
 * every one timed, unmarked, for good.  run: the short timed activations in a row;
 * once: it was sampled (it is watched for good). */
struct cprof_sampling {
    int32_t left;
    int16_t run, once;
};

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
 *  - untimed: calls counted without a frame (a sampled slot's unsampled calls);
 *  - sampling: how the next entries from its site are timed (CPROF_TIMING=sampled,
 *    struct cprof_sampling);
 *  - sample_n, sample_sum, sq: of the timed activations the rule found short, their
 *    number, time and the sum of its squares (ticks, ticks^2): an estimate's sample
 *    (the other timed ones are kept as they are, not scaled up). */
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
    struct cprof_sampling sampling[CPROF_NCASES]; \
    struct cprof_routine_rec *rec;  /* the callee's record on this worker (a context's \
                                       root or <other>: null) */ \
    uint64_t sample_n[CPROF_NCASES]; \
    uint64_t sample_sum[CPROF_NCASES]; \
    double sq[CPROF_NCASES];
/* The figures' arrays, in their order: a frame's slot is &time[case], the others are
 * CPROF_NCASES apart. */
enum { CPROF_FIG_COUNT, CPROF_FIG_TIME, CPROF_FIG_NESTED, CPROF_FIG_SELF, CPROF_FIG_DIRECT,
       CPROF_FIG_REC_TIME, CPROF_FIG_REC_NESTED, CPROF_FIG_THREAD_TIME, CPROF_FIG_THREAD_NESTED,
       CPROF_FIG_UNTIMED, CPROF_FIG_SAMPLING, CPROF_NFIGS };
#define CPROF_SLOT(fig) (((fig) - CPROF_FIG_TIME) * CPROF_NCASES)
struct cprof_figures {
    CPROF_FIGURE_FIELDS
};
_Static_assert(__builtin_offsetof(struct cprof_routine, seq_depth) % 8 == 0,
               "a frame marks the low bits of a depth's address");
_Static_assert(sizeof(struct cprof_figures) == (CPROF_NFIGS + 3) * CPROF_NCASES * 8 + 8,
               "the figures' arrays, back to back");
/* field[case] from a frame's slot (&time[case]), for the arrays after rec: 8 bytes an
 * element too. */
#define CPROF_SLOT_OF(field) ((int)(__builtin_offsetof(struct cprof_figures, field) - \
                                    __builtin_offsetof(struct cprof_figures, time)) / 8)

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
    int count_left;                         /* CPROF_MODE=count: the countdown a leaf's
                                               sites count by (facade.c's fill_leaf) */
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
    struct { void *env; struct cprof_frame *top; const void *context; } jmp[CPROF_JMP_MARKS];
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
/* Where a consumed handshake points (thread.c): it names no callee and no target, so an
 * entry that finds it counts as external without testing for null first.  Hidden: the
 * facade addresses it as it would a static of its own. */
extern const struct cprof_site cprof_no_site __attribute__((visibility("hidden")));
#define cprof_self (cprof_pending.worker == &cprof_no_worker ? (struct cprof_worker *)0 \
                                                             : cprof_pending.worker)
static inline void cprof_self_set(struct cprof_worker *w)
{
    cprof_pending.worker = w ? w : &cprof_no_worker;
}

/* thread.c: the runtime's own code on this thread, between these two (they nest): its
 * worker is hidden, so that entries take the slow path, and they count nothing there. */
void cprof_inside_begin(void);
void cprof_inside_end(void);
/* Inside: w is this thread's worker once the outermost cprof_inside_end() returns. */
void cprof_inside_keep(struct cprof_worker *w);
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

/* Bytes each calling context holds beyond struct cprof_node (resources.c sets it
 * before the first worker: its samples). */
extern size_t cprof_node_extra;

/* The core's registration points: what the extensions plug in (start.c's, static
 * data: hooks.c), called by the core where it names no extension; null: none.
 *  - start: the runtime's start-up, once (the first unit registered);
 *  - last_unit_gone: the last loaded unit unregistered (at exit: its destructor was
 *    the last);
 *  - worker_made: every new worker, listed or not; worker_listed: a listed one, on
 *    its own thread; worker_freed: an unlisted one, at its release;
 *  - ompt_start_tool: cprof's OMPT tool's entry point (openmp.c checks the runtime
 *    will call it). */
struct cprof_hooks {
    void (*start)(void);
    void (*last_unit_gone)(void);
    void (*worker_made)(struct cprof_worker *w);
    void (*worker_listed)(struct cprof_worker *w);
    void (*worker_freed)(struct cprof_worker *w);
    const void *ompt_start_tool;
};
/* start.c's hooks, or none (all null) if start.c is not linked. */
const struct cprof_hooks *cprof_hooks(void);

/* Carves zeroed memory from w's arena (w's own thread): it lives as long as w. */
void *cprof_worker_alloc(struct cprof_worker *w, size_t size);
/* A list head another thread reads, and its reading. */
#define cprof_publish(head, item) __atomic_store_n(&(head), (item), __ATOMIC_RELEASE)
#define cprof_published(head) __atomic_load_n(&(head), __ATOMIC_ACQUIRE)

/* ---- units.c: the global tables of routines and call sites ---- */

/* cprof.h's registration of a unit (start.c's entry points): its routines and sites
 * in the tables; a unit compiled without profiling, and why. */
void cprof_units_add(struct cprof_unit *unit);
void cprof_units_add_unprofiled(const char *file, const char *reason);
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

/* Points cprof_facade at the entry and exit for the clock chosen (clock.c), traced or
 * not (traced: cprof_tracer is set), keeping each frame's case or not (side: for the
 * resources' samples), and wrapped by wrap if not null (the input sizes' facade). */
void cprof_facade_select(int traced, int side,
                         struct cprof_facade (*wrap)(struct cprof_facade));
/* What the traced facade calls (trace.c registers it as tracing starts): frame f of
 * worker w just opened for an entry of routine r (its record rec, case kase) from site
 * id site (-1: from outside), returned; a frame closing at now; frame f just opened
 * for the body of construct c, case kase, returned. */
struct cprof_tracer {
    struct cprof_frame *(*enter)(struct cprof_worker *w, const struct cprof_routine *r,
                                 struct cprof_frame *f, struct cprof_routine_rec *rec, int kase,
                                 int site);
    void (*exit)(struct cprof_worker *w, const struct cprof_frame *f, uint64_t now);
    struct cprof_frame *(*body)(struct cprof_worker *w, struct cprof_frame *f,
                                struct cprof_construct_rec *c, int kase);
};
/* Hidden: the traced facade calls through it as through a static of its own (one
 * instruction, as a direct call; each copy of the runtime's trace.c sets its own). */
extern struct cprof_tracer cprof_tracer __attribute__((visibility("hidden")));
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

/* Closes every open activation of every worker as if it returned now (exit). */
void cprof_close_open_frames(void);
/* What one call costs, in ns, measured on scratch data: the entry and exit facade,
 * and the call-site count of a counted routine. */
struct cprof_costs {
    double timed, counted;
};
struct cprof_costs cprof_facade_cost_ns(void);
/* CPROF_TIMING (docs/semantics.md, "Sampled timing"): the rule's figures, and whether
 * this run samples (sampled: the setting, and a facade with no extension's variant). */
struct cprof_timing {
    int sampled;
    int period;                     /* one timed entry in period, once sampled */
    int min_activations;            /* short timed ones in a row before it is */
    int tries;                      /* timed ones before a slot is never sampled */
    double short_costs;             /* short: at most this many call costs */
    double short_ns, call_cost_ns;
    double inner_ns, untimed_ns;    /* measured on the probe: an empty timed activation's
                                       time, an untimed call's cost (0: not measured) */
    double correction_ns;           /* what an untimed call took less than a timed one's
                                       activation (inner less untimed, or 0): its estimate
                                       is the sample's mean less this (never below 0) */
    double site_untimed_ns;         /* an untimed call counted at its site
                                       (cprof_leaf_untimed): its cost, measured on the probe */
    double site_correction_ns;      /* the same correction for the calls of such a site:
                                       inner less site_untimed, or 0 */
};
extern struct cprof_timing cprof_timing;
/* After the call's cost (ns) was measured on the every-call facade: CPROF_TIMING read,
 * and the sampled facade taken if it applies. */
void cprof_facade_timing(double call_cost_ns);
/* The entries counted where frame f's are are timed every one, for good: a frame that
 * another part keeps (a user region's, regions.c) is never an untimed one. */
void cprof_frame_timed_always(struct cprof_frame *f);

/* ---- plt.c ---- */

/* Where f leads if it is a PLT entry (an ifunc's address, say), else null. */
void (*cprof_plt_target(void (*f)(void)))(void);

#endif
