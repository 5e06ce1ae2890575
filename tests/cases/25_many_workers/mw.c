/* 130 threads: more workers than any small fixed table would hold. */
#include <stdio.h>
#include <omp.h>

static long hits;

void leaf(int i)
{
#pragma omp atomic
    hits += i;
}

int team(void)
{
    int n = 0;
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int i = 0; i < 1300; i++)
            leaf(i);
#pragma omp single
        n = omp_get_num_threads();
    }
    return n;
}

int main(void)
{
    int n = team();
    n += team();
    printf("threads=%d hits=%ld\n", n, hits);
    return 0;
}
