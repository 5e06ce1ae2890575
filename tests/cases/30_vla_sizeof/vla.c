/* Variable-length array types: their sizes are evaluated where C says so. */
#include <stdio.h>

static int calls;

int f(int x)
{
    calls++;
    return x;
}

int g(size_t x)
{
    return (int)x + 1;
}

int main(int argc, char **argv)
{
    (void)argv;
    int n = argc + 1;
    size_t s = sizeof(char[f(3)]);
    s += sizeof(int[n][f(1)]);
    typedef char T[f(4)];
    s += sizeof(T);
    int a[f(2)];
    s += sizeof a;
    char buf[8];
    void *v = (char (*)[f(5)])buf;
    int m[3][n];
    int (*p)[n] = m;
    s += sizeof(p[f(0)]);
    s += g(sizeof(char[f(7)]));
    s += sizeof(f(9)) + sizeof(int (*)[f(9)]) + _Alignof(char[f(9)]);
    s += sizeof(char[n][sizeof f(9)]);
    printf("%zu %d %d\n", s, calls, v == buf);
    return 0;
}
