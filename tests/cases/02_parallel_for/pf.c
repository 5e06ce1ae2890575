/* A parallel loop in a sequentially entered routine calls a leaf (S-C; noinline: timed). */
#include <stdio.h>

static int sink[100];

__attribute__((noinline)) void leaf(int i)
{
    sink[i] = 2 * i + 1;
}

void work(void)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < 100; i++)
        leaf(i);
}

int main(void)
{
    work();
    long s = 0;
    for (int i = 0; i < 100; i++)
        s += sink[i];
    printf("sum=%ld\n", s);
    return 0;
}
