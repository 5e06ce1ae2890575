/* Routines that busy-wait known durations and measure themselves: the span of each
 * call inside the routine (in) and around the call in its caller (out), and main's span
 * inside main (in) and from a constructor to a destructor (out), written at exit to
 * measured.json.  cprof's times must lie between the two, whatever the load: its entry
 * and exit marks are taken between them, on the same clock (env: CPROF_CLOCK=monotonic). */
#include <omp.h>
#include <stdio.h>
#include <time.h>

struct span {
    long a, b;
};
static struct span seq20_in[2], seq20_out[2], s60_in, s60_out, par_in[2], par_out[2];
static struct span main_in, main_out;
static int nseq20;

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void spin_ns(long ns)
{
    long end = now_ns() + ns;
    while (now_ns() < end)
        ;
}

void spin20(void)
{
    struct span *s = omp_in_parallel() ? &par_in[omp_get_thread_num()] : &seq20_in[nseq20++];
    s->a = now_ns();
    spin_ns(20000000);
    s->b = now_ns();
}

void spin60(void)
{
    s60_in.a = now_ns();
    spin_ns(60000000);
    s60_in.b = now_ns();
}

__attribute__((constructor)) static void before_main(void)
{
    main_out.a = now_ns();
}

static long d(struct span s)
{
    return s.b - s.a;
}

__attribute__((destructor)) static void after_main(void)
{
    main_out.b = now_ns();
    FILE *f = fopen("measured.json", "w");
    if (!f)
        return;
    fprintf(f, "{\"seq20_in\": [%ld, %ld], \"seq20_out\": [%ld, %ld], \"s60_in\": %ld,"
            " \"s60_out\": %ld, \"par_in\": [%ld, %ld], \"par_out\": [%ld, %ld],"
            " \"main_in\": %ld, \"main_out\": %ld}\n",
            d(seq20_in[0]), d(seq20_in[1]), d(seq20_out[0]), d(seq20_out[1]), d(s60_in),
            d(s60_out), d(par_in[0]), d(par_in[1]), d(par_out[0]), d(par_out[1]),
            d(main_in), d(main_out));
    fclose(f);
}

int main(void)
{
    main_in.a = now_ns();
    seq20_out[0].a = now_ns();
    spin20();
    seq20_out[0].b = now_ns();
    s60_out.a = now_ns();
    spin60();
    s60_out.b = now_ns();
    seq20_out[1].a = now_ns();
    spin20();
    seq20_out[1].b = now_ns();
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        par_out[t].a = now_ns();
        spin20();
        par_out[t].b = now_ns();
    }
    printf("done\n");
    main_in.b = now_ns();
    return 0;
}
