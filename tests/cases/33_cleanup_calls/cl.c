/* __attribute__((cleanup(f))): f is called where the variable's scope ends. */
#include <stdio.h>
#include <stdlib.h>

static int done_sum;

void done(int *p)
{
#pragma omp atomic
    done_sum += *p;
}

static void release(char **p)
{
    free(*p);
}

int helper(int x)
{
    int a __attribute__((cleanup(done))) = x, b __attribute__((__cleanup__(done))) = 1;
    __attribute__((cleanup(done))) int c = 2, d = 3;
    char *buf __attribute__((cleanup(release))) = malloc(8);
    return a + b + c + d + (buf != 0);
}

int main(void)
{
    int s = helper(10);
    {
        int u __attribute__((cleanup(done))) = 100;
        s += u;
    }
#pragma omp parallel for reduction(+:s)
    for (int i = 0; i < 4; i++) {
        int t __attribute__((cleanup(done))) = 1000;
        s += helper(i) + t;
    }
    printf("%d %d\n", s, done_sum);
    return 0;
}
