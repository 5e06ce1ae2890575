/* CPROF_START=off: the program starts stopped.  Nothing before the first cprof_start()
 * is counted, main's entry neither; tiny, counted at its sites, has no count slot set
 * before it (a first call while stopped sets none). */
#include <stdio.h>
#include <cprof.h>

static long total;

void step(long v)
{
    __atomic_fetch_add(&total, v, __ATOMIC_RELAXED);
}

static long tiny(long x) { return 2 * x; }

int main(void)
{
    for (int i = 0; i < 10; i++)
        step(tiny(i));
    cprof_start();
    for (int i = 0; i < 3; i++)
        step(tiny(i));
#pragma omp parallel num_threads(2)
    step(tiny(5));
    cprof_stop();
    step(tiny(1));
    printf("%ld\n", total);
    return 0;
}
