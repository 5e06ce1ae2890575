/* Untied tasks, depend clauses, many tiny tasks generated in a loop from single. */
#include <stdio.h>

static long sum;
static int a[8];

void tiny(int i)
{
#pragma omp atomic
    sum += i & 3;
}

long ufib(int n)
{
    long x, y;
    if (n < 2)
        return n;
#pragma omp task untied shared(x) firstprivate(n)
    x = ufib(n - 1);
#pragma omp task untied shared(y) firstprivate(n)
    y = ufib(n - 2);
#pragma omp taskwait
    return x + y;
}

void produce(int k)
{
    a[k] = k * 10;
}

int consume(int k)
{
    return a[k] + 1;
}

void many(void)
{
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 200000; i++) {
#pragma omp task firstprivate(i)
        tiny(i);
    }
}

int pipeline(void)
{
    int r[8];
#pragma omp parallel
#pragma omp single
    for (int k = 0; k < 8; k++) {
#pragma omp task depend(out: a[k:1]) firstprivate(k)
        produce(k);
#pragma omp task depend(in: a[k:1]) firstprivate(k) shared(r)
        r[k] = consume(k);
    }
    int s = 0;
    for (int k = 0; k < 8; k++)
        s += r[k];
    return s;
}

int main(void)
{
    long f = 0;
    many();
#pragma omp parallel
#pragma omp single
    f = ufib(15);
    printf("sum=%ld fib=%ld pipe=%d\n", sum, f, pipeline());
    return 0;
}
