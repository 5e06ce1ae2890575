/* Calls of counted routines whose case is cached: from the caller's entry (d = 0), per
 * thread of a parallel construct (d >= 1, a region run with one thread and then two),
 * through tasks and simd loops (no cache: the runtime classifies). */
#include <omp.h>
#include <stdio.h>

struct cplx {
    double r, i;
};

static long total;
static double sink[8];

static int tiny(int x)
{
    return x + 1;
}

/* counted, and calls a counted routine: its case0 comes from its call site */
static int twice(int x)
{
    return tiny(x) + tiny(x + 1);
}

/* 70 tokens, 38 once each member access counts as one: small */
static struct cplx c_div(struct cplx a, struct cplx b)
{
    double d = b.r * b.r + b.i * b.i;
    return (struct cplx){ (a.r * b.r + a.i * b.i) / d, (a.i * b.r - a.r * b.i) / d };
}

/* timed (a loop); entered sequentially once and concurrently twice */
static void both(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += twice(i);
    __atomic_add_fetch(&total, s, __ATOMIC_RELAXED);
}

/* entered concurrently: C-S outside its region, C-C in its active nested one */
static void inner_region(void)
{
    total += 0 * tiny(2);
#pragma omp parallel num_threads(2)
    __atomic_add_fetch(&total, tiny(3), __ATOMIC_RELAXED);
}

/* S-S with one thread, S-C with two: each region starts its cache afresh */
static void teams_of(int t)
{
#pragma omp parallel for num_threads(t) schedule(static)
    for (int i = 0; i < 8; i++)
        __atomic_add_fetch(&total, tiny(i), __ATOMIC_RELAXED);
}

/* d = 1 and d = 2, both S-C */
static void nested(void)
{
#pragma omp parallel num_threads(2)
    {
        __atomic_add_fetch(&total, tiny(0), __ATOMIC_RELAXED);
#pragma omp parallel num_threads(2)
        __atomic_add_fetch(&total, tiny(1), __ATOMIC_RELAXED);
    }
}

/* a task and a simd loop see no cache: S-C from the runtime */
static void fallbacks(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    for (int i = 0; i < 4; i++) {
#pragma omp task firstprivate(i)
        __atomic_add_fetch(&total, tiny(i), __ATOMIC_RELAXED);
    }
#pragma omp parallel for simd num_threads(2)
    for (int i = 0; i < 8; i++)
        sink[i] = tiny(i);
}

int main(void)
{
    both(3);
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
        both(3);
        inner_region();
    }
    teams_of(1);
    teams_of(2);
    teams_of(1);
    nested();
    fallbacks();
    struct cplx q = c_div((struct cplx){ 1, 2 }, (struct cplx){ 3, 4 });
    printf("%ld %g %g %g\n", total, sink[7], q.r, q.i);
    return 0;
}
