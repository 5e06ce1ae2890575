/* quick_exit(3): the code before it and the at_quick_exit handlers are in the profile;
 * destructors and atexit handlers do not run. */
#include <stdio.h>
#include <stdlib.h>

static int total;

int g(int x)
{
    return 2 * x;
}

static void handler(void)
{
    total += g(1) + g(2);
    printf("handler: %d\n", total);
    fflush(stdout);     /* quick_exit does not flush stdio */
}

static void never(void)
{
    puts("never");
    g(100);
}

__attribute__((destructor)) static void fini(void)
{
    never();
}

void f(void)
{
    total += g(3);
}

int main(void)
{
    atexit(never);
    at_quick_exit(handler);
    f();
    printf("main: %d\n", total);
    fflush(stdout);
    quick_exit(3);
}
