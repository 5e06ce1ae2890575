#!/usr/bin/env bash
# Sampled timing (issue 30, docs/semantics.md "Sampled timing"): under the default
# CPROF_TIMING=sampled, a hot routine whose activations are short is timed on one
# activation in "period", its time columns the estimate (timed time x calls / timed),
# its "sampled" rows saying what the estimate is made of; every call still counted.  A
# routine that takes long, and a recursive one, are timed on every activation; a
# sampled one whose timed activation turns out long is timed on every one again.
# CPROF_TIMING=every times every activation and writes no "sampled" rows.  Every check
# holds on a loaded machine: the estimate is compared with its own parts, and times
# only with lower bounds the program's sleeps guarantee.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > prog.c <<'C'
#include <stdio.h>
#include <time.h>
/* nanosleep itself, not a profiled routine: the activations below make no call */
#define SLEEP_US(us) nanosleep(&(struct timespec){ 0, (us) * 1000 }, 0)
/* hot and short: sampled */
__attribute__((noinline)) int tiny(int x) { return x * 3 + 1; }
/* 2 ms an activation: never sampled */
__attribute__((noinline)) void slow(void) { SLEEP_US(2000); }
/* recursive: its activations nest in its own, never sampled */
__attribute__((noinline)) int rec(int n) { return n <= 0 ? 0 : 1 + rec(n - 1); }
/* short for 20000 calls, then 100 calls of 200 us each */
__attribute__((noinline)) int turns(int i)
{
    if (i >= 20000)
        SLEEP_US(200);
    return i;
}
int main(void)
{
    /* main's own work (50 M adds): its self time holds its callees' estimates' error */
    volatile long own = 0;
    for (long i = 0; i < 50000000; i++)
        own += i;
    long s = 0;
    for (int i = 0; i < 200000; i++)
        s += tiny(i);
    for (int i = 0; i < 50; i++)
        slow();
    for (int i = 0; i < 20000; i++)
        s += rec(2);
    for (int i = 0; i < 20100; i++)
        s += turns(i);
    printf("%ld\n", s);
    return 0;
}
C
"$bin/cprof-cc" -O2 prog.c -o prog > cc.err 2>&1
check "build the program" "$(indent cc.err)" -- test -x prog
"$plain_cc" -O2 prog.c -o ref && ./ref > ref.txt

./prog > out.txt 2> err.txt
check "sampled (the default): the program's output is $plain_cc's, nothing on stderr" "$(indent err.txt)" -- \
    bash -c 'cmp -s out.txt ref.txt && test ! -s err.txt'
p=cprof.out
expect_jq "the header's timing: sampled, its figures" $p \
    '.timing | [.mode, (.period | . > 1), (.min_activations | . >= 1), (.short_ns > 0),
                (.call_cost_ns > 0), (.short_ns >= .call_cost_ns)]' \
    '["sampled",true,true,true,true,true]'
# What the correction derives from, measured on the probe (docs/semantics.md): an empty
# timed activation's time and an untimed call's cost, both measured, the untimed path
# cheaper than a timed call (about half its instructions, no clock read: a probe round
# whose slot was not sampled throughout measured a timed call, and the correction came
# out 0), and the correction their difference.
expect_jq "the header's timing: inner_ns and untimed_ns measured, untimed below call_cost_ns, correction their difference" $p \
    '.timing | [(.inner_ns > 0), (.untimed_ns > 0), (.untimed_ns < .call_cost_ns),
                ((.correction_ns - ([.inner_ns - .untimed_ns, 0] | max)) | fabs < 1e-6)]' \
    '[true,true,true,true]'
# An untimed call its site counts (a leaf's, docs/semantics.md) costs less than one the
# facade counts: its own figure, and its own correction.
expect_jq "the header's timing: site_untimed_ns measured, below untimed_ns, site_correction_ns inner less it" $p \
    '.timing | [(.site_untimed_ns > 0), (.site_untimed_ns < .untimed_ns),
                ((.site_correction_ns - ([.inner_ns - .site_untimed_ns, 0] | max)) | fabs < 1e-6)]' \
    '[true,true,true]'
expect_jq "three sites count their untimed calls: main's of tiny, slow and turns (leaves: nanosleep is no profiled call; called after their definitions), not rec's (a call of its own)" $p \
    '(.routines | map(.name)) as $n | [.sites[] | select(.untimed_at_site) | $n[.caller]]' '["main","main","main"]'
expect_jq "sections: timing and sampled declared" $p \
    '[.sections[].name | select(. == "timing" or . == "sampled")]' '["timing","sampled"]'
expect_jq "columns: the sampled rows' names" $p '.columns.sampled | join(",")' \
    '"callee,site,path,case,calls,timed,timed_time,timed_sq,exact,exact_time"'

# The rows by name: routine, calls, timed, timed_time, and the paths row's calls and time
# of the same case.
rows='(.routines | map(.name)) as $names | .sites as $sites | .columns.sampled as $sc | .columns.paths as $pc
  | [.workers[] | . as $w | .sampled[] | [$sc, .] | transpose | map({(.[0]): .[1]}) | add
     | . as $s | ($w.paths[$s.path - 1] | [$pc, .] | transpose | map({(.[0]): .[1]}) | add) as $p
     | ["ss", "sc", "cs", "cc"][$s.case] as $k
     | $s + {name: $names[$s.callee], p_calls: $p[$k + "_calls"], p_time: $p[$k + "_time"],
             at_site: ($sites[$s.site].untimed_at_site // false)}]'
jq -c "$rows" $p > rows.json 2> jq.err
check "sampled rows read by their columns" "$(indent jq.err)" -- test -s rows.json
period=$(jq .timing.period $p)
expect_jq "tiny is sampled: its one row, all 200000 calls, one in $period timed or more" rows.json \
    "[.[] | select(.name == \"tiny\")] | [length, .[0].calls,
      (.[0].timed >= 200000 / $period and .[0].timed < 200000 / 2)]" '[1,200000,true]'
# The estimate: the timed activations' time as it is, and for each untimed call the
# sample's mean (the short timed ones') less the header's correction_ns, or its
# site_correction_ns where the site counted the untimed calls.  Each figure is
# rounded to the ns apart, so they agree within untimed / timed + 3 ns.  (A caller
# whose measured time cannot hold its callees' estimates lowers them: main's own work
# keeps that from happening here.)
corr=$(jq .timing.correction_ns $p)
site_corr=$(jq .timing.site_correction_ns $p)
expect_jq "every sampled row: its paths row's calls are its calls, its time the estimate" rows.json \
    "[.[] | (.calls - .exact - .timed) as \$u | (if .at_site then $site_corr else $corr end) as \$c
      | select(.p_calls != .calls or \$u <= 0 or
        ((.p_time - .exact_time - .timed_time - \$u * ([.timed_time / .timed - \$c, 0] | max))
          | fabs) > \$u / .timed + 3) | .name]" '[]'
expect_jq "every sampled row: fewer timed than calls, a sum of squares at least time^2 / timed" \
    rows.json '[.[] | select(.timed >= .calls or .timed_sq < .timed_time * .timed_time / .timed * 0.999)
                | .name]' '[]'
expect_jq "slow (2 ms an activation) and rec (recursive) are never sampled" rows.json \
    '[.[] | select(.name == "slow" or .name == "rec") | .name]' '[]'

"$bin/cprof-report" --json $p > report.json 2> report.err
check "cprof-report reads the sampled profile" "$(indent report.err)" -- has_routines report.json
expect_jq "every call counted: tiny 200000, slow 50, rec 60000 (20000 outermost), turns 20100" \
    report.json '[r("tiny").s_caller, r("slow").s_caller, r("rec").s_caller, r("turns").s_caller]' \
    '[200000,50,60000,20100]'
# slow's time: 50 activations of at least 2 ms each, all timed.
expect_jq "slow's time is at least its 50 sleeps of 2 ms" report.json 'r("slow").s_caller_t >= 100000000' true
# turns: sampled through its short calls; the first timed one of its long ones takes it
# back to every activation timed, so at most period - 1 of the 100 go untimed: the
# long timed ones, kept as they are (exact), took at least (100 - period + 1) x 200 us.
expect_jq "turns: sampled, then timed on every call once a timed one took 200 us" rows.json \
    "[.[] | select(.name == \"turns\")] | [length, (.[0].exact_time >= (100 - $period + 1) * 200000)]" \
    '[1,true]'
# Self times are never below 0: main's measured time holds its sampled callees' cheaper
# untimed calls, their estimates what timed calls take (docs/semantics.md).
expect_jq "no self time below 0, no routine's time below its self time" report.json \
    '[.routines[] | select(.s_self_t != null and (.s_self_t < 0 or .s_self_t > .s_caller_t)) | .name]' '[]'

check "tests/report/consistency.sh: the sampled profile's numbers never contradict each other" \
    "$(bash "$root/tests/report/consistency.sh" $p 2>&1 | sed 's/^/  | /' | head -8)" -- \
    bash "$root/tests/report/consistency.sh" $p

# A caller that only calls a sampled routine: its measured time, around the cheaper
# untimed calls, may not hold their estimates; they are lowered, never below their
# timed time, and its self time is never below 0.
cat > wrap.c <<'C'
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { return x + 1; }
__attribute__((noinline)) long wrap(void)
{
    long s = 0;
    for (int i = 0; i < 300000; i++)
        s += leaf(i);
    return s;
}
int main(void) { printf("%ld\n", wrap()); return 0; }
C
mkdir wrap && "$bin/cprof-cc" -O2 wrap.c -o wrap/prog > wrap/cc.err 2>&1 && (cd wrap && ./prog > out.txt) &&
    "$bin/cprof-report" --json wrap/cprof.out > wrap.json 2> wrap.err
check "a caller of a sampled routine alone: built, run, reported" "$(indent wrap/cc.err; indent wrap.err)" -- \
    has_routines wrap.json
expect_jq "wrap: self time not below 0, its time at least leaf's" wrap.json \
    '[r("wrap").s_self_t >= 0, r("wrap").s_caller_t >= r("leaf").s_caller_t, r("leaf").s_caller]' \
    '[true,true,300000]'
check "tests/report/consistency.sh: the caller's profile is consistent" \
    "$(bash "$root/tests/report/consistency.sh" wrap/cprof.out 2>&1 | sed 's/^/  | /' | head -8)" -- \
    bash "$root/tests/report/consistency.sh" wrap/cprof.out

# A sampled routine called from a parallel loop: its context's parent is the loop's body,
# no routine whose measured time would lower its estimates, so they alone must stay
# within what the run had (elapsed x workers: tests/report/consistency.sh).  examples/md's
# dist, before the probe measured the untimed call only on rounds it was sampled: 10%
# above, on most runs.
cat > loop.c <<'C'
#include <stdio.h>
__attribute__((noinline)) double pair(const double *a, const double *b)
{
    double d = a[0] - b[0], e = a[1] - b[1];
    return d * d + e * e;
}
int main(void)
{
    static double p[3000][2];
    for (int i = 0; i < 3000; i++)
        p[i][0] = i * 0.5, p[i][1] = i % 7;
    double s = 0;
#ifdef TASKS
    /* each block of rows a task's body, made by one thread, run by the team */
#pragma omp parallel
#pragma omp single
    for (int b = 0; b < 3000; b += 100)
#pragma omp task firstprivate(b) shared(s, p)
    {
        double t = 0;
        for (int i = b; i < b + 100; i++)
            for (int j = 0; j < 3000; j++)
                t += pair(p[i], p[j]);
#pragma omp atomic
        s += t;
    }
#else
#pragma omp parallel for reduction(+:s) schedule(static)
    for (int i = 0; i < 3000; i++)
        for (int j = 0; j < 3000; j++)
            s += pair(p[i], p[j]);
#endif
    printf("%g\n", s);
    return 0;
}
C
# The class: the bodies that bound their calls' estimates (docs/semantics.md): a
# parallel loop's, and tasks'.
for kind in loop tasks; do
    def=; [ $kind = tasks ] && def=-DTASKS
    mkdir $kind && "$bin/cprof-cc" -fopenmp -O2 $def loop.c -o $kind/prog > $kind/cc.err 2>&1
    check "a sampled routine in a parallel $kind: built" "$(indent $kind/cc.err)" -- test -x $kind/prog
    for run in 1 2 3; do
        (cd $kind && OMP_NUM_THREADS=2 CPROF_OUT=$run.out ./prog > /dev/null 2> $run.err)
        check "a sampled routine in a parallel $kind, run $run: tests/report/consistency.sh (pair within elapsed x workers)" \
            "$(bash "$root/tests/report/consistency.sh" $kind/$run.out 2>&1 | sed 's/^/  | /' | head -8)" -- \
            bash "$root/tests/report/consistency.sh" $kind/$run.out
    done
    # (On a busy machine a worker's slot may meet a long activation before it is
    # sampled, and be timed for good: one run of three sampled is what the checks
    # above need.)
    jq -s . $kind/1.out $kind/2.out $kind/3.out > $kind/all.json
    expect_jq "a sampled routine in a parallel $kind: pair sampled in one run of three at least" $kind/all.json \
        '[.[] | [.workers[].sampled[]?] | length > 0] | any' true
done

# The untimed path × control and modes: a leaf (no call cprof sees) and a routine whose
# call is rarely made, both sampled, on one thread; stopped and started again between
# runs of calls.  Every call counted exactly, none while stopped (docs/control.md),
# under sampled timing, every-call timing and count mode alike; the rare call's context
# is its caller's, the sampled routine's, whichever of its activations made it (an
# untimed one names its context too).
cat > inl.c <<'C'
#include <stdio.h>
#include <cprof.h>
__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) void rare(int x) { printf("rare %d\n", x); }
__attribute__((noinline)) int helper(int x)
{
    if (x % 25000 == 24999)
        rare(x);
    return x + 1;
}
static long run(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += leaf(i) + helper(i);
    return s;
}
int main(void)
{
    long s = run(100000);
    cprof_stop();
    s += run(50000);
    cprof_start();
    s += run(30000);
    printf("%ld\n", s);
    return 0;
}
C
mkdir inl && "$bin/cprof-cc" -O2 inl.c -o inl/prog > inl/cc.err 2>&1 && "$plain_cc" -O2 -I"$root/runtime" inl.c -o inl/ref 2>> inl/cc.err
check "the untimed path: built" "$(indent inl/cc.err)" -- test -x inl/prog
(cd inl && ./ref > ref.txt)
for mode in sampled every count; do
    case $mode in
        sampled) envs=() ;;
        every) envs=(CPROF_TIMING=every) ;;
        count) envs=(CPROF_MODE=count) ;;
    esac
    (cd inl && env "${envs[@]}" CPROF_OUT=$mode.out ./prog > $mode.txt 2> $mode.err)
    check "the untimed path, $mode: the program's output is $plain_cc's, nothing on stderr" \
        "$(indent inl/$mode.err)" -- bash -c "cmp -s inl/$mode.txt inl/ref.txt && test ! -s inl/$mode.err"
    "$bin/cprof-report" --json inl/$mode.out > inl/$mode.json 2> inl/$mode.rep
    expect_jq "the untimed path, $mode: leaf, helper 130000 calls, rare 5 (the stopped run's 2 left out)" \
        inl/$mode.json '[r("leaf").s_caller, r("helper").s_caller, r("rare").s_caller]' '[130000,130000,5]'
done
expect_jq "the untimed path: leaf and helper sampled (most of their calls untimed)" inl/sampled.out \
    '(.routines | map(.name)) as $n | [.workers[].sampled[] | select(.[4] > 2 * .[5]) | $n[.[0]]] | unique' \
    '["helper","leaf"]'
# (Two contexts: run's two calls from main, before the stop and after the start.)
expect_jq "the untimed path: rare's contexts are under helper, under run, under main: 4 and 1 calls" \
    inl/sampled.json '[.paths as $p | $p[] | select(.routine == "rare") | [pathname($p; .id), .calls[0]]]' \
    '[[["main","run","helper","rare"],4],[["main","run","helper","rare"],1]]'
check "the untimed path: tests/report/consistency.sh" \
    "$(bash "$root/tests/report/consistency.sh" inl/sampled.out 2>&1 | sed 's/^/  | /' | head -8)" -- \
    bash "$root/tests/report/consistency.sh" inl/sampled.out

# A user region (docs/control.md) around a short statement in a hot loop: its entry's
# frame is the region's (cprof_region_end closes it), so it is never sampled.
cat > region.c <<'C'
#include <stdio.h>
#include <cprof.h>
int main(void)
{
    volatile long x = 0;
    for (int i = 0; i < 100000; i++) {
        cprof_region_begin("hot");
        x += i;
        cprof_region_end();
    }
    printf("%ld\n", (long)x);
    return 0;
}
C
mkdir region && "$bin/cprof-cc" -O2 region.c -o region/prog > region/cc.err 2>&1 &&
    (cd region && ./prog > out.txt 2> err.txt) && "$bin/cprof-report" --json region/cprof.out > region.json 2>&1
check "a region in a hot loop: built, run, reported" "$(indent region/cc.err; indent region/err.txt)" -- \
    has_routines region.json
expect_jq "a region in a hot loop: all 100000 entries counted, none untimed" region/cprof.out \
    '[([.routines | to_entries[] | select(.value.name == "hot") | .key] | .[0]) as $hot
      | .workers[].sampled[]? | select(.[0] == $hot)] | length' 0
expect_jq "a region in a hot loop: its count" region.json 'r("hot").s_caller' 100000

mkdir every && (cd every && CPROF_TIMING=every ../prog > out.txt 2> err.txt)
check "CPROF_TIMING=every: the program's output is $plain_cc's, nothing on stderr" \
    "$(indent every/err.txt)" -- bash -c 'cmp -s every/out.txt ref.txt && test ! -s every/err.txt'
expect_jq "CPROF_TIMING=every: the header says every, no sampled rows, no sampled section" \
    every/cprof.out '[.timing.mode, ([.workers[] | has("sampled")] | any),
                     ([.sections[].name] | index("sampled"))]' '["every",false,null]'
"$bin/cprof-report" --json every/cprof.out > every.json 2> every.err
check "CPROF_TIMING=every: the same counts, cases, arcs and contexts as sampled" \
    "$(python3 "$root/tests/lib/same_profile.py" every.json report.json 2>&1 | sed 's/^/  | /')" -- \
    python3 "$root/tests/lib/same_profile.py" every.json report.json

# Extensions with a facade variant of their own time every activation, and say so.
mkdir traced && (cd traced && CPROF_TRACE=1 ../prog > out.txt 2> err.txt)
expect_jq "CPROF_TRACE=1: every activation timed (the header says every)" traced/cprof.out \
    '.timing.mode' '"every"'
finish
