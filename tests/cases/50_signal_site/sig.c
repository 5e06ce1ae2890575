/* A SIGPROF handler that runs instrumented code may interrupt main anywhere, also
 * between a call site's handshake and the callee's entry: no arc may change. */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

static volatile sig_atomic_t ticks;
volatile long sink;

__attribute__((noinline)) void g(void) { sink++; }
__attribute__((noinline)) void h(void) { g(); }

/* Entered from outside (the kernel): calls h, which calls g. */
void on_prof(int sig)
{
    (void)sig;
    ticks++;
    h();
}

__attribute__((noinline)) long f(long x) { return x ^ sink; }

int main(void)
{
    signal(SIGPROF, on_prof);
    struct itimerval every = { { 0, 100 }, { 0, 100 } };
    setitimer(ITIMER_PROF, &every, NULL);
    /* The timer ticks with the kernel's clock (every few ms of CPU time), so the loop
     * runs until the handler has run often enough, whatever the machine's load. */
    long s = 0, i;
    for (i = 0; i < 5000000 || ticks < 20; i++)
        s += f(i);
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_PROF, &off, NULL);
    FILE *m = fopen("measured.json", "w");
    if (m) {
        fprintf(m, "{\"calls\": %ld}\n", i);
        fclose(m);
    }
    printf("%s\n", ticks >= 20 && s != 1 ? "interrupted" : "never interrupted");
    return 0;
}
