/* exit() while activations are open: main -> a -> b -> exit(3). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void spin_ms(int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ms * 1000000L);
}

void b(int code)
{
    printf("b: leaving with %d\n", code);
    spin_ms(10);
    exit(code);
}

void a(void)
{
    b(3);
    printf("not reached\n");
}

int main(void)
{
    spin_ms(5);
    a();
    return 0;
}
