/* A recursion one million deep that gcc -O2 turns into a loop; cprof's frames are
 * real, about 64 bytes each, more than the 8 MiB stack this program starts with. */
#include <stdio.h>
#include <sys/resource.h>

long down(long n)
{
    return n ? 1 + down(n - 1) : 0;
}

int main(void)
{
    /* The usual soft limit, whatever the shell running the tests has. */
    struct rlimit rl;
    getrlimit(RLIMIT_STACK, &rl);
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (rlim_t)8 << 20)
        rl.rlim_cur = (rlim_t)8 << 20;
    setrlimit(RLIMIT_STACK, &rl);
    printf("%ld\n", down(1000000));
    return 0;
}
