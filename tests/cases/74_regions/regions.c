/* User regions (docs/control.md): each profiled as a routine called from the routine
 * (or region) around it, with its cases, arcs and paths; the calls inside a region are
 * its own.  A region left open by a return ends with its routine. */
#include <stdio.h>
#include <cprof.h>
static long sink;
/* Called from a parallel loop too: the sum is atomic, so the output is the same on
 * every run (a plain += raced, and gcc's and cprof's builds printed different sums). */
void leaf(int i)
{
    for (int k = 0; k < 3; k++)
        __atomic_fetch_add(&sink, i + k, __ATOMIC_RELAXED);
}
void phases(void)
{
    cprof_region_begin("setup");
    for (int i = 0; i < 4; i++)
        leaf(i);
    cprof_region_end();
    cprof_region_begin("solve");
#pragma omp parallel for schedule(static)
    for (int i = 0; i < 10; i++) {
        cprof_region_begin("step");
        leaf(i);
        cprof_region_end();
    }
    leaf(99);
    cprof_region_end();
    leaf(100);
}
int early(int x)
{
    cprof_region_begin("open");
    leaf(x);
    if (x)
        return 1;
    cprof_region_end();
    return 0;
}
/* The pragma form (CPROF_REGION: #pragma cprof region for cprof-cc, nothing for gcc):
 * the statement after it is the region, however it is left. */
int pragmas(int n)
{
    int found = -1;
CPROF_REGION("scan")
    for (int i = 0; i < n; i++) {
        leaf(i);
        if (i == 2) {
            found = i;
            break;
        }
    }
CPROF_REGION("single")
    leaf(n);
CPROF_REGION("search")
    {
        for (int i = 0; i < n; i++)
            if (i == 1)
                return found;
    }
    return -1;
}
int main(void)
{
    phases();
    phases();
    early(1);
    early(0);
    pragmas(5);
    leaf(7);
    printf("%ld\n", sink);
    return 0;
}
