/* Calls inside macro expansions and macro arguments. */
#include <stdio.h>
#include "mac.h"

int f(int x);
int g(int x);

#define TWICE(x) (f(x) + f(x))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define APPLY(fn, ...) fn(__VA_ARGS__)
#define TIMES3(stmt) do { for (int k_ = 0; k_ < 3; k_++) { stmt; } } while (0)

int f(int x)
{
    return x + 1;
}

int g(int x)
{
    return x * 3;
}

int h(void)
{
    return TWICE(2);
}

int main(void)
{
    int a = TWICE(1);
    int b = MAX(g(1), g(2));
    int c = TWICE(g(2));
    int d = CALL_G(CALL_G(1));
    int e = APPLY(g, 4) + APPLY(f, APPLY(g, 5));
    int s = SQUARE_F(3);
    int t = 0;
    TIMES3(t += h());
    printf("%d %d %d %d %d %d %d\n", a, b, c, d, e, s, t);
    return 0;
}
