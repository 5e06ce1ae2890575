/* bench/regions.c: R executions of a small parallel loop that calls no routine (the
 * kind of region issue 19 times per member), then the time per execution.  cprof's
 * region hooks run per execution and member, never per iteration: built with cprof-cc
 * and with gcc, the difference per execution is their cost. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double a[4096];

int main(int argc, char **argv)
{
    long r = argc > 1 ? atol(argv[1]) : 100000;
    double t0 = omp_get_wtime();
    for (long k = 0; k < r; k++) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < 4096; i++)
            a[i] = a[i] * 0.5 + i;
    }
    double t1 = omp_get_wtime();
    printf("%.1f ns per region execution (%g)\n", (t1 - t0) * 1e9 / (double)r, a[7]);
    return 0;
}
