/* OpenMP constructs met in real code: clause expressions, orphaned for, sections,
 * taskloop, collapse, critical/master/single, continued pragmas, threadprivate. */
#include <stdio.h>
#include <omp.h>

static long acc;
static int tp;
#pragma omp threadprivate(tp)

int nt(void)
{
    return 2;
}

int cond(int x)
{
    return x > 0;
}

void leaf(int i)
{
#pragma omp atomic
    acc += i;
}

int one(void)
{
    return 1;
}

void orphan(void)
{
#pragma omp for schedule(static)
    for (int i = 0; i < 10; i++)
        leaf(i);
}

void clauses(void)
{
#pragma omp parallel num_threads(nt()) if(cond(1))
    orphan();
}

void sections(void)
{
#pragma omp parallel sections
    {
#pragma omp section
        leaf(100);
#pragma omp section
        leaf(200);
    }
}

void tasks(void)
{
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(4)
    for (int i = 0; i < 16; i++)
        leaf(i);
}

void collapsed(void)
{
#pragma omp parallel for collapse(2) \
    schedule(static) \
    num_threads(2)
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
            leaf(i * 5 + j);
}

void sync(void)
{
    tp = 10;
#pragma omp parallel copyin(tp)
    {
#pragma omp critical
        leaf(1);
#pragma omp master
        leaf(2);
#pragma omp barrier
#pragma omp single
        leaf(3);
        tp += one();
#pragma omp atomic
        acc += tp;
    }
}

int main(void)
{
    clauses();
    sections();
    tasks();
    collapsed();
    sync();
    printf("acc=%ld\n", acc);
    return 0;
}
