/* compensate.c: a program with known costs, for bench/compensate.sh.  outer() calls
 * tiny() N times in a loop and times that loop itself (CLOCK_MONOTONIC); it prints the
 * loop's elapsed nanoseconds.  tiny() runs WORK dependent multiply-adds, so the work per
 * call can be set from none (the facade is then most of the call) to more than the
 * facade costs.  The plain build's figure is what `cprof-report --compensate` should
 * give as outer's inclusive time in the profiled build.
 *
 *   compensate N WORK
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int work;
static long sink;

__attribute__((noinline)) static long tiny(long x)
{
    for (int k = 0; k < work; k++)
        x = x * 6364136223846793005L + 1442695040888963407L;
    __asm__ volatile("" : "+r"(x));
    return x;
}

__attribute__((noinline)) static double outer(long n)
{
    struct timespec a, b;
    long sum = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++)
        sum += tiny(i);
    clock_gettime(CLOCK_MONOTONIC, &b);
    sink = sum;
    return (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    work = argc > 2 ? atoi(argv[2]) : 0;
    double ns = outer(n);
    printf("%.0f %ld\n", ns, sink & 1);
    return 0;
}
