/* cprof_stop() / cprof_start(): calls made while stopped are not counted, timed
 * routines (work, phase) and counted ones (tiny, counted inline at its sites, whose
 * per-thread count slots were set before the stop) alike.  Built by gcc, <cprof.h>
 * makes the calls no-ops. */
#include <stdio.h>
#include <cprof.h>

static long sink;

static void add(long x) { __atomic_fetch_add(&sink, x, __ATOMIC_RELAXED); }

void work(int n)
{
    for (int i = 0; i < n; i++)
        add(i);
}

static int tiny(int x) { return x + 1; }

void phase(int reps)
{
    for (int i = 0; i < reps; i++) {
        work(10);
        add(tiny(i));
    }
}

int main(void)
{
    phase(3);
#pragma omp parallel num_threads(2)
    phase(1);                   /* every thread's slot for tiny's site is set */
    cprof_stop();
    cprof_stop();               /* a second stop changes nothing */
    phase(5);
#pragma omp parallel num_threads(2)
    phase(2);
    cprof_start();
    phase(4);
#pragma omp parallel num_threads(2)
    phase(1);
    printf("%ld\n", sink);
    return 0;
}
