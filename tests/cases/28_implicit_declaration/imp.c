/* Calls to functions with no declaration in scope (implicit declarations: gcc 12
 * accepts them, with a warning silenced here by cflags, as old code needs). */
#include <stdio.h>

int main(void)
{
    int s = later(4);
    s += later(5) + twice(later(1));
    printf("%d\n", s);
    return 0;
}

int later(int x)
{
    return x + 100;
}

int twice(int x)
{
    return 2 * x;
}
