/* workers.c: one shard of counters per worker (OS thread running instrumented code).
 *
 * Only the owner writes its shard, so the hot path takes no lock and shares no cache
 * line with another worker: shards and their arenas are separate, 64-byte aligned
 * allocations (memory.c: never the program's malloc).  Records are carved from the
 * arena and never move, so open frames can point at them while the index tables grow.
 * Shards live until the process ends: the profile is written after worker threads may
 * have exited.
 *
 * When a thread may not have a worker (docs/semantics.md):
 *  - before the dynamic linker has set up its thread-local storage: an ifunc resolver
 *    runs while the program is relocated, when the TLS block exists but is not yet
 *    initialized, and what is written to it then is overwritten by the initialization
 *    (a worker made then would be lost, and the thread would make a second one);
 *  - while the thread runs the runtime's own code (start-up, a worker's registration,
 *    writing the profile): whatever that calls back in the program (its own malloc,
 *    through a library) is the runtime's doing, not the program's.
 * In both, entries find no worker (cprof_self is null: inside the runtime it is hidden
 * meanwhile), take the slow path that would make one, and count nothing: no test is
 * added to the straight path.
 */
#define _GNU_SOURCE
#include <omp.h>
#include <sys/mman.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core.h"

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cprof_worker *list;
static int nworkers;

/* Deep enough for any recursion a thread stack allows; reserved, not committed. */
#define STACK_FRAMES (1u << 20)
#define ARENA_CHUNK (64u << 10)

struct cprof_worker *cprof_self_slow(void)
{
    return cprof_may_count() ? cprof_worker_create(1) : 0;
}

struct cprof_worker *cprof_workers(void)
{
    pthread_mutex_lock(&list_lock);
    struct cprof_worker *w = list;
    pthread_mutex_unlock(&list_lock);
    return w;
}

static void *arena_alloc(struct cprof_worker *w, size_t size);

size_t cprof_node_extra;
/* Contexts per worker (CPROF_PATHS_MAX, facade.c reads it at start-up). */
int cprof_paths_max = 100000;

/* The worker's own thread: publishes it at the head of the worker's list. */
static struct cprof_node *new_node(struct cprof_worker *w, struct cprof_node *parent,
                                   struct cprof_call_rec *key, struct cprof_node *canon)
{
    struct cprof_node *n = arena_alloc(w, sizeof *n + cprof_node_extra);
    n->key = key;
    n->rec = key ? key->rec : 0;
    n->parent = parent;
    n->canon = canon ? canon : n;
    n->id = w->nnodes++;
    n->made_next = w->nodes;
    cprof_publish(w->nodes, n);
    return n;
}

struct cprof_worker *cprof_worker_create(int listed)
{
    cprof_inside_begin();
    struct cprof_worker *w = cprof_alloc(sizeof *w);
    pthread_mutex_init(&w->lock, NULL);
    w->tid = gettid();
    w->initial = w->tid == getpid();
    w->omp_thread = omp_get_thread_num();
    size_t bytes = STACK_FRAMES * sizeof(struct cprof_frame);
    void *stack = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (stack == MAP_FAILED)
        cprof_out_of_memory();
    w->stack = stack;
    w->stack_end = w->stack + STACK_FRAMES;
    /* The sentinel: above every stack position, so no entry takes it for a frame left
     * by longjmp, and a parent for the outermost frames. */
    w->stack->sp = (const void *)UINTPTR_MAX;
    w->top = w->stack + 1;
    w->root = w->stack->ctx = new_node(w, 0, 0, 0);
    for (int i = 0; i < CPROF_RESOURCES_MAX; i++)
        w->res_fd[i] = -1;
    if (cprof_hooks()->worker_made)
        cprof_hooks()->worker_made(w);

    if (listed) {
        pthread_mutex_lock(&list_lock);
        w->id = nworkers++;
        w->next = list;
        list = w;
        pthread_mutex_unlock(&list_lock);
        cprof_inside_keep(w);       /* this thread's worker from now on */
        cprof_pending.context = w->root;
        if (cprof_hooks()->worker_listed)
            cprof_hooks()->worker_listed(w);
    }
    cprof_inside_end();
    return w;
}

/* Only for unlisted workers: arena chunks other than the current one are not tracked,
 * and scratch use never needs more than one. */
void cprof_worker_destroy(struct cprof_worker *w)
{
    munmap(w->stack, STACK_FRAMES * sizeof(struct cprof_frame));
    if (w->arena_end)
        cprof_free(w->arena_end - ARENA_CHUNK, ARENA_CHUNK);
    cprof_free(w->routines, (size_t)w->routines_cap * sizeof *w->routines);
    cprof_free(w->recs.cells, w->recs.cap * sizeof *w->recs.cells);
    cprof_free(w->nodes_by_key.cells, w->nodes_by_key.cap * sizeof *w->nodes_by_key.cells);
    cprof_free(w->slots, (size_t)w->nslots * sizeof *w->slots);
    if (cprof_hooks()->worker_freed)
        cprof_hooks()->worker_freed(w);
    pthread_mutex_destroy(&w->lock);
    cprof_free(w, sizeof *w);
}

/* The worker's own thread. */
static void *arena_alloc(struct cprof_worker *w, size_t size)
{
    size = (size + 63) & ~(size_t)63;
    if ((size_t)(w->arena_end - w->arena) < size) {
        size_t chunk = size > ARENA_CHUNK ? size : ARENA_CHUNK;
        w->arena = cprof_alloc(chunk);
        w->arena_end = w->arena + chunk;
    }
    void *p = w->arena;
    w->arena += size;
    return p;           /* zero: chunks are */
}

void *cprof_worker_alloc(struct cprof_worker *w, size_t size)
{
    return arena_alloc(w, size);
}

struct cprof_routine_rec *cprof_routine_rec_slow(struct cprof_worker *w, int routine)
{
    if (routine >= w->routines_cap) {
        /* The writer may be reading the old index: it is kept, the new one published
         * before its size. */
        int cap = w->routines_cap ? w->routines_cap : 256;
        while (cap <= routine)
            cap *= 2;
        struct cprof_routine_rec **p = cprof_alloc((size_t)cap * sizeof *p);
        if (w->routines_cap)
            memcpy(p, w->routines, (size_t)w->routines_cap * sizeof *p);
        cprof_publish(w->routines, p);
        cprof_publish(w->routines_cap, cap);
    }
    struct cprof_routine_rec *r = w->routines[routine];
    if (!r) {
        r = arena_alloc(w, sizeof *r);
        r->ext.rec = r;
        r->ext.callee = routine;
        r->ext.site = -1;
        cprof_publish(w->routines[routine], r);
    }
    return r;
}

/* The worker's lookups: open addressing on two words of key, at most half full. */
typedef void hash_key(const void *entry, uint64_t key[2]);

static size_t hash_cell(const struct cprof_hash *h, uint64_t a, uint64_t b, hash_key *key)
{
    uint64_t x = (a * 0x9e3779b97f4a7c15u) ^ (b * 0xc2b2ae3d27d4eb4fu), k[2];
    size_t mask = h->cap - 1, i = (size_t)(x ^ x >> 29) & mask;
    for (void *e; (e = h->cells[i]); i = (i + 1) & mask) {
        key(e, k);
        if (k[0] == a && k[1] == b)
            break;
    }
    return i;
}

/* Room for one more entry, the table doubled if need be. */
static void hash_room(struct cprof_hash *h, size_t first, hash_key *key)
{
    if (2 * (h->n + 1) <= h->cap)
        return;
    void **old = h->cells;
    size_t old_cap = h->cap;
    h->cap = old_cap ? 2 * old_cap : first;
    h->cells = cprof_alloc(h->cap * sizeof *h->cells);
    for (size_t i = 0; i < old_cap; i++)
        if (old[i]) {
            uint64_t k[2];
            key(old[i], k);
            h->cells[hash_cell(h, k[0], k[1], key)] = old[i];
        }
    cprof_free(old, old_cap * sizeof *old);
}

static void rec_key(const void *entry, uint64_t key[2])
{
    const struct cprof_call_rec *c = entry;
    key[0] = (unsigned)c->site;
    key[1] = (unsigned)c->callee;
}

struct cprof_call_rec *cprof_call_rec_slow(struct cprof_worker *w, int site, int callee)
{
    hash_room(&w->recs, 256, rec_key);
    size_t i = hash_cell(&w->recs, (unsigned)site, (unsigned)callee, rec_key);
    struct cprof_call_rec *c = w->recs.cells[i];
    if (c)
        return c;
    c = arena_alloc(w, sizeof *c);
    c->callee = callee;
    c->site = site;
    c->rec = cprof_routine_rec(w, callee);
    c->next_of_callee = c->rec->records;
    c->rec->records = c;
    c->made_next = w->records;
    w->recs.cells[i] = c;
    w->recs.n++;
    cprof_publish(w->records, c);
    return c;
}

struct cprof_slot *cprof_slot_slow(struct cprof_worker *w, int site)
{
    if ((unsigned)site >= w->nslots) {
        unsigned n = w->nslots ? w->nslots : 256;
        while (n <= (unsigned)site)
            n *= 2;
        w->slots = cprof_realloc(w->slots, (size_t)w->nslots * sizeof *w->slots,
                                 (size_t)n * sizeof *w->slots);
        w->nslots = n;
    }
    return &w->slots[site];
}

struct cprof_construct_rec *cprof_construct_rec_slow(struct cprof_worker *w,
                                                     const struct cprof_site *site, int kind)
{
    if (site && site->id < 0)
        cprof_site_id_slow((struct cprof_site *)site);
    int id = site ? site->id : -1;
    struct cprof_construct_rec *c = 0;
    if (id >= 0 && id < w->constructs_cap) {
        c = w->constructs[id];
    } else if (id >= 0) {
        int cap = w->constructs_cap ? w->constructs_cap : 256;
        while (cap <= id)
            cap *= 2;
        w->constructs = cprof_realloc(w->constructs, (size_t)w->constructs_cap * sizeof *w->constructs,
                                      (size_t)cap * sizeof *w->constructs);
        w->constructs_cap = cap;
    } else {
        for (c = w->construct_list; c && (c->key.site >= 0 || c->kind != kind); c = c->next)
            ;
    }
    if (!c) {
        c = arena_alloc(w, sizeof *c);
        c->kind = kind;
        c->key.site = id;
        /* Never a routine id, and distinct per construct: recursion folds on it. */
        c->key.callee = id >= 0 ? -2 - id : INT_MIN + kind;
        c->key.rec = &c->own;
        c->own.ext.rec = &c->own;
        c->own.ext.callee = c->key.callee;
        c->team_min = INT_MAX;
        c->next = w->construct_list;
        if (id >= 0)
            w->constructs[id] = c;
        cprof_publish(w->construct_list, c);
    }
    return c;
}

static void node_key(const void *entry, uint64_t key[2])
{
    const struct cprof_node *n = entry;
    key[0] = (uintptr_t)n->parent;
    key[1] = (uintptr_t)n->key;
}

struct cprof_node *cprof_node_slow(struct cprof_worker *w, struct cprof_node *parent,
                                   struct cprof_call_rec *c)
{
    if (!parent->key && parent != w->root) {
        parent->count[CPROF_SS]++;      /* under <other>: <other> too */
        return parent;
    }
    hash_room(&w->nodes_by_key, 1024, node_key);
    size_t i = hash_cell(&w->nodes_by_key, (uintptr_t)parent, (uintptr_t)c, node_key);
    struct cprof_node *n = w->nodes_by_key.cells[i];
    if (n)
        return n;
    if (w->nnodes >= cprof_paths_max) {
        if (!parent->other)
            parent->other = new_node(w, parent, 0, 0);
        parent->other->count[CPROF_SS]++;
        return parent->other;
    }
    /* Recursion folds: a routine already on the path takes the calls of this one. */
    struct cprof_node *canon = parent;
    while (canon->key && canon->key->callee != c->callee)
        canon = canon->parent;
    n = new_node(w, parent, c, canon->key ? canon : 0);
    w->nodes_by_key.cells[i] = n;
    w->nodes_by_key.n++;
    n->same_key = c->nodes;
    cprof_publish(c->nodes, n);
    return n;
}
