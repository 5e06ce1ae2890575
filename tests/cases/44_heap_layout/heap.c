/* The program's heap is gcc's: what malloc returns, and the allocator's books, do not
 * change when the program is profiled. */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct facts {
    size_t arena, in_use, free_bytes, free_chunks, mapped;
};

static struct facts books(void)
{
    struct mallinfo2 m = mallinfo2();
    return (struct facts){ m.arena, m.uordblks, m.fordblks, (size_t)m.ordblks, m.hblkhd };
}

static char *grab(size_t n)
{
    return malloc(n);
}

static long work(long i)
{
    return i * i;
}

int main(void)
{
    /* Everything is measured before the first printf (stdout's buffer is malloc'ed). */
    struct facts start = books();
    char *p[8];
    for (int i = 0; i < 8; i++)
        p[i] = grab(24 + 40 * (size_t)i);
    long gap[7];
    for (int i = 1; i < 8; i++)
        gap[i - 1] = p[i] - p[i - 1];
    size_t usable = malloc_usable_size(p[3]);
    /* The address as a number, taken before the free, kept where the compiler cannot
     * see it: comparing a freed pointer is undefined, and clang folds the comparison
     * with a fresh malloc's result to false where it inlines grab (as in its plain
     * build), not where it does not (an entry hook makes grab larger). */
    volatile uintptr_t freed = (uintptr_t)p[5];
    free(p[2]);
    free(p[5]);
    char *again = grab(24 + 40 * 5);
    int reused = (uintptr_t)again == freed;
    struct facts middle = books();
    /* The team's threads are created here, with nothing profiled in them yet.  (Each
     * thread's TLS vector is 16 bytes longer: the profiled program has one more module
     * with thread-local storage.  docs/semantics.md.) */
    int team = 0;
#pragma omp parallel
#pragma omp atomic
    team++;
    struct facts threads = books();
    /* Now each thread runs profiled code, the runtime's workers are made: no change. */
    long s = 0;
#pragma omp parallel for reduction(+:s)
    for (long i = 0; i < 1000; i++)
        s += work(i);
    char *big = grab(1 << 20);
    struct facts end = books();

    printf("start: arena %zu, in use %zu, free %zu in %zu chunks, mapped %zu\n", start.arena,
           start.in_use, start.free_bytes, start.free_chunks, start.mapped);
    printf("gaps:");
    for (int i = 0; i < 7; i++)
        printf(" %ld", gap[i]);
    printf("\nusable %zu, reused %d\n", usable, reused);
    printf("middle: arena %zu, in use %zu, free %zu in %zu chunks, mapped %zu\n", middle.arena,
           middle.in_use, middle.free_bytes, middle.free_chunks, middle.mapped);
    printf("then: arena %+ld, in use %+ld, free %+ld in %+ld chunks, mapped %+ld\n",
           (long)(end.arena - threads.arena), (long)(end.in_use - threads.in_use),
           (long)(end.free_bytes - threads.free_bytes),
           (long)(end.free_chunks - threads.free_chunks), (long)(end.mapped - threads.mapped));
    printf("team %d, sum %ld, big block %zu\n", team, s, malloc_usable_size(big));
    free(big);
    free(again);
    for (int i = 0; i < 8; i++)
        if (i != 2 && i != 5)
            free(p[i]);
    return 0;
}
