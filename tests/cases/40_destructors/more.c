#include <stdio.h>

int leaf(int x);

int twice(int x)
{
    return leaf(x) + leaf(x);
}

__attribute__((destructor)) static void more_fini(void)
{
    printf("more_fini: %d\n", twice(5));
}
