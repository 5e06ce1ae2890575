/* OpenMP target regions, run on the host (no offload device). */
#include <stdio.h>

int f(int x)
{
    return x * 2;
}

#pragma omp declare target
int g(int x)
{
    return x + 1;
}
#pragma omp end declare target

/* Reached from a target region: gcc makes it a device function too. */
int k(int x)
{
    return g(x) * 2;
}

int main(void)
{
    int s = 0;
#pragma omp target map(tofrom: s)
    s += g(1) + k(2);
#pragma omp target teams distribute parallel for reduction(+:s) map(tofrom: s)
    for (int i = 0; i < 4; i++)
        s += g(i);
    s += f(s);
    printf("%d\n", s);
    return 0;
}
