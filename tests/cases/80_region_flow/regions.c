/* User regions ended on every path, in branches, cases, loops and before jumps (issue
 * 29): the calls on a path are the region's up to the end that path meets, and the
 * routine's after it, in the arcs as in the calling contexts. */
#include <stdio.h>
#include <cprof.h>
static long sink;
__attribute__((noinline)) void a(int i) { sink += i; }
__attribute__((noinline)) void b(int i) { sink += 2 * i; }
__attribute__((noinline)) void c(int i) { sink += 3 * i; }
/* Ended in both branches of an if. */
void branches(int x)
{
    cprof_region_begin("phase");
    if (x) {
        a(x);
        cprof_region_end();
    } else {
        b(x);
        cprof_region_end();
    }
    c(x);
}
/* Ended in every case of a switch, case 0 by falling into case 1. */
void cases(int x)
{
    cprof_region_begin("pick");
    switch (x) {
    case 0:
        a(x);
        /* fall through */
    case 1:
        cprof_region_end();
        break;
    default:
        b(x);
        cprof_region_end();
    }
    c(x);
}
/* A region per iteration, ended before a continue and at the body's end, and a break
 * after its end. */
void loop(int n)
{
    for (int i = 0; i < n; i++) {
        cprof_region_begin("iter");
        a(i);
        if (i % 2) {
            cprof_region_end();
            continue;
        }
        b(i);
        cprof_region_end();
        if (i == 4)
            break;
    }
    c(n);
}
/* Ended before a goto, and on the path that falls to its label. */
void jumps(int x)
{
    cprof_region_begin("try");
    a(x);
    if (x > 1) {
        cprof_region_end();
        goto out;
    }
    b(x);
    cprof_region_end();
out:
    c(x);
}
int main(void)
{
    branches(1);
    branches(0);
    cases(0);
    cases(1);
    cases(2);
    loop(10);
    jumps(1);
    jumps(2);
    printf("%ld\n", sink);
    return 0;
}
