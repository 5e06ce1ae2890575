/* Routines that busy-wait known durations. */
#include <stdio.h>
#include <time.h>

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void spin_ns(long ns)
{
    long end = now_ns() + ns;
    while (now_ns() < end)
        ;
}

void spin20(void)
{
    spin_ns(20000000);
}

void spin60(void)
{
    spin_ns(60000000);
}

int main(void)
{
    spin20();
    spin60();
    spin20();
#pragma omp parallel num_threads(2)
    spin20();
    printf("done\n");
    return 0;
}
