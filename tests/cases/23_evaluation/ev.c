/* Calls counted as C evaluates them: unevaluated operands, short circuits, conditional
 * operator, loop conditions, comma operator, nested calls in arguments. */
#include <stdio.h>

static int calls;

int f(int x)
{
    calls++;
    return x + 1;
}

int g(int x)
{
    calls++;
    return x * 2;
}

int zero(void)
{
    return 0;
}

int main(void)
{
    int s = 0;
    s += (int)sizeof(f(1));
    __typeof__(g(2)) t = 3;
    s += t;
    if (zero() && f(2))
        s += 100;
    if (f(0) || g(5))
        s += 1;
    s += zero() ? f(3) : g(3);
    for (int i = 0; f(i) < 4; i++)
        s += i;
    s += (g(1), g(2));
    s += f(g(f(1)));
    s += __builtin_constant_p(f(9));
    printf("s=%d calls=%d\n", s, calls);
    return 0;
}
