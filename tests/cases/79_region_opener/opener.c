/* issue 29: a region opener's own time.  main spins, then opens a 2-thread region whose
 * threads each spin: --folded had no main line, --hatchet gave main 0 and an inclusive
 * time below its child's, --paths main 50% and its child 63%. */
#include <stdio.h>
static void spin(long n) { for (volatile long i = 0; i < n; i++) ; }
int main(void)
{
    for (volatile long i = 0; i < 30000000; i++) ;   /* main's own work */
#pragma omp parallel num_threads(2)
    spin(30000000);
    puts("ok");
    return 0;
}
