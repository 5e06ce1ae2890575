/* Nested parallel regions: C-C calls (active nested team), and nested regions that
 * are inactive (max-active-levels reached) or active under an inactive outer one. */
#include <stdio.h>
#include <omp.h>

static int n1, n2, n3, n4;

void leaf(void)
{
#pragma omp atomic
    n1++;
}

void leaf2(void)
{
#pragma omp atomic
    n2++;
}

void leaf3(void)
{
#pragma omp atomic
    n3++;
}

void leaf4(void)
{
#pragma omp atomic
    n4++;
}

void inner(void)
{
#pragma omp parallel num_threads(2)
    for (int j = 0; j < 10; j++)
        leaf();
    leaf();
}

void outer(void)
{
#pragma omp parallel num_threads(2)
    inner();
}

void inner_flat(void)
{
#pragma omp parallel num_threads(2)
    leaf2();
}

void flat(void)
{
#pragma omp parallel num_threads(2)
    inner_flat();
}

void ifzero(void)
{
#pragma omp parallel if(0)
    {
        leaf3();
#pragma omp parallel num_threads(2)
        leaf4();
    }
}

int main(void)
{
    omp_set_max_active_levels(2);
    outer();
    omp_set_max_active_levels(1);
    flat();
    ifzero();
    printf("leaf=%d leaf2=%d leaf3=%d leaf4=%d\n", n1, n2, n3, n4);
    return 0;
}
