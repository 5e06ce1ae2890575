/* 8 threads on a 2-core machine hammer tiny routines: millions of calls, none lost. */
#include <stdio.h>

/* noinline: timed, where tiny2, small and static, is counted at its call sites. */
__attribute__((noinline)) static int tiny(long x)
{
    return (int)(x & 1);
}

static int tiny2(long x)
{
    return (int)(x % 3 == 0);
}

long hammer(void)
{
    long total = 0;
#pragma omp parallel for schedule(static) reduction(+:total)
    for (long i = 0; i < 4000000; i++)
        total += tiny(i);
    return total;
}

long hammer2(void)
{
    long total = 0;
#pragma omp parallel for schedule(dynamic, 1000) reduction(+:total)
    for (long i = 0; i < 2000000; i++)
        total += tiny2(i);
    return total;
}

int main(void)
{
    long a = hammer();
    long b = hammer2();
    printf("%ld %ld\n", a, b);
    return 0;
}
