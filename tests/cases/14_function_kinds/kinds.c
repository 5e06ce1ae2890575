/* Every kind of function definition. */
#include <stdio.h>
#include <stdarg.h>
#include <string.h>

struct big {
    int a[8];
    double d;
};

static int counter;

void v(void)
{
    counter++;
    printf("%s\n", __func__);
}

struct big mk(int x)
{
    struct big b;
    for (int i = 0; i < 8; i++)
        b.a[i] = x + i;
    b.d = x / 2.0;
    printf("%s\n", __func__);
    return b;
}

int vla(int n, int m[n][n])
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += m[i][i];
    printf("%s %d\n", __func__, n);
    return s;
}

int kr(a, b)
    int a;
    int b;
{
    printf("%s\n", __func__);
    return a - b;
}

static inline int sq(int x)
{
    return x * x;
}

int vsum(int n, ...)
{
    va_list ap;
    int s = 0;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        s += va_arg(ap, int);
    va_end(ap);
    printf("%s %d\n", __func__, n);
    return s;
}

static int neg(int x)
{
    return -x;
}

typedef int (*op_t)(int);

op_t pick(int k)
{
    return k ? neg : sq;
}

int (*pick2(int k))(int)
{
    return k ? sq : neg;
}

static int rows[3][4] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, 12 } };

int (*rowp(int i))[4]
{
    return &rows[i];
}

static const char *name_of(void)
{
    return __func__;
}

int main(int argc, char **argv)
{
    (void)argv;
    v();
    v();
    struct big b = mk(3);
    int m[3][3] = { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } };
    int m2[2][2] = { { 1, 2 }, { 3, 4 } };
    int s = vla(3, m);
    s += vla(2, m2);
    s += kr(10, 4);
    s += sq(5) + sq(argc);
    s += vsum(3, 1, 2, 3);
    s += vsum(0);
    s += vsum(5, 1, 1, 1, 1, 1);
    s += pick(1)(5);
    s += pick(0)(6);
    s += pick2(1)(7);
    s += (*rowp(2))[3] + rowp(0)[0][1];
    const char *nm = name_of();
    printf("%s %s %d %d %g %d %d\n", __func__, nm, counter, b.a[7], b.d, s,
           (int)strlen(name_of()));
    return 0;
}
