/* resources.c: resources beyond elapsed time (docs/resources.md), CPROF_RESOURCES.
 *
 * Each resource is a Linux perf_event counter opened by each worker's thread for
 * itself.  Its value when the profile is written is the worker's exact total.  A
 * sampled resource also interrupts its thread every `period` units (a signal on the
 * counter's overflow, Hall and Goldberg's "generalized interval timer"), and the
 * handler charges one sample to the calling context open on top of the thread's
 * shadow stack: the path is known without unwinding anything.  Nothing is added to the
 * per-call path; with no resource asked for, nothing here runs after start-up.
 *
 * Context switches and migrations are counted per worker; sampled only with a period
 * given, and then not by their own thread: their overflow comes as the thread blocks,
 * and a signal would wake it inside the blocking call (a sleep cut short, the next
 * switch caused).  A monitor thread of the runtime's takes those signals instead and
 * charges the context on top of the switched-out thread's stack, which stays there
 * while the thread waits.
 *
 * The two signals are realtime ones the program does not use (signals.c); when the
 * program sets the action of one, its sampling moves to another (every counter's
 * signal changed, the old one's pending instances discarded, its action the default
 * again) before the program's call goes on, and each move, or the end of sampling
 * when no signal is left, is said in the resources' reasons.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "resources.h"
#include "placement.h"
#include "signals.h"

struct kind {
    const char *name, *unit, *event;
    uint32_t type;
    uint64_t config;
    uint64_t period;            /* default; 0: counted, sampled only with a period given */
    int blocking;               /* counted as its thread blocks: sampled by the monitor */
};

/* CPU time is sampled every 10 ms by default, gprof's and pprof's 100 Hz: a sample (the
 * counter's timer interrupt and the signal) costs 15-23 us in a virtual machine
 * (bench/resources.sh), 2% of a busy thread's CPU at a sample per ms. */
static const struct kind kinds[] = {
    { "cpu", "ns", "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 10000000, 0 },
    { "faults", "faults", "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 100, 0 },
    { "minor-faults", "faults", "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN,
      100, 0 },
    { "major-faults", "faults", "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1, 0 },
    { "csw", "switches", "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0,
      1 },
    { "migrations", "migrations", "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS,
      0, 1 },
    { "cycles", "cycles", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 10000000, 0 },
    { "instructions", "instructions", "instructions", PERF_TYPE_HARDWARE,
      PERF_COUNT_HW_INSTRUCTIONS, 10000000, 0 },
    { "cache-misses", "misses", "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
      10000, 0 },
    { "branch-misses", "misses", "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
      10000, 0 },
};

/* The sampling signals: realtime ones, so that overflows queue rather than merge; 0
 * while there is none.  The first goes to the counting thread's handler, the second to
 * the monitor thread, which acknowledges the one it waits for. */
static int sample_signal, monitor_signal, monitor_waits;

static struct cprof_resource res[CPROF_RESOURCES_MAX];
static int nres;
static int sampling;            /* some resource is sampled: the handler is installed */
static pid_t monitor_tid;       /* the monitor thread, once it runs */
/* Counters routed to a signal, against its moves; and the reasons' notes. */
static pthread_mutex_t signal_lock = PTHREAD_MUTEX_INITIALIZER;

int cprof_resources(const struct cprof_resource **r)
{
    *r = res;
    return nres;
}

int cprof_resources_sampled(void)
{
    for (int i = 0; i < nres; i++)
        if (res[i].sampled)
            return 1;
    return 0;
}


/* A note on r, after what its reason says already (once). */
static void note(struct cprof_resource *r, const char *fmt, ...)
{
    char line[sizeof r->reason];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t n = strlen(r->reason);
    if (!strstr(r->reason, line))
        snprintf(r->reason + n, sizeof r->reason - n, "%s%s", n ? "; " : "", line);
}

/* A resource no worker could count is unavailable; one that a later worker cannot
 * count (out of descriptors) stays available, and that worker's total is unknown. */
static void unavailable(struct cprof_resource *r, const char *why)
{
    if (r->available && !r->opened) {
        r->available = 0;
        snprintf(r->reason, sizeof r->reason, "%s", why);
    }
}

/* The reason perf_event_open gave, in words a user can act on. */
static void open_failed(struct cprof_resource *r, int err)
{
    char why[sizeof r->reason];
    if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
        snprintf(why, sizeof why, "no such counter on this machine (%s)", strerror(err));
    else if (err == EACCES || err == EPERM)
        snprintf(why, sizeof why,
                 "not permitted (%s): see /proc/sys/kernel/perf_event_paranoid", strerror(err));
    else if (err == ENOSYS)
        snprintf(why, sizeof why, "perf_event_open is not available (%s)", strerror(err));
    else
        snprintf(why, sizeof why, "perf_event_open failed (%s)", strerror(err));
    unavailable(r, why);
}

/* CPROF_RESOURCES=NAME[:PERIOD],...  A bad list is said once and ignored whole: a
 * profile with half the resources asked for would be read as complete. */
static int parse(const char *spec)
{
    char buf[512];
    if (strlen(spec) >= sizeof buf) {
        fputs("cprof: CPROF_RESOURCES is too long; no resources measured\n", stderr);
        return -1;
    }
    strcpy(buf, spec);
    for (char *item = buf, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = 0;
        if (!*item) {
            fprintf(stderr, "cprof: CPROF_RESOURCES=%s has an empty item; none measured\n", spec);
            return -1;
        }
        char *colon = strchr(item, ':');
        if (colon)
            *colon = 0;
        int k = 0;
        while (k < (int)(sizeof kinds / sizeof *kinds) && strcmp(kinds[k].name, item))
            k++;
        if (k == (int)(sizeof kinds / sizeof *kinds)) {
            fprintf(stderr, "cprof: CPROF_RESOURCES: unknown resource '%s' (known: cpu, "
                            "faults, minor-faults, major-faults, csw, migrations, cycles, "
                            "instructions, cache-misses, branch-misses); none measured\n", item);
            return -1;
        }
        for (int i = 0; i < nres; i++)
            if (!strcmp(res[i].name, item)) {
                fprintf(stderr, "cprof: CPROF_RESOURCES: '%s' given twice; none measured\n", item);
                return -1;
            }
        if (nres == CPROF_RESOURCES_MAX) {
            fprintf(stderr, "cprof: CPROF_RESOURCES: more than %d resources; none measured\n",
                    CPROF_RESOURCES_MAX);
            return -1;
        }
        struct cprof_resource *r = &res[nres++];
        const struct kind *kd = &kinds[k];
        *r = (struct cprof_resource){ .name = kd->name, .unit = kd->unit, .event = kd->event,
                                      .type = kd->type, .config = kd->config,
                                      .period = kd->period, .available = 1 };
        if (colon) {
            char *end;
            errno = 0;
            unsigned long long p = strtoull(colon + 1, &end, 10);
            if (errno || end == colon + 1 || *end || p == 0 || colon[1] == '-') {
                fprintf(stderr, "cprof: CPROF_RESOURCES: '%s' is not a period (a positive "
                                "number of %s); none measured\n", colon + 1, r->unit);
                return -1;
            }
            r->period = p;
            r->monitored = kd->blocking;
        }
        r->sampled = r->period != 0;
    }
    return 0;
}

/* The thread's worker, for the handler: set when the thread opens its counters, and
 * not hidden while the thread runs the runtime's own code (its samples are the
 * program's cost all the same).  Null in a thread whose counters these are not. */
static __thread struct cprof_worker *sampled_worker;

/* One sample of resource r on worker w: charged to the context of the activation on
 * top of w's shadow stack, on the side (sequential or concurrent entry) it was entered
 * on.  Each resource's samples have one writer, the counting thread's handler or the
 * monitor, and the signal is blocked while it is handled, so plain increments are
 * exact.  On the sampled thread itself (own), a top frame that is being filled, or
 * being closed after its last clock read, is not the context the thread's calls are
 * made in (cprof_pending.context, set last as a frame opens and first as it closes):
 * that code is its caller's by the times, and the sample goes to the caller too, so
 * that a routine's CPU and its time cover the same instructions.  The monitor, on
 * another thread, cannot read that one's context: its samples are taken while the
 * thread is switched out, not in cprof's code. */
static void charge(struct cprof_worker *w, int r, int own)
{
    const struct cprof_frame *f = w->top - 1;
    if (own && f > w->stack && f->ctx != cprof_pending.context && f[-1].ctx == cprof_pending.context)
        f--;
    struct cprof_node *n = f->ctx ? f->ctx : w->root;
    /* A routine's activation entered concurrently, or a construct's body run so. */
    int concurrent = n->key && (n->key->callee < 0 ? f->kase & 1 : f->kase != CPROF_SS);
    n->samples[2 * r + concurrent]++;
}

static void on_sample(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    struct cprof_worker *w = sampled_worker;
    if (!w)
        return;         /* not a counter of this thread's (a forked child's copy) */
    int r = 0;
    while (r < nres && w->res_fd[r] != si->si_fd)
        r++;
    if (r < nres)
        charge(w, r, 1);
    cprof_placement_sample(w);
}

/* The monitor: each signal names the counter that overflowed; its worker's thread is
 * switched out, or was a moment ago, with the context it waits in on top. */
static void *monitor(void *arg)
{
    (void)arg;
    __atomic_store_n(&monitor_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
    for (;;) {
        /* The signal it waits for is read again after each: a move wakes it with the old. */
        int sig = __atomic_load_n(&monitor_signal, __ATOMIC_ACQUIRE);
        __atomic_store_n(&monitor_waits, sig, __ATOMIC_RELEASE);
        if (!sig)
            for (;;)
                pause();        /* no signal left: every one is blocked here */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        siginfo_t si;
        if (sigwaitinfo(&set, &si) < 0 || si.si_code <= 0)
            continue;           /* sent, not an overflow: a move's wake-up */
        for (struct cprof_worker *w = cprof_workers(); w; w = w->next)
            for (int r = 0; r < nres; r++)
                if (res[r].monitored && w->res_fd[r] == si.si_fd)
                    charge(w, r, 0);
    }
    return 0;
}

/* Started with every signal blocked, so that no signal of the program's is delivered to
 * it; -1 if it cannot be. */
static int start_monitor(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    int rc = pthread_create(&t, &attr, monitor, 0);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, 0);
    if (rc != 0)
        return -1;
    while (!__atomic_load_n(&monitor_tid, __ATOMIC_ACQUIRE))
        sched_yield();
    return 0;
}

/* A forked child has copies of its parent's counter descriptors, which count the
 * parent's threads: it closes them, and its profile has no resource totals. */
static void forked_child(void)
{
    for (struct cprof_worker *w = cprof_workers(); w; w = w->next)
        for (int i = 0; i < nres; i++)
            if (w->res_fd[i] >= 0) {
                close(w->res_fd[i]);
                w->res_fd[i] = -1;
            }
    sampled_worker = 0;
}

static void install(int sig)
{
    struct sigaction sa = { .sa_sigaction = on_sample, .sa_flags = SA_SIGINFO | SA_RESTART };
    sigemptyset(&sa.sa_mask);
    cprof_sigaction(sig, &sa, 0);
}

void cprof_resources_start(void)
{
    static const struct cprof_signal_owner owner = { cprof_resources_signal_taken,
                                                     cprof_resources_signal_owned };
    cprof_signal_owner_add(&owner);
    const char *spec = getenv("CPROF_RESOURCES");
    if (!spec || !*spec || parse(spec) != 0) {
        nres = 0;
        return;
    }
    cprof_node_extra = (size_t)nres * 2 * sizeof(uint64_t);
    pthread_atfork(0, 0, forked_child);
    int monitored = 0;
    for (int i = 0; i < nres; i++) {
        sampling |= res[i].sampled && !res[i].monitored;
        monitored |= res[i].monitored;
    }
    if (monitored && (!(monitor_signal = cprof_signal_free(0)) || start_monitor() != 0)) {
        for (int i = 0; i < nres; i++)
            if (res[i].monitored) {
                res[i].sampled = res[i].monitored = 0;
                note(&res[i], monitor_signal ? "counted, not sampled: the monitor thread could "
                                               "not be started"
                                             : "counted, not sampled: the program uses every "
                                               "realtime signal");
            }
        monitor_signal = 0;     /* none cprof uses */
    }
    if (!sampling)
        return;
    sample_signal = cprof_signal_free(monitor_signal);
    if (!sample_signal) {
        for (int i = 0; i < nres; i++)
            if (res[i].sampled && !res[i].monitored) {
                res[i].sampled = 0;
                note(&res[i], "counted, not sampled: the program uses every realtime signal");
            }
        sampling = 0;
        return;
    }
    install(sample_signal);
}

int cprof_resources_fd_high(int fd)
{
    struct rlimit rl;
    int floor = 1000;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (rlim_t)floor + 256 > rl.rlim_cur)
        floor = (int)(rl.rlim_cur / 2);
    int high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
    if (high < 0)
        return fd;
    close(fd);
    return high;
}

static int open_counter(struct cprof_resource *r, int disabled)
{
    struct perf_event_attr a = { .size = sizeof a, .type = r->type, .config = r->config,
                                 .disabled = disabled, .exclude_hv = 1 };
    if (r->sampled) {
        a.sample_period = r->period;
        a.wakeup_events = 1;
    }
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
        /* A paranoid level that allows user-space counting only. */
        a.exclude_kernel = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0) {
        open_failed(r, errno);
        return -1;
    }
    fd = cprof_resources_fd_high(fd);
    if (r->sampled) {
        struct f_owner_ex owner = { F_OWNER_TID,
                                    r->monitored ? monitor_tid : (pid_t)syscall(SYS_gettid) };
        if (fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
            fcntl(fd, F_SETSIG, r->monitored ? monitor_signal : sample_signal) != 0 ||
            fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
            char why[96];
            snprintf(why, sizeof why, "cannot route its overflow signal (%s)", strerror(errno));
            unavailable(r, why);
            close(fd);
            return -1;
        }
    }
    r->opened = 1;
    return fd;
}

/* On the worker's own thread: its counters count that thread only. */
void cprof_resources_open(struct cprof_worker *w)
{
    int saved = errno;
    pthread_mutex_lock(&signal_lock);       /* routed to the signals of now */
    for (int i = 0; i < nres; i++)
        w->res_fd[i] = res[i].available ? open_counter(&res[i], cprof_stopped) : -1;
    sampled_worker = w;
    sigset_t mask;
    char name[32];
    if (sampling && pthread_sigmask(SIG_BLOCK, NULL, &mask) == 0 && sigismember(&mask, sample_signal))
        for (int i = 0; i < nres; i++)
            if (res[i].sampled && !res[i].monitored)
                note(&res[i], "a thread blocked its signal %s as its counters opened: its "
                     "samples wait until it unblocks it", cprof_signal_name(sample_signal, name, sizeof name));
    pthread_mutex_unlock(&signal_lock);
    errno = saved;
}

/* ---- the program takes one of the sampling signals ---- */

int cprof_resources_signal_owned(int sig)
{
    return sig > 0 && (sig == __atomic_load_n(&sample_signal, __ATOMIC_RELAXED)
                       || sig == __atomic_load_n(&monitor_signal, __ATOMIC_RELAXED));
}

/* The counters of the resources sampled by the monitor (or not), to signal to, or
 * without a signal (0) from now on. */
static void route(int monitored, int to)
{
    for (struct cprof_worker *w = cprof_workers(); w; w = w->next)
        for (int i = 0; i < nres; i++)
            if (res[i].sampled && res[i].monitored == monitored && w->res_fd[i] >= 0) {
                if (to)
                    fcntl(w->res_fd[i], F_SETSIG, to);
                else
                    fcntl(w->res_fd[i], F_SETFL, O_NONBLOCK);
            }
}

void cprof_resources_signal_taken(int sig, const char *call)
{
    if (!cprof_resources_signal_owned(sig))
        return;
    pthread_mutex_lock(&signal_lock);
    int monitored = sig == monitor_signal;
    if (!monitored && sig != sample_signal) {
        pthread_mutex_unlock(&signal_lock);
        return;
    }
    int to = cprof_signal_free(monitored ? sample_signal : monitor_signal);
    if (to && !monitored)
        install(to);
    __atomic_store_n(monitored ? &monitor_signal : &sample_signal, to, __ATOMIC_RELEASE);
    route(monitored, to);
    if (monitored) {
        /* Woken by the old signal, the monitor waits for the new one. */
        syscall(SYS_tgkill, getpid(), monitor_tid, sig);
        while (__atomic_load_n(&monitor_waits, __ATOMIC_ACQUIRE) != to)
            sched_yield();
    }
    cprof_signal_discard(sig);
    char moved[200];
    cprof_signal_moved(moved, sizeof moved, sig, to, call);
    for (int i = 0; i < nres; i++)
        if (res[i].sampled && res[i].monitored == monitored)
            note(&res[i], "%s", moved);
    if (!to && !monitored)
        sampling = 0;
    pthread_mutex_unlock(&signal_lock);
}

/* As the profile is written: a handler set where the wrappers did not see it (a
 * library cprof-cc did not link, a raw system call) took the samples since. */
void cprof_resources_signals_check(void)
{
    struct sigaction now;
    char name[32];
    pthread_mutex_lock(&signal_lock);
    if (sampling && cprof_sigaction(sample_signal, NULL, &now) == 0 && now.sa_sigaction != on_sample)
        for (int i = 0; i < nres; i++)
            if (res[i].sampled && !res[i].monitored)
                note(&res[i], "its signal %s had another handler as the profile was written (set "
                     "in code cprof-cc did not link): the samples since went to it",
                     cprof_signal_name(sample_signal, name, sizeof name));
    pthread_mutex_unlock(&signal_lock);
}

uint64_t cprof_resource_read(const struct cprof_worker *w, int r, int *ok)
{
    uint64_t v = 0;
    *ok = w->res_fd[r] >= 0 && read(w->res_fd[r], &v, sizeof v) == (ssize_t)sizeof v;
    return *ok ? v : 0;
}

/* The writing thread's counters off while it writes the profile, so that its totals
 * and its samples end at the same point: the writing is not the program's. */
void cprof_resources_writing(int writing)
{
    struct cprof_worker *w = sampled_worker;
    if (!w || cprof_stopped)
        return;
    for (int i = 0; i < nres; i++)
        if (w->res_fd[i] >= 0)
            ioctl(w->res_fd[i], writing ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE, 0);
}

/* Stopped, the counters stop too: the totals leave out what ran meanwhile. */
void cprof_resources_enable(int on)
{
    for (struct cprof_worker *w = cprof_workers(); w; w = w->next)
        for (int i = 0; i < nres; i++)
            if (w->res_fd[i] >= 0)
                ioctl(w->res_fd[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}
