/* Timed routines that gcc may inline in a plain build are marked inlinable: a static
 * function called from one site, and a static inline one; never one that something
 * else may enter, one the user keeps apart, a recursive one, or an external one. */
#include <stdio.h>

volatile double sink;

static double once(double x)            /* static, one call site: inlinable */
{
    double s = 0;
    for (int i = 0; i < 3; i++)
        s += x * i;
    return s;
}

static inline double hinted(double x)   /* declared inline, two sites: inlinable */
{
    for (int i = 0; i < 2; i++)
        x = x * 0.5;
    return x;
}

static double twice(double x)           /* static, two sites: not */
{
    for (int i = 0; i < 2; i++)
        x += 1;
    return x;
}

static double tiny(double x)            /* small: counted at its sites, not timed */
{
    return x + 1;
}

static double taken(double x)           /* one call site, but its address is taken */
{
    for (int i = 0; i < 2; i++)
        x -= 1;
    return x;
}

__attribute__((noinline)) static double apart(double x)     /* kept apart: not */
{
    for (int i = 0; i < 2; i++)
        x *= 2;
    return x;
}

static long down(long n)                /* recursive, one outside site: not */
{
    return n ? 1 + down(n - 1) : 0;
}

double ext(double x)                    /* external, one site: not */
{
    for (int i = 0; i < 2; i++)
        x /= 2;
    return x;
}

double (*volatile fp)(double) = taken;

int main(void)
{
    double s = 0;
    for (int i = 0; i < 1000; i++)
        s += once(i) + hinted(i) + tiny(i);
    s += twice(1) + twice(2) + hinted(3) + taken(4) + fp(5) + apart(6) + (double)down(7) + ext(8);
    sink = s;
    printf("%.1f\n", s);
    return 0;
}
