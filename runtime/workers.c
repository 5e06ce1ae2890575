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
#include <unistd.h>
#include "internal.h"

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cprof_worker *list;
static int nworkers;

/* Deep enough for any recursion a thread stack allows; reserved, not committed. */
#define STACK_FRAMES (1u << 20)
#define ARENA_CHUNK (64u << 10)

/* What this thread's storage holds once the dynamic linker has initialized it; zero
 * before, as the linker allocated it.  Volatile: never written, it would be taken for
 * a constant. */
#define TLS_SET_UP 0x63707266746c7331ull
static __thread volatile uint64_t tls_set_up = TLS_SET_UP;
/* Nesting of the runtime's own code on this thread, and its worker meanwhile. */
static __thread int inside;
static __thread struct cprof_worker *hidden;

void cprof_inside_begin(void)
{
    if (inside++ == 0) {
        hidden = cprof_self;
        cprof_self = 0;
    }
}

void cprof_inside_end(void)
{
    if (--inside == 0)
        cprof_self = hidden;
}

int cprof_may_count(void)
{
    return !inside && tls_set_up == TLS_SET_UP;
}

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

struct cprof_node cprof_no_node;

/* With w->lock held. */
static struct cprof_node *new_node(struct cprof_worker *w, struct cprof_node *parent,
                                   struct cprof_call_rec *key)
{
    struct cprof_node *n = arena_alloc(w, sizeof *n + cprof_node_extra);
    n->key = key;
    n->parent = parent;
    n->canon = n;
    n->last = &cprof_no_node;
    n->id = w->nnodes++;
    n->made_next = w->nodes;
    w->nodes = n;
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
    pthread_mutex_lock(&w->lock);
    w->root = w->stack->ctx = new_node(w, 0, 0);
    pthread_mutex_unlock(&w->lock);
    for (int i = 0; i < CPROF_RESOURCES_MAX; i++)
        w->res_fd[i] = -1;
    if (cprof_tracing())
        cprof_trace_new(w);

    if (listed) {
        pthread_mutex_lock(&list_lock);
        w->id = nworkers++;
        w->next = list;
        list = w;
        pthread_mutex_unlock(&list_lock);
        hidden = w;     /* this thread's worker from now on */
        cprof_pending.context = w->root;
        cprof_placement_new(w);
        cprof_resources_open(w);
        cprof_stack_thread();
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
    cprof_free(w->sites, (size_t)w->sites_cap * sizeof *w->sites);
    if (w->chained)
        cprof_free(w->chained, w->chained_cap * sizeof *w->chained);
    cprof_trace_free(w);
    pthread_mutex_destroy(&w->lock);
    cprof_free(w, sizeof *w);
}

/* Called with w->lock held. */
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

/* Called with w->lock held: the index tables may move while the writer reads them. */
static void *grow_index(void *table, int *cap, int need)
{
    if (need < *cap)
        return table;
    int n = *cap ? *cap : 256;
    while (n <= need)
        n *= 2;
    void **p = cprof_realloc(table, (size_t)*cap * sizeof *p, (size_t)n * sizeof *p);
    *cap = n;
    return p;
}

struct cprof_routine_rec *cprof_routine_rec_slow(struct cprof_worker *w, int routine)
{
    pthread_mutex_lock(&w->lock);
    w->routines = grow_index(w->routines, &w->routines_cap, routine);
    struct cprof_routine_rec *r = w->routines[routine];
    if (!r) {
        r = w->routines[routine] = arena_alloc(w, sizeof *r);
        r->ext.rec = r;
        r->ext.callee = routine;
    }
    pthread_mutex_unlock(&w->lock);
    return r;
}

static size_t chained_slot(const struct cprof_worker *w, int site, int callee)
{
    uint64_t h = ((uint64_t)(unsigned)site << 32 | (unsigned)callee) * 0x9e3779b97f4a7c15u;
    size_t mask = w->chained_cap - 1, i = (size_t)(h >> 32) & mask;
    for (struct cprof_call_rec *c; (c = w->chained[i]); i = (i + 1) & mask)
        if (c->site == site && c->callee == callee)
            break;
    return i;
}

/* Called with w->lock held. */
static void chain_add(struct cprof_worker *w, struct cprof_call_rec *c)
{
    if (2 * (w->nchained + 1) > w->chained_cap) {
        struct cprof_call_rec **old = w->chained;
        size_t old_cap = w->chained_cap;
        w->chained_cap = old_cap ? 2 * old_cap : 64;
        w->chained = cprof_alloc(w->chained_cap * sizeof *w->chained);
        for (size_t i = 0; i < old_cap; i++)
            if (old[i])
                w->chained[chained_slot(w, old[i]->site, old[i]->callee)] = old[i];
        if (old)
            cprof_free(old, old_cap * sizeof *old);
    }
    w->chained[chained_slot(w, c->site, c->callee)] = c;
    w->nchained++;
}

/* The first callee of a site sits in the index; further ones (a function pointer
 * reaching several routines) are chained behind it, and found by the hash. */
struct cprof_call_rec *cprof_call_rec_slow(struct cprof_worker *w, int site, int callee)
{
    pthread_mutex_lock(&w->lock);
    w->sites = grow_index(w->sites, &w->sites_cap, site);
    struct cprof_call_rec *first = w->sites[site], *c = first;
    if (c && c->callee != callee)
        c = w->chained ? w->chained[chained_slot(w, site, callee)] : 0;
    if (!c) {
        c = arena_alloc(w, sizeof *c);
        c->callee = callee;
        c->site = site;
        if (first) {
            c->next = first->next;
            first->next = c;
            chain_add(w, c);
        } else {
            w->sites[site] = c;
        }
    }
    pthread_mutex_unlock(&w->lock);
    return c;
}

struct cprof_construct_rec *cprof_construct_rec_slow(struct cprof_worker *w,
                                                     const struct cprof_site *site, int kind)
{
    if (site && site->id < 0)
        cprof_site_id_slow((struct cprof_site *)site);
    int id = site ? site->id : -1;
    pthread_mutex_lock(&w->lock);
    struct cprof_construct_rec *c = 0;
    if (id >= 0) {
        w->constructs = grow_index(w->constructs, &w->constructs_cap, id);
        c = w->constructs[id];
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
        w->construct_list = c;
        if (id >= 0)
            w->constructs[id] = c;
    }
    pthread_mutex_unlock(&w->lock);
    return c;
}

struct cprof_node *cprof_node_slow(struct cprof_worker *w, struct cprof_node *parent,
                                   struct cprof_call_rec *c)
{
    pthread_mutex_lock(&w->lock);
    struct cprof_node *n;
    if (!parent->key && parent != w->root) {
        n = parent;                     /* under <other>: <other> too */
        n->count[CPROF_SS]++;
        goto out;
    }
    for (n = parent->child; n && n->key != c; n = n->sibling)
        ;
    if (n) {
        parent->last = n;
        goto out;
    }
    if (w->nnodes >= cprof_paths_max) {
        if (!parent->other)
            parent->other = new_node(w, parent, 0);
        n = parent->other;
        n->count[CPROF_SS]++;
        goto out;
    }
    n = new_node(w, parent, c);
    n->sibling = parent->child;
    parent->child = n;
    n->same_key = c->nodes;
    c->nodes = n;
    /* Recursion folds: a routine already on the path takes the calls of this one. */
    for (struct cprof_node *a = parent; a->key; a = a->parent)
        if (a->key->callee == c->callee) {
            n->canon = a;
            break;
        }
    parent->last = n;
out:
    pthread_mutex_unlock(&w->lock);
    return n;
}
