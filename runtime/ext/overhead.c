/* overhead.c: what profiling costs the run, measured rather than estimated
 * (docs/overhead.md).
 *
 * Every thread that runs profiled code is interrupted every PERIOD_NS of its CPU time
 * in user mode (a perf_event task-clock counter of its own, as resources.c's, with a
 * realtime signal of cprof's), and the handler looks at the instruction it interrupted:
 * in the runtime's code (the section cprof_text, which the Makefile puts all of it in)
 * or not.  The share of samples there is the share of the threads' CPU that the
 * runtime took: its facades, its wrappers of the OpenMP runtime, its start-up.  What
 * profiling costs in the program's own code (the calls' inline parts, optimizations
 * lost) cannot be told from the program's by its address: the profile says so.
 *
 * Kernel time is not sampled (exclude_kernel): an overflow inside a system call would
 * signal a thread about to sleep, and cut its sleep short (EINTR); one in user mode is
 * handled at once, before the thread can enter any call.  The signal moves when the
 * program takes it, as resources.c's (signals.c); each move, or the end of sampling,
 * and whatever kept a thread unsampled, is said in the profile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include "overhead.h"
#include "resources.h"
#include "signals.h"
#include "../../format/schema.h"

/* A sample every 4 ms of a thread's CPU: 250 a second, each 15-23 us in a virtual
 * machine (the counter's timer interrupt and the signal: bench/resources.sh), about
 * 0.5% of a busy thread; enough for a share within a few percent in a second. */
#define PERIOD_NS 4000000

static const char not_covered[] =
    "the calls' inline parts in the profiled routines (the handshake, the call of the "
    "facade, the counts of routines counted at their call sites, and of leaves' untimed "
    "calls counted at theirs), what profiling "
    "costs the program's own code (inlining and other optimizations lost, code layout, "
    "caches and branch predictors shared with the facades), the OpenMP runtime's code the "
    "facades and wrappers call, kernel time (only user-mode CPU is sampled), threads that "
    "never ran profiled code";

/* Each sampled thread's counter and counts: one writer, the thread's own handler. */
struct sampler {
    int fd;
    uint64_t id;                       /* the kernel's id of its counter */
    uint64_t samples, in_cprof;
    uint64_t base_samples, base_in_cprof;  /* at cprof_reset(), subtracted as written */
    struct sampler *next;
};
static struct sampler *samplers;       /* every thread's, newest first */
static __thread struct sampler *mine;
static pthread_key_t exit_key;         /* closes a thread's counter as it exits */

static int signo;                      /* the sampling signal; 0: none (any more) */
static int measured;                   /* else reason says why not */
static char reason[600];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The bounds of the runtime's code: the linker's, in this object (static link) or library. */
extern const char __start_cprof_text[] __attribute__((visibility("hidden")));
extern const char __stop_cprof_text[] __attribute__((visibility("hidden")));

static void note(const char *fmt, ...)
{
    char line[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t n = strlen(reason);
    if (!strstr(reason, line))
        snprintf(reason + n, sizeof reason - n, "%s%s", n ? "; " : "", line);
}

/* The instruction the signal interrupted; 0 where this machine's context is not known. */
static uintptr_t interrupted(const void *uc)
{
#if defined(__x86_64__)
    return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

static void on_sample(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    struct sampler *s = mine;
    if (!s || si->si_code <= 0 || si->si_fd != s->fd)
        return;         /* sent, not an overflow; or a forked child's copy */
    uintptr_t pc = interrupted(uc);
    __atomic_store_n(&s->samples, s->samples + 1, __ATOMIC_RELAXED);
    if (pc >= (uintptr_t)__start_cprof_text && pc < (uintptr_t)__stop_cprof_text)
        __atomic_store_n(&s->in_cprof, s->in_cprof + 1, __ATOMIC_RELAXED);
}

static void install(int sig)
{
    struct sigaction sa = { .sa_sigaction = on_sample, .sa_flags = SA_SIGINFO | SA_RESTART };
    sigemptyset(&sa.sa_mask);
    cprof_sigaction(sig, &sa, 0);
}

/* Whether s's descriptor is still its counter: a program that closed every descriptor
 * may have one of its own files under that number, which cprof must not touch. */
static int still_mine(const struct sampler *s)
{
    uint64_t id;
    return s->fd >= 0 && ioctl(s->fd, PERF_EVENT_IOC_ID, &id) == 0 && id == s->id;
}

static void thread_exit(void *arg)
{
    struct sampler *s = arg;
    pthread_mutex_lock(&lock);
    if (still_mine(s))
        close(s->fd);
    s->fd = -1;
    mine = 0;
    pthread_mutex_unlock(&lock);
}

/* This thread's counter, its overflows to the signal of now (under lock); -1 with
 * errno if it cannot be opened or routed. */
static int open_counter(void)
{
    struct perf_event_attr a = { .size = sizeof a, .type = PERF_TYPE_SOFTWARE,
                                 .config = PERF_COUNT_SW_TASK_CLOCK, .sample_period = PERIOD_NS,
                                 .wakeup_events = 1, .exclude_kernel = 1, .exclude_hv = 1 };
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -1;
    fd = cprof_resources_fd_high(fd);
    struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
    if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, signo) != 0 ||
        fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

/* What perf_event_open's error means to a user. */
static const char *why_not(int err)
{
    if (err == EACCES || err == EPERM)
        return "not permitted: see /proc/sys/kernel/perf_event_paranoid (2 or below lets a "
               "process count its own threads)";
    if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == ENOSYS)
        return "this system has no CPU-time counter (perf_event_open)";
    return strerror(err);
}

void cprof_overhead_open(void)
{
    int saved = errno;
    pthread_mutex_lock(&lock);
    sigset_t mask;
    char name[32];
    if (!signo || mine)
        ;
    else if (pthread_sigmask(SIG_BLOCK, NULL, &mask) == 0 && sigismember(&mask, signo))
        /* Its samples would queue up until the kernel's limit, then come as SIGIO. */
        note("a thread that blocked cprof's signal %s as it first ran profiled code was not "
             "sampled", cprof_signal_name(signo, name, sizeof name));
    else {
        int fd = open_counter();
        if (fd < 0 && !samplers) {
            /* The first thread's: no other will do better; the signal the program's again. */
            measured = 0;
            snprintf(reason, sizeof reason, "no CPU samples: %s", why_not(errno));
            cprof_sigaction(signo, &(struct sigaction){ .sa_handler = SIG_DFL }, 0);
            __atomic_store_n(&signo, 0, __ATOMIC_RELEASE);
        } else if (fd < 0)
            note("a thread was not sampled: %s", why_not(errno));
        else {
            struct sampler *s = cprof_alloc(sizeof *s);
            *s = (struct sampler){ .fd = fd, .next = samplers };
            ioctl(fd, PERF_EVENT_IOC_ID, &s->id);
            samplers = mine = s;
            pthread_setspecific(exit_key, s);
        }
    }
    pthread_mutex_unlock(&lock);
    errno = saved;
}

/* A forked child has copies of its parent's counters, which count the parent's
 * threads: closed, and the one thread it has sampled again by a counter of its own. */
static void forked_child(void)
{
    for (struct sampler *s = samplers; s; s = s->next) {
        if (still_mine(s))
            close(s->fd);
        s->fd = -1;
    }
    if (mine && signo && (mine->fd = open_counter()) < 0)
        note("the forked child's thread was not sampled: %s", why_not(errno));
    else if (mine && signo)
        ioctl(mine->fd, PERF_EVENT_IOC_ID, &mine->id);
}

/* ---- the program takes the sampling signal ---- */

static int owned(int sig)
{
    return sig > 0 && sig == __atomic_load_n(&signo, __ATOMIC_RELAXED);
}

static void taken(int sig, const char *call)
{
    if (!owned(sig))
        return;
    pthread_mutex_lock(&lock);
    int to = cprof_signal_free(sig);
    if (to)
        install(to);
    __atomic_store_n(&signo, to, __ATOMIC_RELEASE);
    for (struct sampler *s = samplers; s; s = s->next)
        if (still_mine(s)) {
            if (to)
                fcntl(s->fd, F_SETSIG, to);
            else
                fcntl(s->fd, F_SETFL, O_NONBLOCK);
        }
    cprof_signal_discard(sig);
    char moved[200];
    cprof_signal_moved(moved, sizeof moved, sig, to, call);
    note("%s", moved);
    pthread_mutex_unlock(&lock);
}

void cprof_overhead_start(void)
{
    static const struct cprof_signal_owner owner = { taken, owned };
    cprof_signal_owner_add(&owner);
#if !defined(__x86_64__) && !defined(__aarch64__)
    snprintf(reason, sizeof reason, "cprof cannot read the interrupted instruction on this "
                                    "kind of processor");
    return;
#endif
    if (pthread_key_create(&exit_key, thread_exit) != 0) {
        snprintf(reason, sizeof reason, "no thread-specific key was left for it");
        return;
    }
    pthread_atfork(0, 0, forked_child);
    signo = cprof_signal_free(0);
    if (!signo) {
        snprintf(reason, sizeof reason, "the program uses every realtime signal");
        return;
    }
    install(signo);
    measured = 1;
}

void cprof_overhead_reset(void)
{
    pthread_mutex_lock(&lock);
    for (struct sampler *s = samplers; s; s = s->next) {
        s->base_samples = __atomic_load_n(&s->samples, __ATOMIC_RELAXED);
        s->base_in_cprof = __atomic_load_n(&s->in_cprof, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&lock);
}

void cprof_overhead_write(struct cprof_json *j)
{
    uint64_t samples = 0, in_cprof = 0;
    struct sigaction now;
    char name[32];
    pthread_mutex_lock(&lock);
    if (signo && cprof_sigaction(signo, NULL, &now) == 0 && now.sa_sigaction != on_sample)
        note("its signal %s had another handler as the profile was written (set in code "
             "cprof-cc did not link): the samples since went to it",
             cprof_signal_name(signo, name, sizeof name));
    for (struct sampler *s = samplers; s; s = s->next) {
        if (s->fd >= 0 && !still_mine(s))
            note("the program closed a thread's counter (its descriptor): that thread's "
                 "samples stopped there");
        samples += __atomic_load_n(&s->samples, __ATOMIC_RELAXED) - s->base_samples;
        in_cprof += __atomic_load_n(&s->in_cprof, __ATOMIC_RELAXED) - s->base_in_cprof;
    }
    cprof_json_key(j, CPROF_SECTION_OVERHEAD);
    cprof_json_begin(j, '{');
    cprof_json_field_string(j, "method", measured ? "cpu samples" : "none");
    if (measured) {
        cprof_json_field_uint(j, "samples", samples);
        cprof_json_field_uint(j, "in_cprof", in_cprof);
        cprof_json_field_uint(j, "period_ns", PERIOD_NS);
        cprof_json_field_string(j, "not_covered", not_covered);
    }
    if (reason[0] || !measured)
        cprof_json_field_string(j, "reason", reason[0] ? reason : "unknown");
    cprof_json_end(j, '}');
    pthread_mutex_unlock(&lock);
}
