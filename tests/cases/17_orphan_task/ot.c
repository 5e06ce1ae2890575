/* Tasks that outlive the routine that created them (no taskwait before it returns). */
#include <stdio.h>
#include <time.h>

static int done[4];
static int others;

__attribute__((noinline)) void late(int k)   /* noinline: timed */
{
    done[k] = k + 1;
}

void other(void)
{
#pragma omp atomic
    others++;
}

void spawner(int k)
{
#pragma omp task firstprivate(k)
    {
        struct timespec ts = { 0, 5000000 };
        nanosleep(&ts, NULL);
        late(k);
    }
}

int main(void)
{
#pragma omp parallel
    {
#pragma omp single
        {
            for (int k = 0; k < 4; k++)
                spawner(k);
            other();
            other();
            other();
        }
    }
    printf("%d %d %d %d others=%d\n", done[0], done[1], done[2], done[3], others);
    return 0;
}
