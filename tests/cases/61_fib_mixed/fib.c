/* A recursive fib entered both sequentially and from a parallel region, recursing in
 * tasks (issue 18). */
#include <stdio.h>

long fib(int n)
{
    long x, y;
    if (n < 2)
        return n;
#pragma omp task shared(x) firstprivate(n)
    x = fib(n - 1);
#pragma omp task shared(y) firstprivate(n)
    y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

int main(void)
{
    long s = fib(15), c = 0;
#pragma omp parallel
    {
#pragma omp single
        c = fib(15);
    }
    printf("fib(15)=%ld %ld\n", s, c);
    return 0;
}
