/* Parallel regions with one thread are inactive: everything in them is sequential. */
#include <stdio.h>
#include <omp.h>

static int acc;

void leaf(int x)
{
#pragma omp atomic
    acc += x;
}

void by_if(void)
{
#pragma omp parallel for if(0)
    for (int i = 0; i < 10; i++)
        leaf(i);
}

void by_num_threads(void)
{
#pragma omp parallel num_threads(1)
    {
        leaf(1);
#pragma omp for
        for (int i = 0; i < 6; i++)
            leaf(i);
    }
}

void by_runtime_if(int n)
{
#pragma omp parallel if(n > 100)
    {
        leaf(omp_get_num_threads());
#pragma omp single
        leaf(omp_get_active_level());
#pragma omp task
        leaf(3);
    }
}

void helper(int k)
{
    leaf(k);
}

void nested_calls(void)
{
#pragma omp parallel num_threads(1)
    helper(5);
}

int main(void)
{
    by_if();
    by_num_threads();
    by_runtime_if(4);
    nested_calls();
    printf("acc=%d in_parallel=%d\n", acc, omp_in_parallel());
    return 0;
}
