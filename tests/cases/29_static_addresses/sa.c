/* Static functions called through pointers, their addresses taken in every way the
 * rewriter must notice (its table then records the address), next to static functions
 * only ever called directly (their calls name the routine's descriptor instead). */
#include <stdio.h>

typedef int (*unop)(int);

static int inc(int x) { return x + 1; }
static int twice(int x) { return 2 * x; }
static int neg(int x) { return -x; }
static int sq(int x) { return x * x; }
static int half(int x) { return x / 2; }
static int third(int x) { return x / 3; }
static int cube(int x) { return x * x * x; }
static int minus(int x) { return x - 1; }
static int base(int x) { return x + 100; }
static int other(int x) __attribute__((alias("base")));
static int solo(int x) { return x + 7; }

static unop table[2] = { inc, twice };          /* file-scope initializer */

static int apply(unop f, int x)
{
    return f(x);
}

__attribute__((no_instrument_function)) static unop pick(void)
{
    return minus;                               /* in a function cprof does not rewrite */
}

int main(int argc, char **argv)
{
    (void)argv;
    int s = 0;
    for (int i = 0; i < 4; i++)
        s += table[i % 2](i);
    unop g = neg;                               /* assignment */
    s += g(3);
    s += apply(sq, 4);                          /* argument */
    s += (argc > 5 ? half : third)(9);          /* conditional designator */
    unop h = &cube;                             /* & */
    s += h(2);
    s += pick()(5);
    s += other(1);                              /* an alias: base's address */
    s += solo(1);
    printf("solo: s=%d\n", s);                  /* a name in a message takes no address */
    return 0;
}
