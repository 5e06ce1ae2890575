/* Sequential calls only (S-S): several routines, several call sites of one arc (leaf noinline: timed, not counted). */
#include <stdio.h>

static int acc;

__attribute__((noinline)) void leaf(int x)
{
    acc += x;
}

int mid(int n)
{
    for (int i = 0; i < n; i++)
        leaf(i);
    leaf(-1);
    return acc;
}

void top(void)
{
    mid(3);
    mid(4);
    leaf(100);
}

int main(void)
{
    top();
    int m = mid(5);
    leaf(7); leaf(8);
    leaf(9);
    printf("acc=%d m=%d\n", acc, m);
    return 0;
}
