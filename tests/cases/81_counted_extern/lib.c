/* Small routines of external linkage (docs/cprof-cc.md, "Small routines"): counted at
 * this unit's call sites, and at their entry when another unit calls them (main.c:
 * directly, through a pointer, from a parallel loop). */
#include "lib.h"

/* counted: calls nothing */
int ext_leaf(int x) { return x * 3 + 1; }
/* counted: calls a counted routine */
int ext_chain(int x) { return ext_leaf(x) + 1; }
/* counted: returns an address, calls nothing */
int (*lib_pointer(void))(int) { return ext_pointed; }
/* timed: the unit takes its address (lib_pointer) */
int ext_pointed(int x) { return x - 1; }
/* timed: weak, another unit's definition could be the one called */
__attribute__((weak)) int ext_weak(int x) { return x + 5; }
/* timed: a loop */
int ext_loop(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += i;
    return s;
}

long lib_driver(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += ext_leaf(i) + ext_chain(i) + ext_weak(i);
    return s;
}
