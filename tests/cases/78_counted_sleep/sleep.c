/* issue 29: a calls a routine that loops, s sleeps; both were counted (small, static)
 * and shown with no time, main getting s's sleep as self time. */
#include <unistd.h>
static void work(void) { for (volatile long i = 0; i < 100000000; i++) ; }
static void a(void) { work(); }
static void s(void) { usleep(200000); }
int main(void) { a(); s(); return 0; }
