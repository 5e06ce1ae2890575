/* a.c: its own static helper */
static int helper(int x)
{
    return x + 1;
}

int a_run(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += helper(i);
    return s;
}
