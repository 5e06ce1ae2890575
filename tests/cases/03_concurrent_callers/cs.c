/* Routines called from a parallel loop call further routines (C-S; leaf noinline: timed). */
#include <stdio.h>

static int out[100];

__attribute__((noinline)) int leaf(int x)
{
    return x + 1;
}

int mid(int i)
{
    int s = leaf(i);
    if (i < 30)
        s += leaf(-i);
    return s;
}

int work(void)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < 100; i++)
        out[i] = mid(i);
    return mid(1000);
}

int main(void)
{
    int last = work();
    long s = 0;
    for (int i = 0; i < 100; i++)
        s += out[i];
    printf("sum=%ld last=%d\n", s, last);
    return 0;
}
