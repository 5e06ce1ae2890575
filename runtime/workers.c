/* workers.c: one shard of counters per worker (OS thread running instrumented code).
 *
 * Only the owner writes its shard, so the hot path takes no lock and shares no cache
 * line with another worker: shards and their arenas are separate, 64-byte aligned
 * allocations.  Records are carved from the arena and never move, so open frames can
 * point at them while the index tables grow.  Shards live until the process ends: the
 * profile is written after worker threads may have exited.
 */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "internal.h"

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cprof_worker *list;
static int nworkers;

/* Deep enough for any recursion a thread stack allows; reserved, not committed. */
#define STACK_FRAMES (1u << 20)
#define ARENA_CHUNK (64u << 10)

static void out_of_memory(void)
{
    fputs("cprof: out of memory\n", stderr);
    abort();
}

struct cprof_worker *cprof_workers(void)
{
    pthread_mutex_lock(&list_lock);
    struct cprof_worker *w = list;
    pthread_mutex_unlock(&list_lock);
    return w;
}

struct cprof_worker *cprof_worker_create(int listed)
{
    struct cprof_worker *w = aligned_alloc(64, (sizeof *w + 63) & ~(size_t)63);
    if (!w)
        out_of_memory();
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->lock, NULL);
    w->tid = gettid();
    w->initial = w->tid == getpid();
    w->omp_thread = omp_get_thread_num();
    w->pu = sched_getcpu();
    size_t bytes = STACK_FRAMES * sizeof(struct cprof_frame);
    void *stack = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (stack == MAP_FAILED)
        out_of_memory();
    w->stack = stack;
    w->stack_end = w->stack + STACK_FRAMES;
    /* The sentinel: above every stack position, so no entry takes it for a frame left
     * by longjmp, and a parent for the outermost frames. */
    w->stack->sp = (const void *)UINTPTR_MAX;
    w->top = w->stack + 1;

    if (!listed)
        return w;
    pthread_mutex_lock(&list_lock);
    w->id = nworkers++;
    w->next = list;
    list = w;
    pthread_mutex_unlock(&list_lock);
    cprof_self = w;
    return w;
}

/* Only for unlisted workers: arena chunks other than the current one are not tracked,
 * and scratch use never needs more than one. */
void cprof_worker_destroy(struct cprof_worker *w)
{
    munmap(w->stack, STACK_FRAMES * sizeof(struct cprof_frame));
    if (w->arena_end)
        free(w->arena_end - ARENA_CHUNK);
    free(w->routines);
    free(w->sites);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

/* Called with w->lock held. */
static void *arena_alloc(struct cprof_worker *w, size_t size)
{
    size = (size + 63) & ~(size_t)63;
    if ((size_t)(w->arena_end - w->arena) < size) {
        size_t chunk = size > ARENA_CHUNK ? size : ARENA_CHUNK;
        w->arena = aligned_alloc(64, chunk);
        if (!w->arena)
            out_of_memory();
        w->arena_end = w->arena + chunk;
    }
    void *p = w->arena;
    w->arena += size;
    memset(p, 0, size);
    return p;
}

/* Called with w->lock held: the index tables may move while the writer reads them. */
static void *grow_index(void *table, int *cap, int need)
{
    if (need < *cap)
        return table;
    int n = *cap ? *cap : 256;
    while (n <= need)
        n *= 2;
    void **p = realloc(table, (size_t)n * sizeof *p);
    if (!p)
        out_of_memory();
    memset(p + *cap, 0, (size_t)(n - *cap) * sizeof *p);
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

/* The first callee of a site sits in the index; further ones (a function pointer
 * reaching several routines) are chained behind it. */
struct cprof_call_rec *cprof_call_rec_slow(struct cprof_worker *w, int site, int callee)
{
    pthread_mutex_lock(&w->lock);
    w->sites = grow_index(w->sites, &w->sites_cap, site);
    struct cprof_call_rec **link = &w->sites[site];
    while (*link && (*link)->callee != callee)
        link = &(*link)->next;
    struct cprof_call_rec *c = *link;
    if (!c) {
        c = arena_alloc(w, sizeof *c);
        c->callee = callee;
        *link = c;
    }
    pthread_mutex_unlock(&w->lock);
    return c;
}
