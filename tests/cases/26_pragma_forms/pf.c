/* Pragma forms: _Pragma in a macro, calls in atomic updates and simd loops, a
 * user-defined reduction whose combiner and initializer call routines. */
#include <stdio.h>

#define PAR_FOR _Pragma("omp parallel for schedule(static)")

struct acc {
    long sum;
    int n;
};

static long total;
static int ncomb, ninit;

int val(int i)
{
    return i % 7;
}

struct acc combine(struct acc a, struct acc b)
{
#pragma omp atomic
    ncomb++;
    a.sum += b.sum;
    a.n += b.n;
    return a;
}

struct acc zero_acc(void)
{
    struct acc z = { 0, 0 };
#pragma omp atomic
    ninit++;
    return z;
}

#pragma omp declare reduction(merge : struct acc : omp_out = combine(omp_out, omp_in)) \
    initializer(omp_priv = zero_acc())

void by_macro(void)
{
    PAR_FOR
    for (int i = 0; i < 20; i++) {
#pragma omp atomic
        total += val(i);
    }
}

long by_simd(void)
{
    long s = 0;
#pragma omp simd reduction(+:s)
    for (int i = 0; i < 8; i++)
        s += val(i);
    return s;
}

struct acc by_udr(void)
{
    struct acc r = { 0, 0 };
#pragma omp parallel for schedule(static) reduction(merge : r) num_threads(2)
    for (int i = 0; i < 10; i++) {
        r.sum += i;
        r.n++;
    }
    return r;
}

int main(void)
{
    by_macro();
    long s = by_simd();
    struct acc r = by_udr();
    printf("total=%ld simd=%ld udr=%ld/%d comb=%d init=%d\n", total, s, r.sum, r.n, ncomb, ninit);
    return 0;
}
