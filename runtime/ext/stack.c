/* stack.c: the initial thread's stack, which profiled frames need more of.
 *
 * An instrumented function keeps a cleanup variable (its exit hook), so gcc cannot turn
 * its recursion into a loop, and each frame is larger: a recursion that gcc's build runs
 * in a loop can need tens of MiB of stack under cprof.  Linux grows the initial
 * thread's stack on demand, checking the soft RLIMIT_STACK at each growth, so the
 * runtime raises that limit when, and only when, the stack hits it: a SIGSEGV handler on
 * an alternate stack doubles the soft limit (up to the hard one) and returns, and the
 * faulting instruction grows the stack.  Where the stack cannot grow (hard limit, or the
 * mappings below it, placed at exec from the limit then in force), it prints one line
 * naming the limit and the program dies of SIGSEGV, as it would have.
 *
 * Another thread's stack has a fixed size (OMP_STACKSIZE for OpenMP's threads, the
 * creator's attributes for the program's own): where it runs out, the same handler
 * prints one line naming the thread and how deep its stack was, and the program dies
 * of SIGSEGV as gcc's build would (silently).  Each thread that runs profiled code gets
 * an alternate signal stack for it, unless it has one: without, the kernel could not
 * run the handler on an exhausted stack.  Every other SIGSEGV is the program's: default
 * action, untouched.  A handler the program installs replaces this one.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <omp.h>
#include <ucontext.h>
#include <unistd.h>
#include "stack.h"
#include "signals.h"

extern void *__libc_stack_end;          /* glibc: the top of the initial thread's stack */

static pid_t initial_pid;
static uintptr_t stack_top;
static rlim_t raised_from;              /* the soft limit at start, once raised */
static int installed;                   /* the SIGSEGV handler is ours */
static int told;                        /* a thread's overflow was said */
static char omp_stacksize[40];          /* OMP_STACKSIZE at start, or empty */
/* Another thread's stack position at its first profiled call, near the stack's top;
 * zero in threads with no alternate stack of ours, and in the initial thread. */
static __thread uintptr_t thread_top;

#define ALT_STACK (64 * 1024)

/* Signal-safe decimal. */
static char *put_num(char *p, unsigned long v)
{
    char digits[24];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n > 0)
        *p++ = digits[--n];
    return p;
}

static char *put_str(char *p, const char *s)
{
    while (*s)
        *p++ = *s++;
    return p;
}

static char *put_limit(char *p, rlim_t v)
{
    return v == RLIM_INFINITY ? put_str(p, "unlimited") : put_str(put_num(p, (unsigned long)(v >> 20)), " MiB");
}

static void overflow_message(uintptr_t used, const struct rlimit *rl)
{
    char line[512], *p = line;
    p = put_str(p, "cprof: stack overflow in the initial thread at ");
    p = put_num(p, (unsigned long)(used >> 20));
    p = put_str(p, " MiB (RLIMIT_STACK soft ");
    p = put_limit(p, rl->rlim_cur);
    if (raised_from) {
        p = put_str(p, ", raised by cprof from ");
        p = put_limit(p, raised_from);
    }
    p = put_str(p, ", hard ");
    p = put_limit(p, rl->rlim_max);
    p = put_str(p, "); profiled frames are larger than gcc's: run it with a larger `ulimit -s`\n");
    ssize_t w = write(2, line, (size_t)(p - line));
    (void)w;
}

static void thread_overflow_message(uintptr_t used)
{
    if (__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
        return;                         /* another thread said it first */
    char line[512], *p = line;
    p = put_str(p, "cprof: stack overflow in thread ");
    p = put_num(p, (unsigned long)syscall(SYS_gettid));
    int t = omp_get_thread_num();
    if (t > 0) {
        p = put_str(p, " (OpenMP thread ");
        p = put_str(put_num(p, (unsigned long)t), ")");
    }
    p = put_str(p, " at ");
    p = put_num(p, (unsigned long)(used >> 10));
    p = put_str(p, " KiB of stack (OMP_STACKSIZE ");
    p = put_str(p, omp_stacksize[0] ? omp_stacksize : "unset");
    p = put_str(p, "); profiled frames are larger than gcc's: give the thread a larger stack "
                   "(OMP_STACKSIZE for OpenMP's threads)\n");
    ssize_t w = write(2, line, (size_t)(p - line));
    (void)w;
}

/* The interrupted thread's stack pointer, where the architecture is known. */
static int interrupted_sp(const void *context, uintptr_t *sp)
{
    const ucontext_t *uc = context;
#if defined(__x86_64__)
    *sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
    return 1;
#elif defined(__aarch64__)
    *sp = (uintptr_t)uc->uc_mcontext.sp;
    return 1;
#else
    (void)uc;
    (void)sp;
    return 0;
#endif
}

/* A fault by the kernel within a MiB of the interrupted stack pointer (or, where the
 * architecture's is not known, unknown). */
static int near_sp(const siginfo_t *info, const void *context, uintptr_t addr, int unknown)
{
    uintptr_t sp;
    if (info->si_code <= 0)
        return 0;
    if (!interrupted_sp(context, &sp))
        return unknown;
    return addr + (1u << 20) >= sp && addr < sp + (1u << 20);
}

static void on_segv(int sig, siginfo_t *info, void *context)
{
    uintptr_t addr = (uintptr_t)info->si_addr;
    /* A stack overflow of the initial thread: in the initial stack's span. */
    if (getpid() == initial_pid && syscall(SYS_gettid) == initial_pid && addr < stack_top
        && near_sp(info, context, addr, 1)) {
        uintptr_t used = stack_top - addr;
        struct rlimit rl;
        if (getrlimit(RLIMIT_STACK, &rl) == 0) {
            /* The limit was what stopped the growth: raise it and retry the access. */
            if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < rl.rlim_max && 2 * used > rl.rlim_cur) {
                rlim_t was = rl.rlim_cur;
                rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max / 2 > was ? 2 * was : rl.rlim_max;
                if (setrlimit(RLIMIT_STACK, &rl) == 0) {
                    if (!raised_from)
                        raised_from = was;
                    return;
                }
            }
            overflow_message(used, &rl);
        }
    } else if (thread_top && addr < thread_top && near_sp(info, context, addr, 0)) {
        thread_overflow_message(thread_top - addr);
    }
    cprof_sigaction(sig, &(struct sigaction){ .sa_handler = SIG_DFL }, NULL);
    if (info->si_code <= 0)     /* sent, not a fault: returning would not repeat it */
        raise(sig);
}

/* An alternate signal stack for this thread, unless it has one: 0 if it has ours. */
static int alt_stack(void)
{
    stack_t alt;
    if (sigaltstack(NULL, &alt) != 0 || !(alt.ss_flags & SS_DISABLE))
        return -1;
    void *mem = mmap(NULL, ALT_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                     -1, 0);
    if (mem == MAP_FAILED)
        return -1;
    alt = (stack_t){ .ss_sp = mem, .ss_size = ALT_STACK, .ss_flags = 0 };
    if (sigaltstack(&alt, NULL) != 0) {
        munmap(mem, ALT_STACK);
        return -1;
    }
    return 0;
}

/* A thread other than the initial one runs profiled code for the first time.  Its
 * alternate stack is never unmapped: the thread may end, but a signal may be running on
 * it until then, and the 64 KiB are mostly never touched. */
void cprof_stack_thread(void)
{
    if (installed && syscall(SYS_gettid) != getpid() && alt_stack() == 0)
        thread_top = (uintptr_t)__builtin_frame_address(0);
}

void cprof_stack_start(void)
{
    struct sigaction old;
    initial_pid = getpid();
    if (syscall(SYS_gettid) != initial_pid || cprof_sigaction(SIGSEGV, NULL, &old) != 0
        || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
        return;     /* not the initial thread, or the program has its own disposition */
    if (alt_stack() != 0)
        return;
    /* The argument and environment strings above __libc_stack_end are a few pages. */
    stack_top = (uintptr_t)__libc_stack_end;
    const char *ss = getenv("OMP_STACKSIZE");
    if (ss)
        snprintf(omp_stacksize, sizeof omp_stacksize, "%s", ss);
    struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_ONSTACK };
    sigemptyset(&sa.sa_mask);
    installed = cprof_sigaction(SIGSEGV, &sa, NULL) == 0;
}
