/* memory.c: the runtime's memory, from pages it maps itself.
 *
 * A program compiled by cprof-cc must have the heap gcc's build has: the same malloc
 * results, the same mallinfo2, the same damage from a heap overflow.  So the runtime
 * never takes memory from the program's allocator (docs/semantics.md lists the library
 * calls that still do, while the profile is written).  Small blocks are carved from
 * 4 MiB mappings and kept, once freed, on a free list per power-of-two size; large ones
 * are mappings of their own.  Every block is zeroed and 64-byte aligned: a shard's
 * records never share a cache line with another shard's.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "core.h"

#define MIN_BLOCK 64u
#define NCLASSES 13                     /* 64 B .. 256 KiB */
#define CHUNK (4u << 20)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *next, *end;                /* what is left of the newest chunk */
static void *free_list[NCLASSES];       /* a freed block's first word links the next */

void cprof_out_of_memory(void)
{
    fputs("cprof: out of memory\n", stderr);
    abort();
}

static void *map(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        cprof_out_of_memory();
    return p;
}

static size_t page_round(size_t size)
{
    size_t page = 4096;
    return (size + page - 1) & ~(page - 1);
}

/* The class whose blocks hold size bytes, or NCLASSES for a mapping of its own. */
static int class_of(size_t size)
{
    int c = 0;
    while (c < NCLASSES && (size_t)MIN_BLOCK << c < size)
        c++;
    return c;
}

void *cprof_alloc(size_t size)
{
    int c = class_of(size);
    if (c == NCLASSES)
        return map(page_round(size));   /* zero, page-aligned */
    size_t block = (size_t)MIN_BLOCK << c;
    pthread_mutex_lock(&lock);
    void *p = free_list[c];
    if (p) {
        free_list[c] = *(void **)p;
        pthread_mutex_unlock(&lock);
        return memset(p, 0, block);
    }
    if ((size_t)(end - next) < block) {
        next = map(CHUNK);              /* the old chunk's rest is left unused */
        end = next + CHUNK;
    }
    p = next;
    next += block;
    pthread_mutex_unlock(&lock);
    return p;                           /* never used: still zero */
}

void cprof_free(void *p, size_t size)
{
    if (!p)
        return;
    int c = class_of(size);
    if (c == NCLASSES) {
        munmap(p, page_round(size));
        return;
    }
    pthread_mutex_lock(&lock);
    *(void **)p = free_list[c];
    free_list[c] = p;
    pthread_mutex_unlock(&lock);
}

void *cprof_realloc(void *p, size_t old, size_t size)
{
    void *q = cprof_alloc(size);
    if (p)
        memcpy(q, p, old < size ? old : size);
    cprof_free(p, old);
    return q;
}
