/* default(none) regions and tasks calling routines. */
#include <stdio.h>

static int out[20];

int leaf(int x)
{
    return x * x;
}

int leaf2(int x)
{
    return x + 100;
}

void work(int n, int *o)
{
#pragma omp parallel for default(none) shared(o) firstprivate(n) schedule(static)
    for (int i = 0; i < n; i++)
        o[i] = leaf(i);
#pragma omp parallel default(none) shared(o)
    {
#pragma omp single
        {
            for (int k = 0; k < 4; k++) {
#pragma omp task default(none) firstprivate(k) shared(o)
                o[k] += leaf2(k);
            }
        }
    }
}

int seq(int *o)
{
    int r = 0;
#pragma omp task default(none) shared(r, o)
    r = leaf2(o[1]);
#pragma omp taskwait
    return r;
}

int main(void)
{
    work(20, out);
    int r = seq(out);
    long s = 0;
    for (int i = 0; i < 20; i++)
        s += out[i];
    printf("s=%ld r=%d\n", s, r);
    return 0;
}
