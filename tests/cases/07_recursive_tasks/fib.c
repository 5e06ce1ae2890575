/* Recursion through tasks: fib(20) makes 21891 calls, every one counted. */
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
    long r = 0;
#pragma omp parallel
    {
#pragma omp single
        r = fib(20);
    }
    printf("fib(20)=%ld\n", r);
    printf("fib(5)=%ld\n", fib(5));
    return 0;
}
