/* signals.c: the program's signal handlers kept apart from cprof's signals.
 *
 * CPROF_RESOURCES (resources.c) and the measure of profiling's cost (overhead.c) sample
 * with realtime signals that the program does not use when sampling starts: the highest ones whose action is the default and that
 * the program never set.  The program may take one later: its calls of sigaction,
 * signal, bsd_signal, sysv_signal, ssignal and sigset reach the wrappers here (ld
 * --wrap, build/lib/cprof-link.opt), which, for a signal cprof samples with, first have
 * its owner move its sampling to another free one (or stop it: said in the profile),
 * then pass the call on.  So the program's handler gets the program's signals only, and
 * what its calls return is what they return under gcc (for cprof's signal, the default
 * action).  Calls from code cprof-cc did not link (a library built without it, a raw
 * system call) are not seen: each owner looks whether its handler is still there as the
 * profile is written, and says so if not.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "signals.h"

typedef void (*handler_t)(int);

int __real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
handler_t __real_signal(int sig, handler_t h);
handler_t __real_bsd_signal(int sig, handler_t h);
handler_t __real_sysv_signal(int sig, handler_t h);
handler_t __real___sysv_signal(int sig, handler_t h);
handler_t __real_ssignal(int sig, handler_t h);
handler_t __real_sigset(int sig, handler_t h);

/* Bit sig - 1: the program set sig's action (through the wrappers). */
static uint64_t set_by_program;
static struct cprof_signal_owner owners[2];
static int nowners;

void cprof_signal_owner_add(const struct cprof_signal_owner *owner)
{
    if (nowners < (int)(sizeof owners / sizeof *owners))
        owners[nowners++] = *owner;
}

static int owned(int sig)
{
    for (int i = 0; i < nowners; i++)
        if (owners[i].owned(sig))
            return 1;
    return 0;
}

int cprof_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return __real_sigaction(sig, act, old);
}

int cprof_signal_free(int avoid)
{
    uint64_t set = __atomic_load_n(&set_by_program, __ATOMIC_RELAXED);
    for (int sig = SIGRTMAX; sig >= SIGRTMIN; sig--) {
        struct sigaction now;
        if (sig != avoid && !(set >> (sig - 1) & 1) && !owned(sig)
            && __real_sigaction(sig, NULL, &now) == 0
            && !(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_DFL)
            return sig;
    }
    return 0;
}

/* The program's call is about to set sig's action. */
static void taken(int sig, const char *call)
{
    if (sig < 1 || sig > 64)
        return;
    __atomic_fetch_or(&set_by_program, (uint64_t)1 << (sig - 1), __ATOMIC_RELAXED);
    for (int i = 0; i < nowners; i++)
        owners[i].taken(sig, call);
}

const char *cprof_signal_name(int sig, char *buf, size_t size)
{
    if (sig - SIGRTMIN < SIGRTMAX - sig)
        snprintf(buf, size, sig == SIGRTMIN ? "SIGRTMIN (%d)" : "SIGRTMIN+%d (%d)",
                 sig == SIGRTMIN ? sig : sig - SIGRTMIN, sig);
    else
        snprintf(buf, size, sig == SIGRTMAX ? "SIGRTMAX (%d)" : "SIGRTMAX-%d (%d)",
                 sig == SIGRTMAX ? sig : SIGRTMAX - sig, sig);
    return buf;
}

void cprof_signal_moved(char *out, size_t size, int sig, int to, const char *call)
{
    char from[32], name[32];
    cprof_signal_name(sig, from, sizeof from);
    double at = (double)cprof_elapsed_ns() / 1e9;
    if (to)
        snprintf(out, size, "sampled with %s from %.3f s on: the program's %s took %s, cprof's "
                 "signal until then", cprof_signal_name(to, name, sizeof name), at, call, from);
    else
        snprintf(out, size, "not sampled from %.3f s on: the program's %s took %s, and no "
                 "realtime signal was left free", at, call, from);
}

/* Setting a signal's action to ignore discards its queued instances.  An overflow that
 * read the old signal just before its counter moved is queued a moment later: ignored
 * twice, a millisecond apart. */
void cprof_signal_discard(int sig)
{
    struct sigaction ign = { .sa_handler = SIG_IGN }, dfl = { .sa_handler = SIG_DFL };
    __real_sigaction(sig, &ign, 0);
    nanosleep(&(struct timespec){ 0, 1000000 }, 0);
    __real_sigaction(sig, &ign, 0);
    __real_sigaction(sig, &dfl, 0);
}

int __wrap_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (act)
        taken(sig, "sigaction");
    else if (old && owned(sig)) {
        /* Asked only: the program's action for it, the default. */
        *old = (struct sigaction){ .sa_handler = SIG_DFL };
        return 0;
    }
    return __real_sigaction(sig, act, old);
}

#define SIGNAL(name) \
    handler_t __wrap_##name(int sig, handler_t h) \
    { \
        taken(sig, #name); \
        return __real_##name(sig, h); \
    }
SIGNAL(signal)
SIGNAL(bsd_signal)
SIGNAL(sysv_signal)
SIGNAL(__sysv_signal)
SIGNAL(ssignal)
SIGNAL(sigset)
