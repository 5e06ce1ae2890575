/* calls.c: what one call costs.  N calls of a tiny non-inlined function, timed by the
 * program itself (start-up and exit are not part of it), sequentially or in a parallel
 * loop on T threads.  Prints the elapsed nanoseconds per call per thread.
 *
 *   calls N            sequential
 *   calls N T          parallel for, T threads (schedule static)
 *
 * Built several ways by bench/calls.sh; -DFLOOR adds what any timing facade must do at
 * least: two time-stamp counter reads and a thread-local add per call; -DINLINE lets
 * gcc inline the routine (cprof-cc then counts it at its call sites); -DALTERNATE
 * calls two such routines in turn, tiny and tiny2, N calls in all. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef FLOOR
#include <x86intrin.h>
static __thread unsigned long long floor_ticks;
#define CALL(x) __extension__({ unsigned long long t0_ = __rdtsc(); long r_ = tiny(x); \
                                floor_ticks += __rdtsc() - t0_; r_; })
#else
#define CALL(x) tiny(x)
#endif

/* noinline: the call stays a call, so a profiled build times it (-DINLINE: gcc may
 * inline it, and cprof-cc counts it at its call sites). */
#ifndef INLINE
__attribute__((noinline))
#endif
static long tiny(long x)
{
    __asm__ volatile("" ::: "memory");
    return x ^ 1;
}

#ifdef ALTERNATE
__attribute__((noinline)) static long tiny2(long x)
{
    __asm__ volatile("" ::: "memory");
    return x ^ 2;
}
#undef CALL
#define CALL(x) ((x) & 1 ? tiny2(x) : tiny(x))
#endif

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    long sum = 0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    if (threads) {
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+:sum)
        for (long i = 0; i < n; i++)
            sum += CALL(i);
    } else {
        for (long i = 0; i < n; i++)
            sum += CALL(i);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    /* Per call on one thread: the T threads share the N calls. */
    printf("%.3f %ld\n", ns * (threads ? threads : 1) / (double)n, sum & 1);
    return 0;
}
