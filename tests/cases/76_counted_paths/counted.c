/* A small routine counted at its call sites (no entry hook) keeps its counts per
 * calling context: the same tiny() called from a(), b() and main's parallel loop. */
#include <stdio.h>

static int tiny(int x)
{
    return x + 1;
}

int a(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += tiny(i);
    return s;
}

int b(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += tiny(i) * 2;
    return s;
}

int main(void)
{
    int s = a(10) + b(3);
#pragma omp parallel for reduction(+:s) schedule(static)
    for (int i = 0; i < 8; i++)
        s += tiny(i) + a(2);
    printf("%d\n", s);
    return 0;
}
