/* Calls through function pointers; callbacks from libc (qsort, bsearch). */
#include <stdio.h>
#include <stdlib.h>

typedef int (*unop)(int);

int add1(int x)
{
    return x + 1;
}

int dbl(int x)
{
    return 2 * x;
}

int cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int apply(unop f, int x)
{
    return f(x);
}

int apply2(unop f, int x)
{
    return (*f)(x) + (f)(x);
}

static unop table[2] = { add1, dbl };

int main(void)
{
    int s = 0;
    for (int i = 0; i < 6; i++)
        s += table[i % 2](i);
    s += apply(add1, 10) + apply(dbl, 20) + apply(dbl, 1);
    s += apply2(add1, 3);
    unop g = abs;
    s += g(-5);
    s += add1(0);

    int pairs[3][2] = { { 5, 1 }, { 2, 9 }, { 7, 3 } };
    for (int i = 0; i < 3; i++)
        qsort(pairs[i], 2, sizeof(int), cmp);
    void (*sorter)(void *, size_t, size_t, int (*)(const void *, const void *)) = qsort;
    int two[2] = { 4, 0 };
    sorter(two, 2, sizeof(int), cmp);
    int key = 7, one[1] = { 7 };
    int *found = bsearch(&key, one, 1, sizeof(int), cmp);
    s += cmp(&key, &one[0]);
    printf("s=%d sorted=%d,%d %d,%d %d,%d %d,%d found=%d\n", s, pairs[0][0], pairs[0][1],
           pairs[1][0], pairs[1][1], pairs[2][0], pairs[2][1], two[0], two[1], found != NULL);
    return 0;
}
