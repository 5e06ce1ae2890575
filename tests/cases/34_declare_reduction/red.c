/* OpenMP declare reduction: the combiner and the initializer run for the construct
 * whose reduction clause names them. */
#include <stdio.h>

struct acc {
    long v;
};

static int merges, zeros;

struct acc merge(struct acc a, struct acc b)
{
#pragma omp atomic
    merges++;
    a.v += b.v;
    return a;
}

struct acc zero(void)
{
#pragma omp atomic
    zeros++;
    struct acc z = { 0 };
    return z;
}

void clear(struct acc *p)
{
#pragma omp atomic
    zeros++;
    p->v = 0;
}

#pragma omp declare reduction(mg : struct acc : omp_out = merge(omp_out, omp_in)) initializer(omp_priv = zero())
#pragma omp declare reduction(mg : long : omp_out += omp_in) initializer(omp_priv = 0)

long work(int n)
{
    struct acc a = { 0 };
    long l = 0;
#pragma omp parallel for reduction(mg : a) reduction(mg : l)
    for (int i = 0; i < n; i++) {
        a.v += i;
        l += 2 * i;
    }
    return a.v + l;
}

long inner(int n)
{
    struct acc a = { 0 };
#pragma omp parallel
    {
#pragma omp for reduction(mg : a)
        for (int i = 0; i < n; i++)
            a.v += i;
    }
    return a.v;
}

long local(int n)
{
#pragma omp declare reduction(lm : struct acc : omp_out = merge(omp_out, omp_in)) initializer(clear(&omp_priv))
    struct acc a = { 0 };
#pragma omp parallel for reduction(lm : a) num_threads(1)
    for (int i = 0; i < n; i++)
        a.v += i;
    return a.v;
}

int main(void)
{
    long s = work(10) + inner(10) + local(10);
    printf("%ld merges=%d zeros=%d\n", s, merges, zeros);
    return 0;
}
