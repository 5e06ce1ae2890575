/* tasks.c: what one task costs.  N tasks made by one thread of a team of T (a single
 * construct), each calling a tiny non-inlined routine once (-DEMPTY: a task whose body
 * calls nothing), waited for at the single's barrier; or (-DTREE) a tree of N tasks,
 * each made by its parent task's body, whose body calls the routine that makes its
 * children (fib's shape: tasks made in tasks).  Prints the elapsed nanoseconds per
 * task.
 *
 *   tasks N T
 *
 * Built several ways by bench/tasks.sh, which counts its instructions. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if !defined TREE && !defined EMPTY
__attribute__((noinline)) static long tiny(long x)
{
    __asm__ volatile("" ::: "memory");
    return x ^ 1;
}
#endif

#ifdef TREE
/* A node of n: tasks for its two subtrees, n - 1 tasks in all below it. */
__attribute__((noinline)) static void node(long n)
{
    long a = (n - 1) / 2, b = n - 1 - a;
    if (a) {
#pragma omp task
        node(a);
    }
    if (b) {
#pragma omp task
        node(b);
    }
#pragma omp taskwait
}
#endif

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
#pragma omp parallel num_threads(threads)
#pragma omp single
#ifdef TREE
    node(n + 1);
#else
    for (long i = 0; i < n; i++) {
#pragma omp task firstprivate(i)
        {
#ifndef EMPTY
            i = tiny(i);
#endif
            __asm__ volatile("" ::"r"(i) : "memory");
        }
    }
#endif
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    printf("%.3f\n", ns / (double)n);
    return 0;
}
