#include <stdio.h>
#include <cprof.h>
#include "lib.h"

int main(void)
{
    long s = lib_driver(10);                    /* ext_leaf 10 + 10 through ext_chain */
    for (int i = 0; i < 5; i++)
        s += ext_leaf(i);                       /* another unit's calls: 5 */
    int (*f)(int) = ext_leaf;
    for (int i = 0; i < 3; i++)
        s += f(i);                              /* through a pointer: 3 */
    s += lib_pointer()(4) + ext_loop(100);
#pragma omp parallel for num_threads(2) schedule(static) reduction(+:s)
    for (int i = 0; i < 8; i++)
        s += ext_leaf(i) + ext_chain(i);        /* concurrent calls: 8 + 8 */
#pragma omp parallel num_threads(2) reduction(+:s)
    s += lib_driver(2);                         /* on each thread: 2 + 2 */
    cprof_stop();
    s += ext_leaf(1) + f(2);                    /* stopped: not counted */
    cprof_start();
    printf("%ld\n", s);
    return 0;
}

/* Before main, maybe before the runtime has started: counted all the same. */
__attribute__((constructor)) static void early(void)
{
    if (ext_leaf(7) != 22)
        puts("wrong");
}
