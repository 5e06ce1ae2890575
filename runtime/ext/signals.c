/* signals.c: the program's signal handlers kept apart from cprof's signals.
 *
 * CPROF_RESOURCES samples with realtime signals (resources.c) that the program does
 * not use when sampling starts: the highest ones whose action is the default and that
 * the program never set.  The program may take one later: its calls of sigaction,
 * signal, bsd_signal, sysv_signal, ssignal and sigset reach the wrappers here (ld
 * --wrap, build/lib/cprof-link.opt), which, for a signal cprof samples with, first have
 * resources.c move its sampling to another free one (or stop it: said in the profile),
 * then pass the call on.  So the program's handler gets the program's signals only, and
 * what its calls return is what they return under gcc (for cprof's signal, the default
 * action).  Calls from code cprof-cc did not link (a library built without it, a raw
 * system call) are not seen: resources.c looks whether its handler is still there as it
 * writes the profile, and says so if not.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
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
struct cprof_signal_owner cprof_signal_owner;

int cprof_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return __real_sigaction(sig, act, old);
}

int cprof_signal_free(int avoid)
{
    uint64_t set = __atomic_load_n(&set_by_program, __ATOMIC_RELAXED);
    for (int sig = SIGRTMAX; sig >= SIGRTMIN; sig--) {
        struct sigaction now;
        if (sig != avoid && !(set >> (sig - 1) & 1) && __real_sigaction(sig, NULL, &now) == 0
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
    if (cprof_signal_owner.taken)
        cprof_signal_owner.taken(sig, call);
}

int __wrap_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (act)
        taken(sig, "sigaction");
    else if (old && cprof_signal_owner.owned && cprof_signal_owner.owned(sig)) {
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
