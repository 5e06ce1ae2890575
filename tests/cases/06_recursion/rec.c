/* Recursion, sequential and concurrent: counts, depth, time counted once per outermost
 * activation; and a sequential activation that recurses concurrently. */
#include <stdio.h>

long fact(int n)
{
    if (n <= 1)
        return 1;
    return n * fact(n - 1);
}

long sumrec(int n)
{
    if (n == 0)
        return 0;
    return n + sumrec(n - 1);
}

static long r[4];

void work(void)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < 4; i++)
        r[i] = sumrec(5 + i);
}

void rec2(int n)
{
    if (n == 0) {
        volatile long spins = 0;
        while (spins < 100000)
            spins++;
        return;
    }
#pragma omp parallel num_threads(2)
    rec2(n - 1);
}

int main(void)
{
    printf("fact(10)=%ld\n", fact(10));
    work();
    printf("sumrec: %ld %ld %ld %ld\n", r[0], r[1], r[2], r[3]);
    rec2(1);
    printf("done\n");
    return 0;
}
