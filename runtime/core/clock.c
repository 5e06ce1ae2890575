/* clock.c: the tick source.
 *
 * Workers compare entry and exit marks taken on possibly different CPUs, so the clock
 * must be one that all CPUs share.  The time-stamp counter is, when the CPU says it is
 * invariant (constant_tsc and nonstop_tsc); it costs a third of a vDSO clock_gettime.
 * Ticks are converted to nanoseconds with a rate measured against CLOCK_MONOTONIC over
 * the whole run, so no calibration delay is paid at start-up.
 * CPROF_CLOCK=monotonic forces clock_gettime; CPROF_MODE=count reads no clock at all
 * (counts only, at the least cost per call).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core.h"

enum cprof_clock_kind cprof_clock;

static uint64_t start_ticks, start_mono, start_unix;
/* Where the profile's elapsed time and start time count from: the start, or the last
 * cprof_reset().  The rate is still measured from the start. */
static uint64_t origin_mono, origin_unix;

uint64_t cprof_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Both flags must be present in /proc/cpuinfo; anything less and TSC ticks may drift
 * between CPUs or stop in idle states. */
static int tsc_is_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (cprof_setting_word("CPROF_CLOCK", (const char *const[]){ "monotonic", 0 }, 1,
                           "the time-stamp counter where it is invariant") == 0)
        return 0;
    /* read(2), not stdio, whose buffer would come from the program's malloc. */
    int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    static char text[1 << 16];
    size_t n = 0;
    ssize_t got;
    char *line = 0, *eol = 0;
    while (!eol && n < sizeof text - 1 && (got = read(fd, text + n, sizeof text - 1 - n)) > 0) {
        n += (size_t)got;
        text[n] = 0;
        line = strncmp(text, "flags", 5) == 0 ? text : strstr(text, "\nflags");
        eol = line ? strchr(line + 1, '\n') : 0;
    }
    close(fd);
    if (!eol)
        return 0;
    *eol = 0;
    return strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
#else
    return 0;
#endif
}

void cprof_clock_start(void)
{
    struct timespec ts;
    if (cprof_setting_word("CPROF_MODE", (const char *const[]){ "count", 0 }, 1,
                           "calls are counted and timed") == 0)
        cprof_clock = CPROF_CLOCK_NONE;
    else
        cprof_clock = tsc_is_invariant() ? CPROF_CLOCK_TSC : CPROF_CLOCK_MONOTONIC;
    clock_gettime(CLOCK_REALTIME, &ts);
    start_unix = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    start_mono = cprof_monotonic_ns();
    start_ticks = cprof_ticks();
    origin_mono = start_mono;
    origin_unix = start_unix;
}

void cprof_clock_reset(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    origin_unix = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    origin_mono = cprof_monotonic_ns();
}

double cprof_ns_per_tick(void)
{
    if (cprof_clock != CPROF_CLOCK_TSC)
        return 1.0;
    uint64_t ticks = cprof_ticks() - start_ticks;
    uint64_t ns = cprof_monotonic_ns() - start_mono;
    /* Too short a run to measure the rate well: measure over one more millisecond. */
    while (ns < 1000000) {
        ticks = cprof_ticks() - start_ticks;
        ns = cprof_monotonic_ns() - start_mono;
    }
    return (double)ns / (double)ticks;
}

uint64_t cprof_start_unix_ns(void) { return origin_unix; }

const char *cprof_clock_name(void)
{
    static const char *const names[] = { "tsc", "monotonic", "none" };
    return names[cprof_clock];
}
uint64_t cprof_elapsed_ns(void) { return cprof_monotonic_ns() - origin_mono; }
