/* placement.c: where each worker ran (docs/placement.md), and the settings the launch
 * gave OpenMP for it.
 *
 * A worker's PU is read (sched_getcpu: glibc's restartable sequence, a load) where the
 * runtime runs on the worker's thread anyway: as it is made, as it begins and ends a
 * region's body, as it begins a task's if TASK_GAP has passed since its last
 * observation (or that one began a wait), after a barrier, at a CPU sample
 * (CPROF_RESOURCES), and on the thread that writes the profile.  The time from one observation to the next is
 * placed on the PU of the first, unless the first began a wait for work (a team member
 * between regions): then it is no one's.  A change of PU between two observations is
 * a move.  Per worker, each PU's placed time is exact to the observations; for seeing
 * which workers shared a PU or a core at the same time, its placed time is also kept in
 * BINS bins of the run, each holding the PU the worker was on longest in it (as far as
 * its longest stretch there tells).  The bins are 2^16 ticks wide at first and double
 * (two merged into one) whenever the run outgrows them, so a worker's placement takes
 * the same memory however long it runs.
 *
 * Only the owner records, and a signal handler on its thread skips an observation that
 * interrupts one (busy); the profile writer reads under the worker's lock, which the
 * owner takes to merge its bins or grow its PU list (a handler only tries it). */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "placement.h"

enum { BINS = 256, BIN0_SHIFT = 16, MASK_MAX = 1 << 16 };
/* A task's body is observed once this much of placement's clock has passed since the
 * last observation: the narrowest bin's width. */
#define TASK_GAP ((uint64_t)1 << BIN0_SHIFT)
_Static_assert(BINS == 1 << 8, "cover() takes BINS for 2^8");

struct bin {
    int32_t pu;
    uint64_t ticks;
};

struct pu_time {
    int32_t pu;
    uint64_t ticks;
};

struct cprof_place {
    struct cprof_place_due due;     /* first: read inline by the task hooks */
    uint64_t first, last;       /* ticks since the start: the first and last observation */
    uint64_t observations, moves;
    int pu;                     /* at the last observation */
    int idle;                   /* the last observation began a wait for work */
    volatile int busy;          /* an observation is being recorded */
    int shift;                  /* its bins are 2^(BIN0_SHIFT + shift) ticks */
    int npus, pus_cap, cur;     /* pus[cur] is pu's */
    struct pu_time *pus;
    unsigned char *mask;        /* its affinity mask as it was made */
    struct bin bins[BINS];
};

static uint64_t origin, origin_unix;   /* ticks and wall-clock ns at the start */
static int shift;               /* the widest bins yet: only grows */
static size_t mask_bytes;       /* an affinity mask as the kernel takes it */
static unsigned char *process_mask;
static __thread struct cprof_worker *mine;

/* The variables that say how OpenMP threads are bound (libgomp reads the first three;
 * KMP_AFFINITY is LLVM's and Intel's), as the launch set them. */
static const char *const env_names[] = { "OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY",
                                         "KMP_AFFINITY" };
#define NENV (sizeof env_names / sizeof *env_names)
static char env_values[NENV][1024];
static int env_set[NENV];
static int proc_bind = -1, nplaces;    /* -1: not read */
static void read_binding(void);
static int *place_procs, *place_ids;   /* place i's PU count; the places' PUs, in order */

/* Times are kept in the clock's ticks (clock.c: the time-stamp counter, or ns), and
 * made ns as the profile is written; the count-only mode reads CLOCK_MONOTONIC here. */
static uint64_t now(void)
{
    return (cprof_clock == CPROF_CLOCK_NONE ? cprof_monotonic_ns() : cprof_ticks()) - origin;
}

static uint64_t ns_of(uint64_t ticks, double npt)
{
    return (uint64_t)((double)ticks * npt + 0.5);
}

void cprof_placement_start(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    origin_unix = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    origin = cprof_clock == CPROF_CLOCK_NONE ? cprof_monotonic_ns() : cprof_ticks();
    for (size_t i = 0; i < NENV; i++) {
        const char *v = getenv(env_names[i]);
        if ((env_set[i] = v != 0)) {
            size_t n = strlen(v), room = sizeof env_values[i] - 1;
            memcpy(env_values[i], v, n < room ? n : room);
            if (n > room)
                memcpy(env_values[i] + room - 3, "...", 3);     /* said, not hidden */
        }
    }
    /* The kernel wants a mask at least as wide as its own. */
    for (mask_bytes = 128; mask_bytes <= MASK_MAX; mask_bytes *= 2) {
        process_mask = cprof_alloc(mask_bytes);
        if (sched_getaffinity(0, mask_bytes, (cpu_set_t *)process_mask) == 0)
            break;
        cprof_free(process_mask, mask_bytes);
        process_mask = 0;
    }
    read_binding();
}

/* The OpenMP runtime's binding, once it has read its variables: libgomp when it loads,
 * libomp on its first call (not asked before, openmp.c: at the latest as the profile is
 * written). */
static void read_binding(void)
{
    static int read;
    if (read || !cprof_openmp_ready())
        return;
    read = 1;
    /* Its binding, and its places if it has some. */
    proc_bind = omp_get_proc_bind();
    nplaces = omp_get_num_places();
    int total = 0;
    for (int i = 0; i < nplaces; i++)
        total += omp_get_place_num_procs(i);
    place_procs = cprof_alloc((size_t)(nplaces + 1) * sizeof *place_procs);
    place_ids = cprof_alloc((size_t)(total + 1) * sizeof *place_ids);
    for (int i = 0, at = 0; i < nplaces; i++) {
        place_procs[i] = omp_get_place_num_procs(i);
        omp_get_place_proc_ids(i, place_ids + at);
        at += place_procs[i];
    }
}

/* The bin width's shift that holds t (BINS bins: t >> (BIN0_SHIFT + shift) < 2^8), the
 * shared one raised to it. */
static int cover(uint64_t t)
{
    uint64_t high = t >> (BIN0_SHIFT + 8);
    int s = __atomic_load_n(&shift, __ATOMIC_RELAXED), want = high ? 64 - __builtin_clzll(high) : 0;
    while (want > s && !__atomic_compare_exchange_n(&shift, &s, want, 1, __ATOMIC_RELAXED,
                                                    __ATOMIC_RELAXED))
        ;
    return want > s ? want : s;
}

/* Time b into a bin: a bin keeps one PU, the one of its longest stretch. */
static void merge_bin(struct bin *into, struct bin b)
{
    if (!b.ticks)
        return;
    if (!into->ticks || into->pu == b.pu) {
        into->pu = b.pu;
        into->ticks += b.ticks;
    } else if (b.ticks > into->ticks) {
        *into = b;
    }
}

/* Bins of shift from made twice as wide, to shift to. */
static void coarsen(struct bin *bins, int from, int to)
{
    for (; from < to; from++) {
        for (int i = 0; i < BINS / 2; i++) {
            struct bin a = bins[2 * i], b = bins[2 * i + 1];
            bins[i] = a;
            merge_bin(&bins[i], b);
        }
        memset(bins + BINS / 2, 0, BINS / 2 * sizeof *bins);
    }
}

/* [t0, t1) placed on the current PU. */
static void place(struct cprof_place *p, uint64_t t0, uint64_t t1)
{
    if (t1 <= t0)
        return;
    p->pus[p->cur].ticks += t1 - t0;
    int sh = BIN0_SHIFT + p->shift;
    for (uint64_t b = t0 >> sh; b <= (t1 - 1) >> sh && b < BINS; b++) {
        uint64_t lo = b << sh > t0 ? b << sh : t0, hi = (b + 1) << sh < t1 ? (b + 1) << sh : t1;
        merge_bin(&p->bins[b], (struct bin){ p->pu, hi - lo });
    }
}

/* Whether pu is in the list, or the list has room for it. */
static int has_room(const struct cprof_place *p, int pu)
{
    for (int i = 0; i < p->npus; i++)
        if (p->pus[i].pu == pu)
            return 1;
    return p->npus < p->pus_cap;
}

/* pus[cur] becomes pu's (the list has room). */
static void select_pu(struct cprof_place *p, int pu)
{
    int i = 0;
    while (i < p->npus && p->pus[i].pu != pu)
        i++;
    if (i == p->npus) {
        p->pus[i].pu = pu;
        p->npus++;
    }
    p->cur = i;
}

/* Under the worker's lock, which the writer takes to read them: its bins merged to
 * shift s, its PU list grown.  A signal handler only tries the lock (the code it
 * interrupted may hold it) and leaves the observation to the next one if it is taken. */
static int make_room(struct cprof_worker *w, int s, int pu, int from_signal)
{
    struct cprof_place *p = w->place;
    if (s == p->shift && (pu == p->pu || has_room(p, pu)))
        return 0;
    if (from_signal ? pthread_mutex_trylock(&w->lock) != 0 : pthread_mutex_lock(&w->lock) != 0)
        return -1;
    if (s != p->shift) {
        coarsen(p->bins, p->shift, s);
        p->shift = s;
    }
    if (!has_room(p, pu)) {
        p->pus = cprof_realloc(p->pus, (size_t)p->pus_cap * sizeof *p->pus,
                               (size_t)p->pus_cap * 2 * sizeof *p->pus);
        p->pus_cap *= 2;
    }
    pthread_mutex_unlock(&w->lock);
    return 0;
}

static void observe(struct cprof_worker *w, int idle, int from_signal)
{
    struct cprof_place *p = w->place;
    if (!p || p->busy)
        return;
    p->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    int pu = sched_getcpu();
    uint64_t t = now();
    if (pu < 0 || make_room(w, cover(t), pu, from_signal) != 0)
        goto out;
    if (!p->idle)
        place(p, p->last, t);
    if (pu != p->pu) {
        select_pu(p, pu);
        p->moves++;
        p->pu = pu;
    }
    p->last = t;
    p->idle = idle;
    p->due.next = idle ? 0 : origin + t + TASK_GAP;
    p->observations++;
out:
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    p->busy = 0;
}

void cprof_placement_observe(struct cprof_worker *w, int idle)
{
    observe(w, idle, 0);
}

/* In count mode the task hooks read no clock: placement's is read here. */
void cprof_placement_task_slow(struct cprof_worker *w)
{
    if (cprof_clock == CPROF_CLOCK_NONE && cprof_monotonic_ns() < w->place->due.next)
        return;
    observe(w, 0, 0);
}

void cprof_placement_sample(struct cprof_worker *w)
{
    observe(w, 0, 1);
}

/* Written once now, so that recording later faults in no page: a page fault in the
 * program's code is one of its own (CPROF_RESOURCES=faults counts them exactly). */
static void *touched(size_t size)
{
    void *p = cprof_alloc(size);
    memset(p, 0, size);
    return p;
}

void cprof_placement_new(struct cprof_worker *w)
{
    struct cprof_place *p = touched(sizeof *p);
    /* Room for every PU the machine has: the list never grows but on a hot-plug. */
    long conf = sysconf(_SC_NPROCESSORS_CONF);
    p->pus_cap = conf > 4 ? (int)conf : 4;
    p->pus = touched((size_t)p->pus_cap * sizeof *p->pus);
    if (mask_bytes <= MASK_MAX) {
        p->mask = cprof_alloc(mask_bytes);
        if (sched_getaffinity(0, mask_bytes, (cpu_set_t *)p->mask) != 0) {
            cprof_free(p->mask, mask_bytes);
            p->mask = 0;
        }
    }
    p->pu = sched_getcpu();
    p->first = p->last = now();
    p->due.next = origin + p->last + TASK_GAP;
    p->shift = cover(p->first);
    p->observations = 1;
    p->npus = 1;
    p->pus[0].pu = p->pu;
    w->place = p;
    mine = w;
}

int cprof_placement_main_pu(const struct cprof_worker *w)
{
    const struct cprof_place *p = w->place;
    if (!p)
        return -1;
    int best = p->pu;
    uint64_t most = 0;
    for (int i = 0; i < p->npus; i++)
        if (p->pus[i].ticks > most) {
            most = p->pus[i].ticks;
            best = p->pus[i].pu;
        }
    return best;
}

/* The PUs of mask, under key; nothing if it is unknown. */
static void write_mask(struct cprof_json *j, const char *key, const unsigned char *mask)
{
    if (!mask)
        return;
    cprof_json_key(j, key);
    cprof_json_begin(j, '[');
    for (size_t i = 0; i < mask_bytes * 8; i++)
        if (mask[i / 8] >> (i % 8) & 1)
            cprof_json_int(j, (int64_t)i);
    cprof_json_end(j, ']');
}

void cprof_placement_write(struct cprof_json *j, double npt)
{
    static const char *const binds[] = { "false", "true", "primary", "close", "spread" };
    /* The writing thread is where it is now. */
    if (mine)
        observe(mine, 0, 0);
    read_binding();
    cprof_json_key(j, CPROF_SECTION_PLACEMENT);
    cprof_json_begin(j, '{');
    cprof_json_field_uint(j, "origin_unix_ns", origin_unix);
    cprof_json_field_uint(j, "span_ns", ns_of(now(), npt));
    cprof_json_field_int(j, "bins", BINS);
    cprof_json_key(j, "env");
    cprof_json_begin(j, '{');
    for (size_t i = 0; i < NENV; i++)
        if (env_set[i])
            cprof_json_field_string(j, env_names[i], env_values[i]);
    cprof_json_end(j, '}');
    cprof_json_field_string(j, "proc_bind",
                            proc_bind >= 0 && proc_bind < 5 ? binds[proc_bind] : "unknown");
    cprof_json_key(j, "places");
    cprof_json_begin(j, '[');
    for (int i = 0, at = 0; i < nplaces; at += place_procs[i++]) {
        cprof_json_begin(j, '[');
        for (int k = 0; k < place_procs[i]; k++)
            cprof_json_int(j, place_ids[at + k]);
        cprof_json_end(j, ']');
    }
    cprof_json_end(j, ']');
    write_mask(j, "affinity", process_mask);
    cprof_json_end(j, '}');
}

/* With w->lock held. */
void cprof_placement_write_worker(struct cprof_json *j, const struct cprof_worker *w, double npt)
{
    const struct cprof_place *p = w->place;
    if (!p)
        return;
    cprof_json_key(j, CPROF_SECTION_PLACEMENT);
    cprof_json_begin(j, '{');
    write_mask(j, "affinity", p->mask);
    cprof_json_field_uint(j, "first_ns", ns_of(p->first, npt));
    cprof_json_field_uint(j, "last_ns", ns_of(p->last, npt));
    cprof_json_field_uint(j, "observations", p->observations);
    cprof_json_field_uint(j, "moves", p->moves);
    /* The sum of the PUs' times as written, so that the two agree to the ns. */
    uint64_t placed = 0;
    for (int i = 0; i < p->npus; i++)
        placed += ns_of(p->pus[i].ticks, npt);
    cprof_json_field_uint(j, "placed_ns", placed);
    cprof_json_key(j, "pus");
    cprof_json_begin(j, '[');
    for (int i = 0; i < p->npus; i++) {
        cprof_json_begin(j, '[');
        cprof_json_int(j, p->pus[i].pu);
        cprof_json_uint(j, ns_of(p->pus[i].ticks, npt));
        cprof_json_end(j, ']');
    }
    cprof_json_end(j, ']');
    /* A real: the bins of workers of different widths line up exactly (2^k npt). */
    cprof_json_field_real(j, "bin_ns", (double)(1ull << (BIN0_SHIFT + p->shift)) * npt);
    cprof_json_key(j, "bins");
    cprof_json_begin(j, '[');
    for (int b = 0; b < BINS; b++)
        if (p->bins[b].ticks) {
            cprof_json_begin(j, '[');
            cprof_json_int(j, b);
            cprof_json_int(j, p->bins[b].pu);
            cprof_json_uint(j, ns_of(p->bins[b].ticks, npt));
            cprof_json_end(j, ']');
        }
    cprof_json_end(j, ']');
    cprof_json_end(j, '}');
}
