/* sizes.c: the seed's examples 1-4 (docs/input-size.md) in a loop, for bench/sizes.sh:
 * the slowdown of a program built with cprof-cc -fcprof-input-size. */
#include <stdio.h>
#include <stdlib.h>

volatile int x, y, z, w;
void g(void) { (void)x; (void)y; (void)z; w = 1; }
void f(void) { (void)x; y = 1; g(); (void)w; }
int get(int v[], int i) { return v[i]; }
int mid(int v[], int n) { int m = get(v, n / 2); return m; }
int count_zero(int v[], int n)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        count += (v[i] == 0 ? 1 : 0);
    return count;
}
int count_zero_rec(int v[], int n)
{
    if (n < 1)
        return 0;
    return (v[n - 1] == 0 ? 1 : 0) + count_zero_rec(v, n - 1);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20000, n = 4096;
    int *v = malloc(n * sizeof *v);
    long total = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++)
            v[i] = (i * 7 + r) % 5;
        f();
        total += mid(v, n) + count_zero(v, n) + count_zero(v, n / 2) + count_zero_rec(v, 512);
    }
    printf("%ld\n", total);
    free(v);
    return 0;
}
