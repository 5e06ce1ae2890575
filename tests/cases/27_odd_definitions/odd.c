/* Odd but valid definitions and calls: parenthesized names (a macro of the same name),
 * unprototyped declarations, register parameters, a static prototype with a plain definition, a const-qualified return,
 * a function named like a struct member. */
#include <stdio.h>

#define max(a, b) ((a) > (b) ? (a) : (b))

int (max)(int a, int b)
{
    return a > b ? a : b;
}

int unproto();

static int hidden(int x);

int hidden(int x)
{
    return x - 1;
}

struct ops {
    int (*count)(int);
};

int count(register int n)
{
    register int s = 0;
    while (n-- > 0)
        s++;
    return s;
}

const char *label(void)
{
    return "label";
}

int main(void)
{
    struct ops o = { count };
    int s = max(1, 2) + (max)(3, 4) + (max)(5, max(6, 7));
    s += unproto(2, 3);
    s += hidden(10);
    s += o.count(3) + count(2);
    printf("%d %s\n", s, label());
    return 0;
}

int unproto(a, b)
    int a, b;
{
    return a * b;
}
