#!/usr/bin/env bash
# What profiling cost, measured (docs/overhead.md): the profile's "overhead" key has CPU
# samples, of which those in cprof's code, consistent (in_cprof <= samples, samples for
# a program that runs on the CPU); a program where cprof is dominant (a tiny routine
# called 4 x 10^7 times, each call timed: sampled, its site would count the untimed ones
# in the program's code, docs/semantics.md) has a share far above one that calls almost
# nothing, each share
# read from its own profile (CPU samples: the load of the machine does not enter); the
# summary prints the share and what it leaves out, or why there is none (--json too,
# two runs summed); a program that
# takes SIGPROF and sleeps behaves as under gcc (no sleep cut short); cprof-report
# refuses an inconsistent key in one line.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > hot.c <<'EOF'
#include <stdio.h>
__attribute__((noinline)) int tiny(int x) { return x * 3 + 1; }
int main(void)
{
    int s = 0;
    for (long i = 0; i < 40000000; i++)
        s += tiny((int)i);
    printf("%d\n", s);
    return 0;
}
EOF
cat > cold.c <<'EOF'
#include <stdio.h>
__attribute__((noinline)) double work(long n)
{
    double s = 0;
    for (long i = 1; i <= n; i++)
        s += 1.0 / ((double)i * (double)i);
    return s;
}
int main(void) { printf("%.6f\n", work(300000000)); return 0; }
EOF
for p in hot cold; do
    "$bin/cprof-cc" -O2 $p.c -o $p 2> cc.err || nok "cprof-cc compiles $p.c" "$(indent cc.err)"
    timing=sampled
    [ $p = hot ] && timing=every
    CPROF_TIMING=$timing CPROF_OUT=$tmp/$p.out ./$p > /dev/null 2> $p.err
    expect_jq "$p: the overhead is measured by CPU samples" $p.out \
        '[.overhead.method, (.sections | map(.name) | index("overhead") != null)]' '["cpu samples", true]'
    expect_jq "$p: samples were taken (it ran long enough on the CPU), in_cprof <= samples" $p.out \
        '.overhead | [.samples > 10, .in_cprof <= .samples, .period_ns > 0, (.not_covered | length > 0)]' \
        '[true, true, true, true]'
    "$bin/cprof-report" $p.out > $p.txt 2> rep.err || nok "$p: cprof-report reads it" "$(indent rep.err)"
    # The summary's sentence, with the profile's own figures.
    k=$(jq .overhead.in_cprof $p.out) n=$(jq .overhead.samples $p.out)
    pct=$(awk -v k=$k -v n=$n 'BEGIN { printf "%.1f", 100 * k / n }')
    check "$p: the summary says overhead, measured: $pct% of CPU time ($k of $n samples in cprof's code" \
        "$(indent $p.txt 40)" -- \
        grep -qF "overhead, measured: $pct% of CPU time ($k of $n samples in cprof's code" $p.txt
    check "$p: the summary says what the measure does not cover" "$(indent $p.txt 40)" -- \
        grep -q "Not covered by the measure: the calls' inline parts" <(tr '\n' ' ' < $p.txt)
done
# --json, and two runs summed: the samples of both.
CPROF_TIMING=every CPROF_OUT=$tmp/hot2.out ./hot > /dev/null
"$bin/cprof-report" --json hot.out > hot.json
expect_jq "--json: the profile's overhead" hot.json '.overhead' "$(jq -c '.overhead' hot.out)"
"$bin/cprof-report" --json hot.out hot2.out > sum.json
expect_jq "--json of two runs: their samples summed" sum.json \
    '.overhead | [.method, .samples, .in_cprof]' \
    "[\"cpu samples\", $(jq -s '.[0].overhead.samples + .[1].overhead.samples' hot.out hot2.out), $(jq -s '.[0].overhead.in_cprof + .[1].overhead.in_cprof' hot.out hot2.out)]"

# Summed with a file that could sample nothing, and with one written before the measure:
# the measured files' figures, and which runs are not in them.
jq -c '.overhead = {"method": "none", "reason": "no CPU samples: not permitted"}' hot2.out > none2.out
jq -c 'del(.overhead) | .sections |= map(select(.name != "overhead"))' hot2.out > old.out
for other in none2 old; do
    "$bin/cprof-report" hot.out $other.out > mixed.txt 2> rep.err || nok "cprof-report sums hot.out and $other.out" "$(indent rep.err)"
    check "summed with $other.out: the measured file's share" "$(indent mixed.txt 40)" -- \
        grep -qF "overhead, measured: $(awk -v k=$(jq .overhead.in_cprof hot.out) -v n=$(jq .overhead.samples hot.out) \
            'BEGIN { printf "%.1f", 100 * k / n }')% of CPU time ($(jq .overhead.in_cprof hot.out) of $(jq .overhead.samples hot.out) samples" mixed.txt
done
check "summed with a file that sampled nothing: its run left out, and why" "$(indent mixed.txt 40)" -- \
    grep -q "overhead, not measured in 1 of the 2 files (their runs are not in the figures above): no CPU samples: not permitted." \
    <("$bin/cprof-report" hot.out none2.out | tr '\n' ' ')
check "summed with an older file: its run left out" "$(indent mixed.txt 40)" -- \
    grep -q "overhead, measured: 1 of the 2 files were written by an older cprof, which did not measure it" \
    <(tr '\n' ' ' < mixed.txt)

# Dominant against almost nothing, from the two profiles' figures.
share() { jq '.overhead | .in_cprof / .samples' "$1"; }
hot=$(share hot.out) cold=$(share cold.out)
check "4 x 10^7 timed calls of a tiny routine: at least half its CPU samples in cprof's code ($hot)" -- \
    awk -v s="$hot" 'BEGIN { exit !(s >= 0.5) }'
check "a single long call: at most 5% in cprof's code ($cold)" -- \
    awk -v s="$cold" 'BEGIN { exit !(s <= 0.05) }'

# as_gcc NAME WHAT [LINK...]: NAME.c built by gcc and by cprof-cc prints the same
# (NAME.out the profile).
as_gcc() {
    "$plain_cc" -O2 $1.c -o $1.plain "${@:3}"
    "$bin/cprof-cc" -O2 $1.c -o $1 "${@:3}" 2> cc.err || nok "cprof-cc compiles $1.c" "$(indent cc.err)"
    local want got
    want=$(./$1.plain)
    got=$(CPROF_OUT=$tmp/$1.out ./$1 2> $1.err)
    check "$2: as under gcc" "$plain_cc's: $want" "cprof's:  $got" "$(indent $1.err)" -- \
        [ "$got" = "$want" ]
}

# Every thread that runs profiled code is sampled: two OpenMP threads spinning give
# samples for (at least 60% of) the user CPU time of both.
cat > team.c <<'EOF'
#include <stdio.h>
__attribute__((noinline)) double spin(long n) { volatile double x = 0; for (long i = 0; i < n; i++) x += (double)i; return x; }
int main(void)
{
    double s = 0;
#pragma omp parallel num_threads(2) reduction(+:s)
    s += spin(100000000);
    printf("%g\n", s);
    return 0;
}
EOF
"$bin/cprof-cc" -fopenmp -O2 team.c -o team 2> cc.err || nok "cprof-cc compiles team.c" "$(indent cc.err)"
CPROF_OUT=$tmp/team.out /usr/bin/time -f %U -o team.user ./team > /dev/null
expect_jq "two threads: samples for both threads' user CPU ($(cat team.user) s)" team.out \
    "[(.workers | length), .overhead.samples * .overhead.period_ns >= 0.6 * $(cat team.user) * 1e9]" '[2, true]'

# A thread that blocks every signal (a signal-handling thread's habit) and runs
# profiled code: not sampled (its samples would queue up to the kernel's limit, then
# come as SIGIO), and the profile says so; the main thread's samples go on.
cat > blocked.c <<'EOF'
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
__attribute__((noinline)) double spin(long n) { volatile double x = 0; for (long i = 0; i < n; i++) x += (double)i; return x; }
static void *run(void *arg) { (void)arg; static double r; r = spin(50000000); return &r; }
int main(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    pthread_create(&t, 0, run, 0);
    pthread_sigmask(SIG_SETMASK, &old, 0);
    double s = spin(50000000);
    void *r;
    pthread_join(t, &r);
    printf("%g\n", s + *(double *)r);
    return 0;
}
EOF
as_gcc blocked "a thread with every signal blocked" -lpthread
expect_jq "a thread with every signal blocked: not sampled, said; the main thread's samples go on" blocked.out \
    '[(.workers | length), .overhead.samples > 10, .overhead.reason]' \
    '[2, true, "a thread that blocked cprof'"'"'s signal SIGRTMAX (64) as it first ran profiled code was not sampled"]'

# cprof_reset() after the hot part, then one long call: the samples count from the
# reset, as the rest of the profile does (the hot part's would make the share ~50%).
cat > reset.c <<'EOF'
#include <cprof.h>
#include <stdio.h>
__attribute__((noinline)) int tiny(int x) { return x * 3 + 1; }
__attribute__((noinline)) double work(long n)
{
    double s = 0;
    for (long i = 1; i <= n; i++)
        s += 1.0 / ((double)i * (double)i);
    return s;
}
int main(void)
{
    int s = 0;
    for (long i = 0; i < 10000000; i++)
        s += tiny((int)i);
    cprof_reset();
    printf("%d %.6f\n", s, work(300000000));
    return 0;
}
EOF
"$bin/cprof-cc" -O2 reset.c -o reset 2> cc.err || nok "cprof-cc compiles reset.c" "$(indent cc.err)"
CPROF_OUT=$tmp/reset.out ./reset > /dev/null
expect_jq "cprof_reset(): the samples count from it (at most 5% in cprof's code, some taken)" reset.out \
    '.overhead | [.samples > 10, .in_cprof <= 0.05 * .samples]' '[true, true]'

# The program's SIGPROF (a profiling timer of its own, no SA_RESTART) and its sleeps:
# as under gcc, every SIGPROF its own, no sleep cut short (a sample taken in the kernel
# would wake a thread about to sleep: cprof samples user-mode CPU only; with kernel
# time sampled too, 3 of the 5,000 sleeps were cut short in one run of three).
cat > prog.c <<'EOF'
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
static volatile sig_atomic_t prof, other;
static void on(int sig, siginfo_t *si, void *uc) { (void)uc; if (sig == SIGPROF && si->si_code == SI_KERNEL) prof++; else other++; }
__attribute__((noinline)) double spin(long n) { volatile double x = 0; for (long i = 0; i < n; i++) x += (double)i; return x; }
__attribute__((noinline)) int nap(void) { struct timespec ts = { 0, 1000 }; return nanosleep(&ts, 0); }
int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGPROF, &sa, 0);
    struct itimerval it = { { 0, 5000 }, { 0, 5000 } };
    setitimer(ITIMER_PROF, &it, 0);
    spin(50000000);
    it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_PROF, &it, 0);
    int cut = 0;
    for (int i = 0; i < 5000; i++) {
        spin(20000);
        if (nap() != 0 && errno == EINTR)
            cut++;
    }
    printf("SIGPROF taken: %s; other signals: %d; sleeps cut short: %d of 5000\n",
           prof > 0 ? "yes" : "no", (int)other, cut);
    return 0;
}
EOF
as_gcc prog "a program's own SIGPROF and sleeps"
expect_jq "a program's own SIGPROF: the overhead's samples go on beside it" prog.out \
    '[.overhead.method, .overhead.samples > 0, .overhead.reason]' '["cpu samples", true, null]'

# A program that closes every descriptor it did not open (a daemon's habit), then
# opens a file: it gets the number gcc's build gets, and cprof never touches it (its
# counter's number now the program's); the profile says the samples stopped.
cat > closer.c <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) double spin(long n) { volatile double x = 0; for (long i = 0; i < n; i++) x += (double)i; return x; }
int main(void)
{
    spin(20000000);
    for (int fd = 3; fd < 4096; fd++)
        close(fd);
    int fd = open("/dev/null", O_RDONLY);
    spin(20000000);
    printf("opened %d, still open at exit: %s\n", fd, fcntl(fd, F_GETFD) >= 0 ? "yes" : "no");
    return 0;
}
EOF
as_gcc closer "every descriptor closed, a file opened"
expect_jq "every descriptor closed: the profile says the samples stopped" closer.out '.overhead.reason' \
    '"the program closed a thread'"'"'s counter (its descriptor): that thread'"'"'s samples stopped there"'

# No realtime signal free from the start (a library's constructor, built by gcc, takes
# them all): nothing is sampled, and the profile and the summary say why.
cat > all.c <<'EOF'
#include <signal.h>
static void on(int s) { (void)s; }
__attribute__((constructor)) static void take(void) { for (int s = SIGRTMIN; s <= SIGRTMAX; s++) signal(s, on); }
int taken(void) { return SIGRTMAX - SIGRTMIN + 1; }
EOF
cat > main.c <<'EOF'
#include <stdio.h>
int taken(void);
int f(int x) { return x + 1; }
int main(void) { printf("%d %d\n", f(1), taken() > 0); return 0; }
EOF
"$plain_cc" -O1 -fPIC -shared all.c -o liball.so
"$bin/cprof-cc" -O1 main.c -o none -L. -lall -Wl,-rpath,"$tmp" 2> cc.err || nok "cprof-cc compiles main.c" "$(indent cc.err)"
CPROF_OUT=$tmp/none.out ./none > /dev/null
expect_jq "every realtime signal taken: not measured, and why" none.out '.overhead' \
    '{"method": "none", "reason": "the program uses every realtime signal"}'
"$bin/cprof-report" none.out > none.txt 2> rep.err || nok "cprof-report reads it" "$(indent rep.err)"
check "every realtime signal taken: the summary says the overhead was not measured" "$(indent none.txt 40)" -- \
    grep -qx "overhead, not measured: the program uses every realtime signal." none.txt
expect_jq "every realtime signal taken: --json says why" <("$bin/cprof-report" --json none.out) '.overhead' \
    '{"method": "none", "unmeasured_files": 1, "reason": "the program uses every realtime signal"}'
check "every realtime signal taken: no measured share printed" -- bash -c "! grep -q 'overhead, measured' $tmp/none.txt"

# An inconsistent key: one line, exit status 1.
bad() {
    jq -c "$2" hot.out > bad.out
    "$bin/cprof-report" bad.out > /dev/null 2> bad.err
    rc=$?
    check "cprof-report refuses $1 in one line" "status $rc" "$(indent bad.err)" -- \
        [ $rc = 1 -a "$(wc -l < bad.err)" = 1 ] && grep -q "overhead" bad.err
}
bad "in_cprof above samples" '.overhead.in_cprof = .overhead.samples + 1'
bad "an unknown method" '.overhead.method = "guess"'
bad "cpu samples without a period" 'del(.overhead.period_ns)'
bad "none without a reason" '.overhead = {"method": "none"}'
bad "the key without its section" '.sections |= map(select(.name != "overhead"))'
finish
