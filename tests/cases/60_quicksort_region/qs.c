/* A recursive quicksort entered sequentially that opens its own parallel region and
 * recurses in tasks (issue 18): worker 1's activations are outermost on their thread,
 * though not by the paper's rule (the initial thread has qs open sequentially). */
#include <stdio.h>

#define N 32767   /* 2^15 - 1: middle pivots split a sorted range evenly */

static int a[N];

/* Lomuto's partition around the middle element: a sorted range stays sorted and the
 * pivot stays in the middle. */
int partition(int *v, int lo, int hi)
{
    int mid = lo + (hi - lo) / 2, t = v[mid];
    v[mid] = v[hi];
    v[hi] = t;
    int i = lo;
    for (int j = lo; j < hi; j++)
        if (v[j] < t) {
            int x = v[i];
            v[i++] = v[j];
            v[j] = x;
        }
    v[hi] = v[i];
    v[i] = t;
    return i;
}

void qs(int *v, int lo, int hi, int top)
{
    if (lo >= hi)
        return;
    if (top) {
#pragma omp parallel
#pragma omp single
        qs(v, lo, hi, 0);
        return;
    }
    int p = partition(v, lo, hi);
#pragma omp task if (hi - lo > 1000)
    qs(v, lo, p - 1, 0);
#pragma omp task if (hi - lo > 1000)
    qs(v, p + 1, hi, 0);
#pragma omp taskwait
}

int main(void)
{
    for (int i = 0; i < N; i++)
        a[i] = 3 * i;
    qs(a, 0, N - 1, 1);
    long sum = 0;
    int sorted = 1;
    for (int i = 0; i < N; i++) {
        sum += a[i];
        sorted &= i == 0 || a[i - 1] <= a[i];
    }
    printf("sorted %d sum %ld\n", sorted, sum);
    return 0;
}
