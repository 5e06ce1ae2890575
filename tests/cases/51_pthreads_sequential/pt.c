/* Plain pthreads, all sequential at once (no parallel region is active anywhere), call a
 * routine that does not recurse; then main calls it ten times, each sleeping. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

__attribute__((noinline)) long w(long n)
{
    if (n < 0) {
        struct timespec t = { 0, 20000000 };    /* 20 ms */
        nanosleep(&t, NULL);
    }
    return n;
}

void *run(void *arg)
{
    long *sum = arg;
    for (long i = 0; i < 2000000; i++)
        *sum += w(i & 1);
    return NULL;
}

int main(void)
{
    pthread_t t[4];
    long sums[4] = { 0 }, total = 0;
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, run, &sums[i]);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        total += sums[i];
    }
    for (int i = 0; i < 10; i++)
        total += w(-1);
    printf("%ld\n", total);
    return 0;
}
