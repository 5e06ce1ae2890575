/* Routines entered from code cprof did not compile: a pthread start routine, a signal
 * handler, a bsearch comparator called from a thread; that thread runs a parallel
 * region of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <pthread.h>

static volatile sig_atomic_t got;
static int total;

int leaf(int x)
{
    return x + 1;
}

void handler(int sig)
{
    got = sig == SIGUSR1 ? leaf(0) : -1;
}

int leaf2(int x)
{
    return x - 1;
}

int par(void)
{
    int s = 0;
#pragma omp parallel for schedule(static) num_threads(2) reduction(+:s)
    for (int i = 0; i < 10; i++)
        s += leaf2(i);
    return s;
}

int cmp(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

void *start(void *arg)
{
    int n = *(int *)arg, s = 0;
    for (int i = 0; i < n; i++)
        s += leaf(i);
    int key = 3, one[1] = { 3 };
    if (bsearch(&key, one, 1, sizeof(int), cmp))
        s++;
    total = s + par();
    return NULL;
}

int main(void)
{
    pthread_t t;
    int n = 5;
    signal(SIGUSR1, handler);
    raise(SIGUSR1);
    if (pthread_create(&t, NULL, start, &n) != 0)
        return 1;
    pthread_join(t, NULL);
    printf("got=%d total=%d\n", (int)got, total);
    return 0;
}
