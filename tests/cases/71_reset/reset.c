/* cprof_reset(): what came before is forgotten; main and outer, open at the reset,
 * are entered once each from then on, and timed from then on. */
#include <stdio.h>
#include <time.h>
#include <cprof.h>

static struct timespec at_reset;

static long sink;

void work(int n)
{
    for (int i = 0; i < n; i++)
        __atomic_fetch_add(&sink, i, __ATOMIC_RELAXED);
}

void phase(int reps)
{
    for (int i = 0; i < reps; i++)
        work(1000);
}

void outer(void)
{
    phase(30);
#pragma omp parallel num_threads(2)
    phase(3);
    clock_gettime(CLOCK_MONOTONIC, &at_reset);
    cprof_reset();
    phase(2);
}

int main(void)
{
    phase(10);
    outer();
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    /* From just before the reset to just after outer returned: outer's time since. */
    FILE *m = fopen("measured.json", "w");
    if (m) {
        fprintf(m, "{\"after_reset_ns\": %lld}\n",
                (now.tv_sec - at_reset.tv_sec) * 1000000000LL + now.tv_nsec - at_reset.tv_nsec);
        fclose(m);
    }
    phase(1);
    printf("%ld\n", sink);
    return 0;
}
