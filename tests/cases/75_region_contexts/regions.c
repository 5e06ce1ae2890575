/* Calling contexts of parallel regions and tasks (docs/semantics.md): every member of a
 * team has the opener's path, through a <parallel> context; a task has its creator's,
 * through a <task> context, wherever and whenever it runs. */
#include <omp.h>
#include <stdio.h>

__attribute__((noinline)) int leaf(int i)
{
    return i * 2 + 1;
}

int loop(int n)
{
    int s = 0;
#pragma omp parallel for schedule(static) reduction(+:s)
    for (int i = 0; i < n; i++)
        s += leaf(i);
    return s;
}

int nested(void)
{
    int s = 0;
#pragma omp parallel num_threads(2) reduction(+:s)
    {
#pragma omp parallel num_threads(2) reduction(+:s)
        s += leaf(1);
    }
    return s;
}

/* Returns before its tasks have run: they outlive it. */
int spawn(int n)
{
    for (int i = 0; i < n; i++) {
#pragma omp task
        leaf(i);
    }
    return n;
}

int tasks(int n)
{
    int r = 0;
#pragma omp parallel
#pragma omp single
    r = spawn(n);
    return r;
}

int region_in_task(void)
{
    int s = 0;
#pragma omp task shared(s)
    s = loop(4);
#pragma omp taskwait
    return s;
}

int main(void)
{
    omp_set_max_active_levels(2);
    printf("%d\n", loop(10));
    printf("%d\n", nested());
    printf("%d\n", tasks(6));
    printf("%d\n", region_in_task());
    int one = 0;
#pragma omp parallel num_threads(1)
    one = leaf(3);
    printf("%d\n", one);
    return 0;
}
