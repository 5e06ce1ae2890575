/* longjmp over instrumented frames (noinline: timed frames to skip, and after the jumps). */
#include <stdio.h>
#include <setjmp.h>

static jmp_buf env, env2;
static volatile int jumps;

void c(int k)
{
    jumps = k + 1;
    longjmp(env, 1);
}

__attribute__((noinline)) void b(int k)
{
    if (k >= 0)
        c(k);
}

__attribute__((noinline)) void a(int k)
{
    b(k);
}

void e(void)
{
    printf("e\n");
}

void d(void)
{
    e();
}

void c2(void)
{
    longjmp(env2, 1);
}

__attribute__((noinline)) void a2(void)
{
    c2();
}

int guard(void)
{
    if (setjmp(env2) == 0) {
        a2();
        return 0;
    }
    e();
    return 1;
}

/* the same inside a parallel loop: each thread jumps within its own routines */
void tjump(jmp_buf *e)
{
    longjmp(*e, 1);
}

__attribute__((noinline)) void tmid(jmp_buf *e)
{
    tjump(e);
}

__attribute__((noinline)) int tleaf(int i)
{
    return i;
}

int tguard(int i)
{
    jmp_buf e;
    if (setjmp(e) == 0) {
        tmid(&e);
        return -1000;
    }
    return tleaf(i);
}

int par_jumps(void)
{
    int s = 0;
#pragma omp parallel for schedule(static) reduction(+:s)
    for (int i = 0; i < 10; i++)
        s += tguard(i);
    return s;
}

int main(void)
{
    setjmp(env);
    if (jumps < 3)
        a(jumps);
    printf("jumps %d\n", jumps);
    b(-1);
    d();
    int g = guard();
    g += guard();
    printf("g=%d par=%d\n", g, par_jumps());
    return 0;
}
