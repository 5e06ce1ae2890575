/* Constructors, atexit handlers and destructors calling profiled code: everything the
 * program runs before it ends is in the profile.  more.c has a destructor too. */
#include <stdio.h>
#include <stdlib.h>

int twice(int x);
static int acc;

int leaf(int x)
{
    return x + 1;
}

__attribute__((constructor)) static void init(void)
{
    acc = leaf(1);
}

static void bye(void)
{
    acc += leaf(2);
}

__attribute__((destructor)) static void fini(void)
{
    acc += twice(3) + leaf(4);
    printf("fini: %d\n", acc);
}

/* After the destructors without a priority; its team calls leaf concurrently. */
__attribute__((destructor(200))) static void fini_late(void)
{
    int s = 0;
#pragma omp parallel for reduction(+:s)
    for (int i = 0; i < 4; i++)
        s += leaf(i);
    printf("fini_late: %d\n", s);
}

int main(void)
{
    atexit(bye);
    acc += leaf(0);
    printf("main: %d\n", acc);
    return 0;
}
