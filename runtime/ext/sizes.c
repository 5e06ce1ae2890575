/* sizes.c: input-sensitive profiles (cprof-cc -fcprof-input-size, docs/input-size.md).
 *
 * Units compiled with -fcprof-input-size are also compiled with gcc's
 * -fsanitize=thread, which calls __tsan_readN / __tsan_writeN before every load and
 * store it keeps in memory; this file defines those entry points (no libtsan is
 * linked) and, per activation of a profiled routine, computes its read memory size
 * (RMS: distinct cells first accessed by a read, by it or its descendants) with the
 * latest-access algorithm of Coppa, Demetrescu and Finocchi (PLDI'12, section 4):
 * each worker has a shadow stack of its open activations, each with its entry stamp
 * and partial RMS, and a shadow memory of each cell's latest access stamp; a read
 * whose cell was last accessed before the top activation began adds one to it and
 * takes one from the deepest activation that has accessed the cell already.  At each
 * exit the activation's RMS n and its two costs (elapsed ticks, and accesses executed:
 * deterministic) go into the tuple <n, calls, max, min, sum, sum of squares> of its
 * routine and calling context.
 *
 * Threads: each worker has its own shadow and stack; stamps are drawn from one
 * counter, so that they order entries across workers.  Once two workers exist, every
 * write also stamps a shared write shadow: a read of a cell written by another worker
 * since this worker's latest access to it is a new input for all its open activations.
 *
 * Sampling (CPROF_SIZES_SLOWDOWN): each routine of such a unit has an instrumented twin
 * and an original gcc compiles plainly (preprocessor/twins.c); the original's entry hook
 * runs the twin while cprof_sizes_twin is set.  By default it is always set: every
 * activation is sized.  With a slowdown budget, a thread runs plainly until an entry
 * whose calling context's past activations say that sizing this one keeps the sized
 * time of all threads, and the context's, within the budget's share; that activation
 * and all it calls are then sized, as always, and their tuples are exact.
 *
 * Only these __tsan_* entry points reference this file: a program none of whose units
 * was compiled with -fcprof-input-size links none of it, and its facade is the usual.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sizes.h"

/* A cell is 4 bytes, 4-aligned (aprof's default resolution).  Its stamp is found by a
 * three-level table over the 47-bit user address space: a leaf holds the stamps of
 * 64 KiB of memory. */
enum { CELL_SHIFT = 2, LEAF_BITS = 14, MID_BITS = 17, ADDRESS_BITS = 47,
       TOP_BITS = ADDRESS_BITS - CELL_SHIFT - LEAF_BITS - MID_BITS };
typedef uint32_t stamp;
#define LEAF_BYTES (sizeof(stamp) << LEAF_BITS)
#define MID_BYTES (sizeof(stamp *) << MID_BITS)
#define TOP_BYTES (sizeof(stamp **) << TOP_BITS)

struct shadow {
    stamp ***top;                   /* [1 << TOP_BITS] of [1 << MID_BITS] of leaves */
};

/* One open activation.  rms is partial: an activation's RMS is the sum of its own and
 * those above it (the paper's invariant 1). */
struct entry {
    int64_t rms;
    stamp ts;
    int routine, path;
    const struct cprof_frame *frame;    /* the facade's frame: matches the exit */
    uint64_t t0, a0;                    /* ticks and accesses at entry */
    /* A sample's first: its frame's slot and entry ticks (the frame may be reused
     * before it closes, when a longjmp left it). */
    const uint64_t *slot;
    uint64_t entered;
};

/* Sampling: the sized time and activations a calling context (its frames' slot) has
 * had as the first sized activation of its thread, and their time over the plain mean
 * (the twin's slowdown there). */
struct budget {
    const uint64_t *slot;
    uint64_t ticks, calls;
    double expansion;
};

struct tuple {
    uint64_t n, calls;
    int routine, path;
    unsigned gen;                       /* the reset it was counted since (sizes_gen) */
    uint64_t max[2], min[2], sum[2];    /* [0] ticks, [1] accesses */
    double sq[2];
};

#define LEAF_CACHE 64
struct leaf_cache {
    uint64_t tag;                       /* the chunk (cell >> LEAF_BITS); UINT64_MAX: none */
    stamp *leaf;
};

struct thread {
    uint64_t accesses;
    struct leaf_cache own_cache[LEAF_CACHE], written_cache[LEAF_CACHE];
    stamp now;                          /* the stamp of this worker's latest entry */
    struct entry *top, *stack, *end;
    struct shadow own;
    struct cprof_worker *w;
    struct tuple *tuples;               /* open addressing, at most half full */
    size_t cap, ntuples;
    uint64_t untracked;                 /* cell accesses past the shadow's bound */
    uint64_t untracked_base, samples_base;  /* both at the last reset (cprof_reset) */
    /* Sampling: its samples (first sized activations), its contexts' budgets (open
     * addressing, at most half full). */
    uint64_t samples;
    struct budget *budgets;
    size_t budgets_cap, nbudgets;
    struct thread *next;
};

__thread int cprof_sizes_twin;
/* CPROF_SIZES_SLOWDOWN, 0 if unset (every activation sized); sampling is its being set,
 * for the access path to test. */
static double slowdown_budget;
static int sampling;
static uint64_t run_start, sampled_ticks, sampled_base;
/* cprof_reset()s so far: a tuple of an older one is the owner's to begin again at its
 * next activation (no other thread writes it), and no profile's meanwhile. */
static unsigned sizes_gen;

static __thread struct thread *me;
static struct thread *threads;          /* every worker's, newest first */
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shadow written;           /* the latest write's stamp, once multi */
static int on, multi, saturated;
static stamp clock_stamp;               /* the last stamp drawn */
static size_t shadow_bytes, shadow_limit;
static struct cprof_facade base;        /* the facade chosen for the run's mode */

static void *install(void **slot, size_t bytes)
{
    if (__atomic_add_fetch(&shadow_bytes, bytes, __ATOMIC_RELAXED) > shadow_limit) {
        __atomic_sub_fetch(&shadow_bytes, bytes, __ATOMIC_RELAXED);
        return 0;
    }
    cprof_inside_begin();           /* its zeroing is no access of the program's */
    void *p = cprof_alloc(bytes), *expected = 0;
    cprof_inside_end();
    if (__atomic_compare_exchange_n(slot, &expected, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return p;
    cprof_free(p, bytes);                       /* another worker installed it first */
    __atomic_sub_fetch(&shadow_bytes, bytes, __ATOMIC_RELAXED);
    return expected;
}

/* The leaf of chunk (cell >> LEAF_BITS), made if make; null past the bound or beyond
 * the address space. */
static __attribute__((noinline)) stamp *leaf_slow(struct shadow *s, uint64_t chunk, int make)
{
    if (chunk >> (MID_BITS + TOP_BITS) || !s->top)
        return 0;
    void **mslot = (void **)&s->top[chunk >> MID_BITS];
    stamp **mid = __atomic_load_n(mslot, __ATOMIC_ACQUIRE);
    if (!mid && (!make || !(mid = install(mslot, MID_BYTES))))
        return 0;
    void **lslot = (void **)&mid[chunk & ((1u << MID_BITS) - 1)];
    stamp *leaf = __atomic_load_n(lslot, __ATOMIC_ACQUIRE);
    if (!leaf && make)
        leaf = install(lslot, LEAF_BYTES);
    return leaf;
}

/* A chunk's slot in a cache: higher bits folded in, so that arrays a power of two of
 * chunks apart (two grids of 4 MiB) do not take turns in one slot. */
static inline size_t cache_slot(uint64_t chunk)
{
    return (chunk ^ chunk >> 6 ^ chunk >> 12) & (LEAF_CACHE - 1);
}

/* Leaf lookups go through a small direct-mapped cache per worker and table. */
static inline stamp *cached_leaf(struct leaf_cache *c, struct shadow *s, uint64_t chunk, int make)
{
    struct leaf_cache *e = &c[cache_slot(chunk)];
    if (__builtin_expect(e->tag != chunk, 0)) {
        stamp *leaf = leaf_slow(s, chunk, make);
        if (!leaf)
            return 0;
        *e = (struct leaf_cache){ chunk, leaf };
    }
    return e->leaf;
}

/* The deepest of the entries lo..hi (hi excluded, lo the sentinel) that began no
 * later than ts: entry stamps grow up the stack, so a binary search (the paper's
 * O(log depth); the parent, the common answer, is tried before). */
static __attribute__((noinline)) struct entry *deepest_before(struct entry *lo, struct entry *hi,
                                                              stamp ts)
{
    while (hi - lo > 1) {
        struct entry *mid = lo + (hi - lo) / 2;
        if (mid->ts <= ts)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The paper's read(w), figure 6, once the cell's stamp ts says it is a first read for
 * the top activation: one more input for it; unless every open activation reads it
 * for the first time too (stamp 0, or written by another worker since), the deepest
 * that had accessed it already, and those under it, had it: one less there. */
static inline __attribute__((always_inline)) void first_read(struct thread *t, stamp ts, int all)
{
    struct entry *top = t->top;
    top->rms++;
    if (all || !ts)
        return;
    struct entry *e = top - 1;
    if (e->ts > ts)
        e = deepest_before(t->stack, e, ts);
    e->rms--;
}

/* Cells own[0..k] of one leaf, for one worker: the paper's read(w) and write(w). */
static inline __attribute__((always_inline)) void cells_own(struct thread *t, stamp *own,
                                                            uint64_t k, int write)
{
    stamp now = t->now;
    if (write) {
        for (uint64_t j = 0; j <= k; j++)
            own[j] = now;
        return;
    }
    stamp top = t->top->ts;
    for (uint64_t j = 0; j <= k; j++) {
        stamp ts = own[j];
        own[j] = now;
        if (__builtin_expect(ts < top, 0))
            first_read(t, ts, 0);
    }
}

/* The same once two workers exist: a write also stamps the shared write shadow (only
 * if it changes it: a line other workers read stays clean); a read of a cell written
 * there by another worker later than this one's latest access is a first read for all
 * its open activations, and its stamp is raised to that write's, so that it counts
 * once. */
static __attribute__((noinline)) void cells_shared(struct thread *t, stamp *own, uint64_t k,
                                                   uint64_t chunk, size_t i, int write)
{
    stamp *w = cached_leaf(t->written_cache, &written, chunk, 1);
    stamp now = t->now, top = t->top->ts;
    for (uint64_t j = 0; j <= k; j++) {
        stamp ts = own[j], wts = w ? w[i + j] : 0;
        if (write) {
            own[j] = now;
            if (w && wts != now)
                w[i + j] = now;
            continue;
        }
        int foreign = wts > ts;
        own[j] = wts > now ? wts : now;
        if (ts < top || foreign)
            first_read(t, ts, foreign);
    }
}

/* Every access the fast path leaves: cells across two leaves, a leaf not cached, past
 * the bound, or beyond the address space. */
static __attribute__((noinline)) void touch_slow(struct thread *t, uint64_t first,
                                                 uint64_t last, int write)
{
    for (uint64_t c = first; c <= last; c++) {
        uint64_t chunk = c >> LEAF_BITS, i = c & ((1u << LEAF_BITS) - 1);
        stamp *own = cached_leaf(t->own_cache, &t->own, chunk, 1);
        if (!own)
            t->untracked++;
        else if (multi)
            cells_shared(t, &own[i], 0, chunk, i, write);
        else
            cells_own(t, &own[i], 0, write);
    }
}

static struct thread *thread_new(void);

/* An access of size bytes at a by the calling thread; ranges count one access a cell.
 * The fast path: its cells in one cached leaf. */
static inline __attribute__((always_inline)) void touch(const void *a, size_t size, int write)
{
    struct thread *t = me;
    if (__builtin_expect(!t, 0) && !(t = thread_new()))
        return;
    if (!size || (__builtin_expect(sampling, 0) && t->top == t->stack))
        return;
    uintptr_t at = (uintptr_t)a;
    uint64_t first = at >> CELL_SHIFT, last = (at + size - 1) >> CELL_SHIFT;
    uint64_t chunk = first >> LEAF_BITS;
    t->accesses += last - first + 1;
    const struct leaf_cache *e = &t->own_cache[cache_slot(chunk)];
    if (__builtin_expect(e->tag != chunk || last >> LEAF_BITS != chunk, 0))
        return touch_slow(t, first, last, write);
    size_t i = first & ((1u << LEAF_BITS) - 1);
    if (__builtin_expect(multi, 0))
        return cells_shared(t, &e->leaf[i], last - first, chunk, i, write);
    cells_own(t, &e->leaf[i], last - first, write);
}

void cprof_sizes_access(const void *a, size_t size, int write)
{
    if (cprof_may_count())
        touch(a, size, write);
}

/* ---- the entry points gcc's -fsanitize=thread calls ---- */

#define ACCESS(prefix, n) \
    void __tsan_##prefix##read##n(void *a) { touch(a, n, 0); } \
    void __tsan_##prefix##write##n(void *a) { touch(a, n, 1); }
#define ACCESSES(prefix) ACCESS(prefix, 1) ACCESS(prefix, 2) ACCESS(prefix, 4) ACCESS(prefix, 8) ACCESS(prefix, 16)
/* Declared here alone: no header of cprof's offers them. */
#define DECLARE(prefix, n) \
    void __tsan_##prefix##read##n(void *a); void __tsan_##prefix##write##n(void *a);
#define DECLARES(prefix) DECLARE(prefix, 1) DECLARE(prefix, 2) DECLARE(prefix, 4) DECLARE(prefix, 8) DECLARE(prefix, 16)
DECLARES()
DECLARES(unaligned_)
DECLARES(volatile_)
ACCESSES()
ACCESSES(unaligned_)
ACCESSES(volatile_)

void __tsan_read_range(void *a, unsigned long size);
void __tsan_write_range(void *a, unsigned long size);
void __tsan_init(void);
void __tsan_read_range(void *a, unsigned long size) { touch(a, size, 0); }
void __tsan_write_range(void *a, unsigned long size) { touch(a, size, 1); }

/* Called by each instrumented object's constructor (priority 99), before the first
 * unit registers and the runtime chooses its facade. */
void __tsan_init(void)
{
    on = 1;
}

/* Atomics: gcc hands every atomic operation of an instrumented unit to these, which
 * must do it.  The memory order is not a constant here: each is done sequentially
 * consistent, at least as strong as the one asked for.  16-byte atomics are not
 * offered (they would need libatomic): such a program fails to link. */
#define ATOMIC_RMW(n, type, op, builtin) \
    type __tsan_atomic##n##_##op(volatile type *a, type v, int mo); \
    type __tsan_atomic##n##_##op(volatile type *a, type v, int mo) \
    { (void)mo; touch((const void *)a, sizeof v, 1); return builtin((type *)a, v, __ATOMIC_SEQ_CST); }
#define ATOMICS(n, type) \
    type __tsan_atomic##n##_load(const volatile type *a, int mo); \
    type __tsan_atomic##n##_load(const volatile type *a, int mo) \
    { (void)mo; touch((const void *)a, sizeof(type), 0); return __atomic_load_n((type *)a, __ATOMIC_SEQ_CST); } \
    void __tsan_atomic##n##_store(volatile type *a, type v, int mo); \
    void __tsan_atomic##n##_store(volatile type *a, type v, int mo) \
    { (void)mo; touch((const void *)a, sizeof v, 1); __atomic_store_n((type *)a, v, __ATOMIC_SEQ_CST); } \
    ATOMIC_RMW(n, type, exchange, __atomic_exchange_n) \
    ATOMIC_RMW(n, type, fetch_add, __atomic_fetch_add) ATOMIC_RMW(n, type, fetch_sub, __atomic_fetch_sub) \
    ATOMIC_RMW(n, type, fetch_and, __atomic_fetch_and) ATOMIC_RMW(n, type, fetch_or, __atomic_fetch_or) \
    ATOMIC_RMW(n, type, fetch_xor, __atomic_fetch_xor) ATOMIC_RMW(n, type, fetch_nand, __atomic_fetch_nand) \
    int __tsan_atomic##n##_compare_exchange_strong(volatile type *a, type *c, type v, int mo, int fmo); \
    int __tsan_atomic##n##_compare_exchange_strong(volatile type *a, type *c, type v, int mo, int fmo) \
    { (void)mo; (void)fmo; touch((const void *)a, sizeof v, 1); \
      return __atomic_compare_exchange_n((type *)a, c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); } \
    int __tsan_atomic##n##_compare_exchange_weak(volatile type *a, type *c, type v, int mo, int fmo); \
    int __tsan_atomic##n##_compare_exchange_weak(volatile type *a, type *c, type v, int mo, int fmo) \
    { (void)mo; (void)fmo; touch((const void *)a, sizeof v, 1); \
      return __atomic_compare_exchange_n((type *)a, c, v, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); } \
    type __tsan_atomic##n##_compare_exchange_val(volatile type *a, type c, type v, int mo, int fmo); \
    type __tsan_atomic##n##_compare_exchange_val(volatile type *a, type c, type v, int mo, int fmo) \
    { (void)mo; (void)fmo; touch((const void *)a, sizeof v, 1); \
      __atomic_compare_exchange_n((type *)a, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return c; }
ATOMICS(8, int8_t)
ATOMICS(16, int16_t)
ATOMICS(32, int32_t)
ATOMICS(64, int64_t)
void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_thread_fence(int mo) { (void)mo; __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int mo) { (void)mo; __atomic_signal_fence(__ATOMIC_SEQ_CST); }

/* ---- activations ---- */

/* A listed worker's state, made on its thread's first access or entry; none for a
 * thread that is no worker, or inside the runtime. */
static __attribute__((noinline)) struct thread *thread_new(void)
{
    struct cprof_worker *self = cprof_self, *w;
    if (!on || !self || !cprof_may_count())
        return 0;
    for (w = cprof_workers(); w && w != self; w = w->next)
        ;
    if (!w)
        return 0;       /* a scratch worker: the start-up measurement of the facade */
    cprof_inside_begin();
    struct thread *t = cprof_alloc(sizeof *t);
    size_t depth = (size_t)(self->stack_end - self->stack);
    t->stack = cprof_alloc(depth * sizeof *t->stack);
    cprof_inside_end();
    t->end = t->stack + depth;
    for (int i = 0; i < LEAF_CACHE; i++)
        t->own_cache[i].tag = t->written_cache[i].tag = UINT64_MAX;
    t->top = t->stack;              /* the sentinel: stamp 0, never closed */
    t->w = self;
    t->own.top = install((void **)&(void *){ 0 }, TOP_BYTES);
    pthread_mutex_lock(&threads_lock);
    if (threads && !written.top) {
        written.top = install((void **)&(void *){ 0 }, TOP_BYTES);
        __atomic_store_n(&multi, 1, __ATOMIC_RELAXED);
    }
    t->next = threads;
    threads = t;
    pthread_mutex_unlock(&threads_lock);
    me = t;
    return t;
}

static uint64_t hash(int routine, int path, uint64_t n)
{
    uint64_t h = n * 0x9e3779b97f4a7c15u ^ (uint64_t)(unsigned)routine * 0xc2b2ae3d27d4eb4fu ^
                 (uint64_t)(unsigned)path * 0x165667b19e3779f9u;
    return h ^ h >> 29;
}

static struct tuple *tuple_of(struct thread *t, int routine, int path, uint64_t n)
{
    if (2 * (t->ntuples + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        cprof_inside_begin();
        struct tuple *old = t->tuples, *nt = cprof_alloc(cap * sizeof *nt);
        cprof_inside_end();
        for (size_t i = 0; i < t->cap; i++)
            if (old[i].calls) {
                size_t k = hash(old[i].routine, old[i].path, old[i].n) & (cap - 1);
                while (nt[k].calls)
                    k = (k + 1) & (cap - 1);
                nt[k] = old[i];
            }
        pthread_mutex_lock(&t->w->lock);    /* the profile writer reads them under it */
        t->tuples = nt;
        size_t was = t->cap;
        t->cap = cap;
        pthread_mutex_unlock(&t->w->lock);
        cprof_inside_begin();
        cprof_free(old, was * sizeof *old);
        cprof_inside_end();
    }
    size_t k = hash(routine, path, n) & (t->cap - 1);
    for (struct tuple *u; (u = &t->tuples[k])->calls; k = (k + 1) & (t->cap - 1))
        if (u->n == n && u->routine == routine && u->path == path)
            return u;
    t->ntuples++;
    struct tuple *u = &t->tuples[k];
    *u = (struct tuple){ .n = n, .routine = routine, .path = path,
                         .min = { UINT64_MAX, UINT64_MAX } };
    return u;
}

/* The paper's return(): the top activation's tuple, its partial RMS to its parent. */
static void close_entry(struct thread *t, uint64_t now)
{
    struct entry *e = t->top;
    uint64_t cost[2] = { now - e->t0, t->accesses - e->a0 };
    struct tuple *u = tuple_of(t, e->routine, e->path, (uint64_t)e->rms);
    unsigned gen = __atomic_load_n(&sizes_gen, __ATOMIC_ACQUIRE);
    int again = u->gen != gen;
    if (again)
        *u = (struct tuple){ .n = u->n, .calls = u->calls, .routine = u->routine,
                             .path = u->path, .gen = gen, .min = { UINT64_MAX, UINT64_MAX } };
    for (int k = 0; k < 2; k++) {
        if (cost[k] > u->max[k])
            u->max[k] = cost[k];
        if (cost[k] < u->min[k])
            u->min[k] = cost[k];
        u->sum[k] += cost[k];
        u->sq[k] += (double)cost[k] * (double)cost[k];
    }
    __atomic_store_n(&u->calls, again ? 1 : u->calls + 1, __ATOMIC_RELEASE);
    e[-1].rms += e->rms;
    t->top = e - 1;
}

/* The facade's own loads in profiled code (cprof_facade's hooks, the handshake in
 * cprof_pending) are no input of the program's: their cells are stamped as the new
 * activation's, as if it had written them, so no read of them is a first read. */
static void stamp_facade(struct thread *t)
{
    const struct { const void *a; size_t size; } own[] = {
        { &cprof_facade, sizeof cprof_facade }, { &cprof_pending, sizeof cprof_pending } };
    for (size_t k = 0; k < sizeof own / sizeof *own; k++) {
        uintptr_t at = (uintptr_t)own[k].a;
        stamp *leaf = 0;
        for (uint64_t c = at >> CELL_SHIFT; c <= (at + own[k].size - 1) >> CELL_SHIFT; c++) {
            if (!leaf || !(c & ((1u << LEAF_BITS) - 1)))     /* the first, or a new leaf */
                leaf = cached_leaf(t->own_cache, &t->own, c >> LEAF_BITS, 1);
            if (leaf)
                leaf[c & ((1u << LEAF_BITS) - 1)] = t->now;
        }
    }
}

static size_t budget_slot(const uint64_t *slot, size_t cap)
{
    return ((uintptr_t)slot >> 3) * 0x9e3779b97f4a7c15u >> 40 & (cap - 1);
}

/* Sampling: context slot's budget on thread t, made if new. */
static struct budget *budget_of(struct thread *t, const uint64_t *slot)
{
    if (2 * (t->nbudgets + 1) > t->budgets_cap) {
        size_t cap = t->budgets_cap ? 2 * t->budgets_cap : 64;
        cprof_inside_begin();
        struct budget *old = t->budgets, *nb = cprof_alloc(cap * sizeof *nb);
        cprof_inside_end();
        for (size_t i = 0; i < t->budgets_cap; i++)
            if (old[i].slot) {
                size_t k = budget_slot(old[i].slot, cap);
                while (nb[k].slot)
                    k = (k + 1) & (cap - 1);
                nb[k] = old[i];
            }
        cprof_inside_begin();
        cprof_free(old, t->budgets_cap * sizeof *old);
        cprof_inside_end();
        t->budgets = nb;
        t->budgets_cap = cap;
    }
    size_t k = budget_slot(slot, t->budgets_cap);
    for (; t->budgets[k].slot; k = (k + 1) & (t->budgets_cap - 1))
        if (t->budgets[k].slot == slot)
            return &t->budgets[k];
    t->nbudgets++;
    t->budgets[k] = (struct budget){ .slot = slot, .expansion = 30 };
    return &t->budgets[k];
}

/* A frame's slot is time[case] of its record (a call record or a context), whose
 * count[] comes just before: the activations of that case entered so far. */
_Static_assert(offsetof(struct cprof_call_rec, time) == sizeof(unsigned long long) * CPROF_NCASES
               && offsetof(struct cprof_node, time) == sizeof(unsigned long long) * CPROF_NCASES
               && offsetof(struct cprof_call_rec, count) == 0 && offsetof(struct cprof_node, count) == 0,
               "count[] right before time[] in both records");
static uint64_t entered(const uint64_t *slot)
{
    return ((const unsigned long long *)(const void *)(slot - CPROF_NCASES))[0];
}

/* Sampling: whether the plain entry of frame f (no activation of its thread sized) is to
 * be sized.  Its context's completed activations give the plain mean; times the twin's
 * slowdown there (30 until measured), the sample's likely time.  It is taken if, with
 * it, both all threads' sized time over the run's elapsed time and the context's sized
 * time over its own stay within the share.  A context seen for the first time is never
 * sampled: a routine called once (main) would make the whole run sized. */
static int sample_now(struct thread *t, const struct cprof_frame *f)
{
    uint64_t done = entered(f->slot) - 1, ticks = f->slot[0];
    if (!done)
        return 0;
    /* The share of the run's elapsed time that samples, all threads' added up, may
     * take.  Added up, not per thread: a sample on one thread holds up the others at
     * the next barrier, and a thread's own time would count that wait as room for
     * samples of its own. */
    double share = 1 - 1 / slowdown_budget, now = (double)(f->t0 - run_start);
    double sampled = (double)__atomic_load_n(&sampled_ticks, __ATOMIC_RELAXED);
    if (sampled > share * now)
        return 0;               /* cheap first: within the run's share at all */
    struct budget *b = budget_of(t, f->slot);
    if (done <= b->calls || ticks <= b->ticks)
        return 0;               /* no plain activation to go by */
    double mean = (double)(ticks - b->ticks) / (double)(done - b->calls);
    double guess = mean * b->expansion;
    return sampled + guess <= share * (now + guess)
           && (double)b->ticks + guess <= share * ((double)ticks + guess);
}

/* Sampling: the first sized activation e of thread t closed at now; its time runs from
 * the facade's entry, so that sizing's own work at the entry and exit is the sample's. */
static void sample_done(struct thread *t, const struct entry *e, uint64_t now)
{
    const uint64_t *slot = e->slot;
    uint64_t took = now - e->entered, done = entered(slot), ticks = slot[0];
    struct budget *b = budget_of(t, slot);
    /* The plain mean before this one: its time is not yet in the record. */
    if (done > b->calls + 1 && ticks > b->ticks) {
        double mean = (double)(ticks - b->ticks) / (double)(done - b->calls - 1);
        b->expansion = (double)took / mean;
    }
    b->ticks += took;
    b->calls++;
    __atomic_add_fetch(&sampled_ticks, took, __ATOMIC_RELAXED);
    t->samples++;
}

/* Entries left by longjmp (frames at or above f, reused) are closed at now. */
static void close_above(struct thread *t, const struct cprof_frame *f, uint64_t now, int inclusive)
{
    while (t->top != t->stack && (inclusive ? t->top->frame >= f : t->top->frame > f)) {
        if (sampling && t->top - 1 == t->stack) {
            struct entry first = *t->top;
            close_entry(t, now);
            sample_done(t, &first, cprof_ticks());
        } else {
            close_entry(t, now);
        }
    }
}

static struct cprof_frame *sizes_enter(struct cprof_routine *r)
{
    struct cprof_frame *f = base.enter(r);
    struct thread *t = me;
    if (!f || (!t && !(t = thread_new())) || t->w != cprof_self)
        return f;
    if (t->top->frame >= f)
        close_above(t, f, cprof_ticks(), 1);
    if (sampling && t->top == t->stack) {
        cprof_sizes_twin = sample_now(t, f);
        if (!cprof_sizes_twin)
            return f;
    }
    cprof_sizes_twin = 1;
    stamp ts = __atomic_add_fetch(&clock_stamp, 1, __ATOMIC_RELAXED);
    if (__builtin_expect(ts == UINT32_MAX || t->top + 1 == t->end, 0)) {
        __atomic_store_n(&saturated, 1, __ATOMIC_RELAXED);
        return f;
    }
    struct entry *e = ++t->top;
    *e = (struct entry){ .ts = ts, .routine = r->id, .path = f->ctx->id, .frame = f,
                         .a0 = t->accesses, .slot = f->slot, .entered = f->t0 };
    t->now = ts;
    stamp_facade(t);
    e->t0 = cprof_ticks();
    return f;
}

static void sizes_leave(struct cprof_frame *f)
{
    struct thread *t = me;
    if (t && t->w == cprof_self && t->top->frame >= f) {
        uint64_t now = cprof_ticks();
        close_above(t, f, now, 0);  /* left by longjmp */
        close_above(t, f, now, 1);
        cprof_sizes_twin = !sampling || t->top != t->stack;
    }
    base.leave(f);
}

struct cprof_facade cprof_sizes_facade(struct cprof_facade chosen)
{
    if (!on || cprof_clock == CPROF_CLOCK_NONE)
        return chosen;
    const char *slowdown = getenv("CPROF_SIZES_SLOWDOWN");
    if (slowdown && *slowdown) {
        char *end;
        double x = strtod(slowdown, &end);
        if (*end || !(x > 1) || x > 1e6)
            fprintf(stderr, "cprof: CPROF_SIZES_SLOWDOWN: '%s' is not a number above 1; "
                    "every activation is sized\n", slowdown);
        else
            slowdown_budget = x, sampling = 1, run_start = cprof_ticks();
    }
    unsigned long long mb = 0;
    cprof_setting_number("CPROF_SHADOW_MB", 1, 1ull << 30, &mb, "half the machine's memory");
    shadow_limit = mb ? (size_t)mb << 20
                      : (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE) / 2;
    base = chosen;
    return (struct cprof_facade){ sizes_enter, sizes_leave };
}

/* ---- the profile ---- */

int cprof_sizes_kept(void)
{
    return on && base.enter;
}

void cprof_sizes_write_header(struct cprof_json *j)
{
    size_t tuple_bytes = 0;
    uint64_t untracked = 0, samples = 0;
    pthread_mutex_lock(&threads_lock);
    for (struct thread *t = threads; t; t = t->next) {
        tuple_bytes += t->cap * sizeof *t->tuples;
        untracked += t->untracked - t->untracked_base;
        samples += t->samples - t->samples_base;
    }
    pthread_mutex_unlock(&threads_lock);
    cprof_json_key(j, CPROF_SECTION_SIZES);
    cprof_json_begin(j, '{');
    cprof_json_field_int(j, "cell_bytes", 1 << CELL_SHIFT);
    cprof_json_field_uint(j, "shadow_bytes", __atomic_load_n(&shadow_bytes, __ATOMIC_RELAXED));
    cprof_json_field_uint(j, "shadow_limit_bytes", shadow_limit);
    cprof_json_field_uint(j, "tuple_bytes", tuple_bytes);
    cprof_json_field_uint(j, "untracked_accesses", untracked);
    /* Sampling: the budget (0: every activation sized), the samples, their time. */
    cprof_json_key(j, "slowdown_budget");
    cprof_json_real(j, slowdown_budget);
    cprof_json_field_uint(j, "samples", samples);
    cprof_json_field_uint(j, "sampled_ns", (uint64_t)((double)(__atomic_load_n(&sampled_ticks,
                                                      __ATOMIC_RELAXED) - sampled_base) *
                                                      cprof_ns_per_tick()));
    cprof_json_key(j, "columns");
    cprof_json_begin(j, '[');
    for (int c = 0; c < CPROF_SIZE_NCOLUMNS; c++)
        cprof_json_string(j, cprof_size_columns[c]);
    cprof_json_end(j, ']');
    cprof_json_key(j, "saturated");
    cprof_json_bool(j, __atomic_load_n(&saturated, __ATOMIC_RELAXED));
    cprof_json_end(j, '}');
}

void cprof_sizes_reset(void)
{
    pthread_mutex_lock(&threads_lock);
    for (struct thread *t = threads; t; t = t->next) {
        t->untracked_base = __atomic_load_n(&t->untracked, __ATOMIC_RELAXED);
        t->samples_base = __atomic_load_n(&t->samples, __ATOMIC_RELAXED);
    }
    sampled_base = __atomic_load_n(&sampled_ticks, __ATOMIC_RELAXED);
    __atomic_add_fetch(&sizes_gen, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&threads_lock);
}

/* Worker w's tuples (w->lock held), rows of CPROF_SIZE_COLUMNS; times in ns. */
void cprof_sizes_write_worker(struct cprof_json *j, struct cprof_worker *w, double npt)
{
    struct thread *t;
    pthread_mutex_lock(&threads_lock);
    for (t = threads; t && t->w != w; t = t->next)
        ;
    pthread_mutex_unlock(&threads_lock);
    cprof_json_key(j, CPROF_SECTION_SIZES);
    cprof_json_begin(j, '[');
    unsigned gen = __atomic_load_n(&sizes_gen, __ATOMIC_ACQUIRE);
    for (size_t i = 0; t && i < t->cap; i++) {
        const struct tuple *u = &t->tuples[i];
        uint64_t calls = __atomic_load_n(&u->calls, __ATOMIC_ACQUIRE);
        if (!calls || u->gen != gen)
            continue;
        cprof_json_begin(j, '[');
        cprof_json_int(j, u->routine);
        cprof_json_int(j, u->path);
        cprof_json_uint(j, u->n);
        cprof_json_uint(j, calls);
        for (int k = 0; k < 2; k++) {
            double scale = k ? 1 : npt;
            cprof_json_uint(j, (uint64_t)((double)u->max[k] * scale));
            cprof_json_uint(j, (uint64_t)((double)u->min[k] * scale));
            cprof_json_uint(j, (uint64_t)((double)u->sum[k] * scale));
            cprof_json_real(j, u->sq[k] * scale * scale);
        }
        cprof_json_end(j, ']');
    }
    cprof_json_end(j, ']');
}
