#!/usr/bin/env bash
# Resources beyond time (docs/resources.md), CPROF_RESOURCES: exact totals per worker,
# samples charged to the routine and the path on top of the thread's stack, with its
# S/C side; unavailable counters and bad lists said in one line, the run going on.
# Bounds are on what the program measured itself (its thread's CPU clock), never on
# the machine being quiet: CPU time does not stretch under load, wall time does.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > res.c <<'C'
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
static long long cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}
/* Touches n fresh pages: n minor faults (no huge pages, so one a page). */
long touch(int n)
{
    char *p = mmap(0, (size_t)n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    madvise(p, (size_t)n * 4096, MADV_NOHUGEPAGE);
    for (int i = 0; i < n; i++)
        p[(size_t)i * 4096] = 1;
    long s = 0;
    for (int i = 0; i < n; i++)
        s += p[(size_t)i * 4096];
    munmap(p, (size_t)n * 4096);
    return s;
}
/* Spins until its thread has used ms of CPU time; returns what it used. */
long long spin(int ms)
{
    long long t0 = cpu_ns(), t;
    while ((t = cpu_ns()) - t0 < ms * 1000000LL)
        ;
    return t - t0;
}
void nap(int ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t))
        ;
}
int main(void)
{
    long long cpu0 = cpu_ns();
    printf("%ld\n", touch(3000));
    long long spun = spin(200);
    nap(200);
    long long team[2] = {0, 0};
#pragma omp parallel num_threads(2)
    {
        extern int omp_get_thread_num(void);
        team[omp_get_thread_num()] = spin(100);
        /* 100 ms of CPU in the body itself, calling no profiled routine. */
        struct timespec a, b;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        do
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        while ((b.tv_sec - a.tv_sec) * 1000000000LL + b.tv_nsec - a.tv_nsec < 100000000LL);
    }
    fprintf(stderr, "spun %lld %lld %lld main_cpu %lld %lld\n", spun, team[0], team[1], cpu0, cpu_ns());
    return 0;
}
C
"$bin/cprof-cc" -fopenmp -O1 res.c -o res > cc.err 2>&1
check "compiles" "$(indent cc.err)" -- test -x res

CPROF_RESOURCES=cpu:1000000,faults:1,csw,cycles CPROF_OUT=r.out ./res > out.txt 2> err.txt
check "the run goes on and prints what $plain_cc's would" "$(indent err.txt)" -- \
    bash -c '[ "$(cat out.txt)" = 3000 ] && grep -q "^spun" err.txt && [ $(wc -l < err.txt) = 1 ]'
"$bin/cprof-report" --json r.out > r.json 2> rep.err
check "cprof-report reads it" "$(indent rep.err)" -- test -s r.json -a ! -s rep.err

expect_jq "the header declares the resources, in order, as an optional section" r.out \
    '[[.resources[] | [.name, .unit, .event, .period]], .sections]' \
    '[[["cpu","ns","task-clock",1000000],["faults","faults","page-faults",1],["csw","switches","context-switches",0],["cycles","cycles","cycles",'"$(jq 'if .resources[3].available then 10000000 else 0 end' r.out)"']], [{"name":"job","required":false},{"name":"openmp","required":false},{"name":"topology","required":false},{"name":"placement","required":false},{"name":"regions","required":false},{"name":"resources","required":false},{"name":"sources","required":false},{"name":"timing","required":false},{"name":"overhead","required":false}]]'
expect_jq "paths rows carry samples columns for the sampled resources only" r.out \
    '.columns.paths[-4:]' '["s_samples@cpu","c_samples@cpu","s_samples@faults","c_samples@faults"]'

if ! jq -e '.resources[0].available' r.out > /dev/null; then
    why=$(jq -r '.resources[0].reason' r.out)
    skip "samples and totals" "perf_event_open refused here: $why"
    expect_jq "every unavailable resource says why" r.out \
        '[.resources[] | select(.available | not) | .reason | length > 0] | all' 'true'
    finish
    exit
fi
read -r _ spun t0 t1 _ cpu0 cpu1 < err.txt

# Faults sampled at period 1 are exact: touch's own, one a page it touched.
expect_jq "touch: its 3000 page faults, sequential (period 1)" r.json \
    '.resources[1].routines[] | select(.name == "touch") | [.s_samples, .c_samples]' '[3000, 0]'
expect_jq "the path main > touch holds them" r.json \
    '[.paths[] | select(.routine == "touch") | .samples.faults]' '[[3000, 0]]'

# CPU: a sample per ms of CPU; spin's samples match the CPU time it measured itself.
# Those of its contexts and of cpu_ns's under them: cpu_ns calls the C library, so it is
# timed (docs/cprof-cc.md), and a sample in it is its own.
check_near() {  # NAME GOT WANT TOLERANCE_PCT
    check "$1 (got $2, want $3 within $4%)" -- \
        awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100 + 1) }'
}
under_spin='[.paths as $p | $p[] | select(.routine == "spin" or (.routine == "cpu_ns" and $p[.parent].routine == "spin"))'
seq_cpu=$(jqv r.json "$under_spin"' | .samples.cpu[0]] | add')
check_near "spin, entered sequentially: cpu samples = its own CPU ms" "$seq_cpu" $((spun / 1000000)) 5
conc=$(jqv r.json "$under_spin"' | .samples.cpu[1]] | add')
check_near "spin in the region, both threads: concurrent cpu samples" "$conc" $(((t0 + t1) / 1000000)) 5
expect_jq "spin in the region: under main's <parallel> context, concurrent only" r.json \
    '[.paths as $p | $p[] | select(.routine == "spin" and .parent != null and $p[.parent].routine == "<parallel>") | .samples.cpu[0]]' '[0]'
# The body's own CPU, on both threads of the team: its context's, concurrent as the
# calls made in the region are (S-C).
body=$(jq -r '[.paths[] | select(.routine == "<parallel>") | .samples.cpu] | transpose | map(add) | map(tostring) | join(" ")' r.json)
check_near "the region's body: 2 x 100 ms of CPU in its <parallel> context, concurrent ($body)" "${body#* }" 200 5
check "the region's body: no sequential CPU samples ($body)" -- test "${body%% *}" = 0
nap_cpu=$(jqv r.json '[.paths[] | select(.routine == "nap") | .samples.cpu | add] | add')
check "nap sleeps 200 ms: at most 5 ms of CPU sampled (got $nap_cpu)" -- test "$nap_cpu" -le 5
nap_wall=$(jqv r.json '.routines[] | select(.name == "nap") | .s_caller_t')
check "nap: its wall time is at least the 200 ms it slept (got $nap_wall ns)" -- \
    test "$nap_wall" -ge 200000000

# Totals: exact, from the counters.  The initial thread's counter opens as the runtime
# starts, before main: its CPU total covers main's span of its CPU clock and is at most
# that clock's reading at the end of main, plus the little the exit took.  The kernel
# keeps the two clocks apart (perf's task-clock, the thread's CPU clock): they agree
# within a fraction of a percent, so 1% either way.  The exit's share is 50 ms at most:
# on a loaded machine one run of the suite took 29 ms there (a quiet one, a few).
total0=$(jqv r.json '.resources[0].totals[0]')
check "worker 0's cpu total: at least main's CPU ($((cpu1 - cpu0)) ns), at most the thread's ($cpu1 ns) + 50 ms, 1% either way (got $total0)" -- \
    bash -c "[ $((total0 * 100)) -ge $(((cpu1 - cpu0) * 99)) ] && [ $((total0 * 100)) -le $(((cpu1 + 50000000) * 101)) ]"
faults0=$(jqv r.json '.resources[1].totals[0]')
samples0=$(jqv r.json '[([.paths[] | .samples.faults | add] | add), (.resources[1].outside | map(add) | add)] | add')
all_faults=$(jqv r.json '.resources[1].totals | add')
# A burst of faults inside one system call is one signal: a few may share a sample.
check "faults at period 1: the samples are the totals, within 1% ($samples0 of $all_faults)" -- \
    bash -c "[ $samples0 -le $all_faults ] && [ $((samples0 * 100)) -ge $((all_faults * 99)) ]"
expect_jq "csw: counted per worker, not sampled, no routines" r.json \
    '.resources[2] | [.period, (.totals | map(. >= 1) | all), .routines]' '[0, true, []]'
expect_jq "cycles: measured, or unavailable with a reason" r.json \
    '.resources[3] | if .available then (.totals | map(. > 0) | all) else (.reason | length > 0) end' 'true'

# The text report.
"$bin/cprof-report" --resources r.out > text.txt 2> text.err
check "--resources: the three sections" "$(indent text.err)" -- \
    bash -c 'grep -q "^Resources per worker" text.txt && grep -q "^Resources per routine" text.txt && grep -q "^Resources per call path" text.txt'
check "--resources: touch's faults row" "$(grep touch text.txt | head -3)" -- \
    grep -Eq '^faults +[0-9.]+ +3000 +0 +3000 +3000 +touch$' text.txt
spin_line=$(grep -n 'long long spun = spin(200);' res.c | cut -d: -f1)
check "--resources: a call path's row names the site it was called from (res.c:$spin_line)" \
    "$(grep ' main > spin$' text.txt)" -- grep -Eq "^cpu .* res\.c:$spin_line +main > spin$" text.txt
check "--resources: the counted-only and unavailable ones said under the table" -- \
    bash -c 'grep -q "^csw (context-switches): counted per worker, not sampled" text.txt &&
             (grep -q "^cycles (cycles): not measured: " text.txt || grep -q "^cycles (cycles): a sample every" text.txt)'
"$bin/cprof-report" --csv resource-routines r.out | tr -d '\r' > rr.csv
check "--csv resource-routines: touch's faults, raw" "$(indent rr.csv)" -- \
    grep -q '^faults,[0-9.]*,3000,0,3000,3000,,touch,res.c$' rr.csv
"$bin/cprof-report" --csv resources r.out | tr -d '\r' > rw.csv
check "--csv resources: a row per resource and worker" "$(indent rw.csv)" -- \
    bash -c '[ "$(head -1 rw.csv)" = resource,unit,worker,tid,total,samples_outside,pct_elapsed ] && [ $(grep -c "^cpu," rw.csv) = 2 ]'
# The per-worker table's unit is the one its totals are printed in (issue 29: "ns" over
# milliseconds): cpu's ms in the text, ns in CSV, the same totals from the same profile
# (the CSV's ns rounded to the text's 3 decimals of ms, half up, as it prints them).
units_ok=$(awk -F, 'NR > 1 && $1 == "cpu" { us = int(($5 + 500) / 1000); printf "cpu ms %d %d %d.%03d\n", $3, $4, int(us / 1000), us % 1000 }' rw.csv)
units_text=$(sed -n '/^Resources per worker/,/^Resources per routine/p' text.txt | awk '$1 == "cpu" && $3 ~ /^[0-9]+$/ { print $1, $2, $3, $4, $5 }')
check "--resources: cpu's totals per worker are in ms, and are the CSV's ns (one row per worker)" \
    "text: $units_text" "csv:  $units_ok" -- \
    bash -c '[ -n "$1" ] && [ "$1" = "$2" ] && [ "$(head -1 rw.csv | cut -d, -f2)" = unit ] && grep -q "^cpu,ns," rw.csv' _ "$units_text" "$units_ok"

# Summing: two runs alike add up; runs with other resources are refused in one line.
"$bin/cprof-report" --json r.out r.out > rr.json
expect_jq "two files: totals and samples doubled" rr.json \
    '[(.resources[1].totals[0] == 2 * '"$faults0"'), ([.paths[] | select(.routine == "touch") | .samples.faults[0]] == [6000])]' '[true, true]'
CPROF_RESOURCES=cpu CPROF_OUT=c.out ./res > /dev/null 2>&1
expect_jq "cpu without a period: a sample per 10 ms of CPU (gprof's rate)" c.out \
    '.resources[0] | [.name, .period]' '["cpu",10000000]'
"$bin/cprof-report" r.out c.out > /dev/null 2> mix.err; st=$?
check "other resources: refused in one line" "status $st" "$(indent mix.err)" -- \
    bash -c "[ $st = 1 ] && [ \$(wc -l < mix.err) = 1 ] && grep -q 'same CPROF_RESOURCES' mix.err"

# A bad list: one line, the run as gcc's, a profile without resources.
CPROF_RESOURCES=cpu,bogus CPROF_OUT=b.out ./res > bout.txt 2> berr.txt; st=$?
check "an unknown resource: one line, nothing measured, the run goes on" "status $st" "$(indent berr.txt)" -- \
    bash -c "[ $st = 0 ] && grep -q \"^cprof: CPROF_RESOURCES: unknown resource 'bogus'\" berr.txt &&
             [ \$(grep -c '^cprof:' berr.txt) = 1 ] && [ \"\$(cat bout.txt)\" = 3000 ] && ! jq -e .resources b.out > /dev/null"
CPROF_RESOURCES=cpu:0 CPROF_OUT=b.out ./res > /dev/null 2> berr.txt
check "a zero period is refused" "$(indent berr.txt)" -- grep -q "is not a period" berr.txt

# Context switches sampled (a period given): charged by the runtime's monitor thread to
# the context the switched-out thread waits in.  Two threads hand a turn back and forth
# 2000 times in pingpong, each wait a switch; a third sleeps 1 ms 100 times, and no
# sleep may end early (a signal to the sleeping thread itself would cut it short).
cat > pp.c <<'C'
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;
static volatile long sink;
void compute(int n) { for (int i = 0; i < n; i++) sink += i; }
void pingpong(int me)
{
    for (int i = 0; i < 2000; i++) {
        pthread_mutex_lock(&m);
        while (turn != me)
            pthread_cond_wait(&cv, &m);
        turn = !me;
        pthread_cond_signal(&cv);
        pthread_mutex_unlock(&m);
    }
}
void *player(void *arg)
{
    compute(100000);
    pingpong((int)(long)arg);
    return 0;
}
int sleeper(void)
{
    int early = 0;
    for (int i = 0; i < 100; i++) {
        struct timespec t = {0, 1000000};
        early += nanosleep(&t, 0) != 0 && errno == EINTR;
    }
    return early;
}
void *sleeping(void *arg) { *(int *)arg = sleeper(); return 0; }
int main(void)
{
    pthread_t a, b, c;
    int early = -1;
    pthread_create(&a, 0, player, (void *)0L);
    pthread_create(&b, 0, player, (void *)1L);
    pthread_create(&c, 0, sleeping, &early);
    pthread_join(a, 0);
    pthread_join(b, 0);
    pthread_join(c, 0);
    printf("%d sleeps cut short\n", early);
    return 0;
}
C
"$plain_cc" -O1 -pthread pp.c -o pp_gcc
"$bin/cprof-cc" -O1 -pthread pp.c -o pp > /dev/null 2>&1
# (csw alone: a CPU sample, which its own thread takes, can cut a sleep short as gprof's
# SIGPROF can: docs/resources.md.)
CPROF_RESOURCES=csw:1 CPROF_OUT=pp.out ./pp > pp.txt 2> pp.err
check "csw sampled: the program prints what $plain_cc's build prints (no sleep cut short)" \
    "$(cat pp.txt)" "$(indent pp.err)" -- bash -c '[ "$(cat pp.txt)" = "$(./pp_gcc)" ] && [ ! -s pp.err ]'
"$bin/cprof-report" --json pp.out > pp.json
if jq -e '.resources[0] | .available and .period == 1' pp.json > /dev/null; then
    got=$(jqv pp.json '[.resources[0].routines[] | select(.name == "pingpong") | .s_samples] | add // 0')
    all=$(jqv pp.json '[.resources[0].routines[] | .s_samples + .c_samples] | add // 0')
    check "csw sampled: pingpong has the switches of its waits ($got of $all samples; at least 2000, 95%)" -- \
        bash -c "[ $got -ge 2000 ] && [ \$(($got * 100)) -ge \$(($all * 95)) ]"
    # The monitor charges a switch when it takes its signal: on a loaded machine it may
    # take the last ones after sleeper returned, charging them to where its thread is
    # then (sleeping, or no routine).  The thread's samples there have all 100 sleeps'.
    sl=$(jqv pp.json '([.paths[] | select(.routine == "sleeping") | .worker_calls | index(1)] | first) as $w |
        ([.resources[0].routines[] | select(.name == "sleeper" or .name == "sleeping") | .s_samples + .c_samples] | add)
        + (.resources[0].outside[$w] | add)')
    check "csw sampled: sleeper's thread has its 100 sleeps' switches, in sleeper or after it (got $sl)" -- \
        test "${sl:-0}" -ge 100
else
    skip "csw sampled: charged to the waiting routine" "$(jq -r '.resources[0].reason' pp.json)"
fi

# A forked child does not read its parent's counters as its own.
cat > fork.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
volatile long sink;
void work(void) { for (long i = 0; i < 2000000; i++) sink += i; }
int main(void)
{
    work();
    pid_t p = fork();
    if (p == 0) {
        work();
        exit(0);
    }
    waitpid(p, 0, 0);
    printf("child %d\n", (int)p);
    return 0;
}
C
"$bin/cprof-cc" -O1 fork.c -o fork > /dev/null 2>&1
child=$(CPROF_RESOURCES=cpu CPROF_OUT=f.%p.out ./fork | sed -n 's/^child //p')
expect_jq "a forked child: its worker from before the fork has no total" "f.$child.out" \
    '[.workers[0].resources[0][0]]' '[null]'
parent=$(ls f.*.out | grep -v "f.$child.out" | head -1)
expect_jq "its parent: a total" "$parent" '[.workers[0].resources[0][0] > 0]' '[true]'

# The program's descriptors are its own: the counters sit above them.
cat > fds.c <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(void) { int fd = open("/dev/null", O_RDONLY); printf("%d\n", fd); return 0; }
C
"$bin/cprof-cc" -O1 fds.c -o fds_prof > /dev/null 2>&1
"$plain_cc" -O1 fds.c -o fds_gcc
check "open() returns the descriptor it does under gcc" -- \
    bash -c '[ "$(CPROF_RESOURCES=cpu,faults,csw CPROF_OUT=f.out ./fds_prof)" = "$(./fds_gcc)" ]'
finish
