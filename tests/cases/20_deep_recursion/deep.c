/* Deep recursion, mutual recursion, and a recursive routine that opens a parallel
 * region at every level (only the outermost is active). */
#include <stdio.h>

static int leaves;

long down(int n)
{
    if (n == 0)
        return 0;
    return 1 + down(n - 1);
}

int is_odd(int n);

int is_even(int n)
{
    return n == 0 ? 1 : is_odd(n - 1);
}

int is_odd(int n)
{
    return n == 0 ? 0 : is_even(n - 1);
}

void leaf(void)
{
#pragma omp atomic
    leaves++;
}

void rpar(int n)
{
    if (n == 0) {
        leaf();
        return;
    }
#pragma omp parallel num_threads(2)
    {
#pragma omp single
        rpar(n - 1);
    }
}

int main(void)
{
    printf("down=%ld\n", down(20000));
    printf("even(100)=%d\n", is_even(100));
    rpar(20);
    printf("leaves=%d\n", leaves);
    return 0;
}
