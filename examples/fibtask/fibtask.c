/* fibtask: Fibonacci numbers by a recursive task tree, a task per call.
 *
 * Computes: fib(n) for n = FIB_LOW..FIB_HIGH by the doubly recursive definition, every
 * call of fib its own OpenMP task (no cutoff: the smallest tasks do one compare), and
 * the number of calls each took.
 *
 * Shape: per n, a `parallel` region whose `single` thread calls fib; fib makes a task for
 * each of its two recursive calls and waits for them (taskwait).  1.3 million tasks,
 * each running one call of a routine of a few instructions: all but the first calls are
 * made inside tasks of fib (C-S).  What a profiler adds per task and per call is the
 * whole difference between the profiled and the plain run.
 *
 * Checks: each fib(n) equals the iterative value, and the calls counted (an atomic add
 * per call) equal 2 fib(n + 1) - 1.  Both are integers fixed by n alone, so every
 * printed number is independent of the thread count and of which thread ran which task.
 * Exit status 0 if the checks pass, 1 otherwise.
 *
 * FIB_HIGH can be set at compile time (-DFIB_HIGH=...) for a smaller run.
 */
#include <stdio.h>

#ifndef FIB_HIGH
#define FIB_HIGH 27
#endif
#define FIB_LOW (FIB_HIGH - 2)

static long calls;

long fib(int n)
{
    long a, b;
    #pragma omp atomic
    calls++;
    if (n < 2)
        return n;
    #pragma omp task shared(a)
    a = fib(n - 1);
    #pragma omp task shared(b)
    b = fib(n - 2);
    #pragma omp taskwait
    return a + b;
}

static long fib_iterative(int n)
{
    long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
        long t = a + b;
        a = b;
        b = t;
    }
    return a;
}

int main(void)
{
    int failed = 0;
    for (int n = FIB_LOW; n <= FIB_HIGH; n++) {
        long r = 0;
        calls = 0;
        #pragma omp parallel
        #pragma omp single
        r = fib(n);
        long want_calls = 2 * fib_iterative(n + 1) - 1;
        printf("fib(%d) = %ld, %ld calls\n", n, r, calls);
        if (r != fib_iterative(n)) {
            printf("FAILED: fib(%d) is %ld\n", n, fib_iterative(n));
            failed = 1;
        }
        if (calls != want_calls) {
            printf("FAILED: fib(%d) should take %ld calls\n", n, want_calls);
            failed = 1;
        }
    }
    if (failed)
        return 1;
    printf("ok\n");
    return 0;
}
