/* b.c: another static helper, same name, different routine */

static int helper(int x)
{
    return 2 * x;
}

int b_run(int n)
{
    int s = 0;
#pragma omp parallel for schedule(static) reduction(+:s)
    for (int i = 0; i < n; i++)
        s += helper(i);
    return s + helper(n);
}
