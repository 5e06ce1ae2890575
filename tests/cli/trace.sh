#!/usr/bin/env bash
# CPROF_TRACE=1 (docs/tracing.md): the exact activations and region and task bodies of
# each worker for a program that runs sequentially, a parallel loop, nested regions and
# tasks; every export well formed
# (tests/lib/trace_check.py: the Trace Event Format, nesting, exits in time order); the
# trace's time per routine is the profile's; a full buffer stops and counts what it
# drops; the globs and the minimum duration; bad traces refused in one line.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
checker=$root/tests/lib/trace_check.py
cat > prog.c <<'C'
#include <omp.h>
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { volatile int v = x; return v + 1; }
__attribute__((noinline)) int seq(void) { return leaf(1) + leaf(2); }
__attribute__((noinline)) int loop(void)
{
    int s = 0;
#pragma omp parallel for num_threads(2) schedule(static) reduction(+:s)
    for (int i = 0; i < 4; i++)
        s += leaf(i);
    return s;
}
__attribute__((noinline)) int inner(int k)
{
    int s = 0;
#pragma omp parallel num_threads(2) reduction(+:s)
    s += leaf(k);
    return s;
}
__attribute__((noinline)) int nested(void)
{
    int s = 0;
#pragma omp parallel num_threads(2) reduction(+:s)
    s += inner(omp_get_thread_num());
    return s;
}
__attribute__((noinline)) int tasks(void)
{
    int s = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    for (int i = 0; i < 4; i++) {
#pragma omp task shared(s)
        {
            int v = leaf(i);
#pragma omp atomic
            s += v;
        }
    }
    return s;
}
int main(void)
{
    int a = seq();
    int b = loop();
    int c = nested();
    int d = tasks();
    printf("%d %d %d %d\n", a, b, c, d);
    return 0;
}
C
"$bin/cprof-cc" -fopenmp -O2 prog.c -o prog 2> cc.err || { nok "cprof-cc compiles the program" "$(indent cc.err)"; finish; }
export OMP_MAX_ACTIVE_LEVELS=2 OMP_PROC_BIND=false
CPROF_TRACE=1 CPROF_OUT=p.out ./prog > out.txt 2> err.txt; st=$?
check "a traced run exits 0, prints what it should and nothing on stderr" "$(indent err.txt)" -- \
    bash -c "[ $st = 0 ] && [ \"\$(cat out.txt)\" = '5 10 6 10' ] && [ ! -s err.txt ]"
check "the trace is written beside the profile, which names it" -- \
    bash -c '[ -s p.out.trace ] && [ "$(jq -r .trace.file p.out)" = p.out.trace ] &&
             [ "$(jq -r .trace.bytes p.out)" = "$(stat -c %s p.out.trace)" ] &&
             jq -e "[.sections[].name] | index(\"trace\")" p.out > /dev/null'
"$bin/cprof-report" --trace p.out > t.json 2> rep.err
check "--trace: the export is well formed" "$(python3 "$checker" --cprof t.json | indent /dev/stdin)" -- \
    python3 "$checker" --cprof t.json
# The checker itself: an event overlapping its neighbour, one without dur, a counter off.
# seq made to end 1000 s later, past main, its parent, whatever the gaps between the
# events (1 ms more left a gap on a busy machine: clang's pass beside two CPU hogs).
jq '.traceEvents |= map(if .ph == "X" and .name == "seq" then .dur += 1e9 else . end)' t.json > bad1.json
jq '.traceEvents |= map(if .ph == "X" and .name == "loop" then del(.dur) else . end)' t.json > bad2.json
jq '.traceEvents |= map(if .ph == "C" then .args.busy += 1 else . end)' t.json > bad3.json
check "the checker refuses overlapping events, a complete event without dur, a wrong counter" -- \
    bash -c "! python3 '$checker' --cprof bad1.json > c1.txt && grep -q 'without nesting' c1.txt &&
             ! python3 '$checker' bad2.json > c2.txt && grep -q 'without dur' c2.txt &&
             ! python3 '$checker' --cprof bad3.json > c3.txt && grep -q 'workers busy' c3.txt"
# Each worker's activations and region bodies in order (a parent before its children),
# with their cases; the tasks apart: which thread runs a task is libgomp's choice.  The
# regions' pragmas are at lines 8 (loop), 16 (inner), 23 (nested), 30 (tasks), the
# task's at 33, its call of leaf at 35.  An event's categories are an activation's case
# and site, a body's kind and case; its track is its worker's OS tid, which
# thread_sort_index maps to the worker.
defs='def cats: .cat | split(","); def case: cats | map(select(IN("S-S", "S-C", "C-S", "C-C")))[0];
      ([.traceEvents[] | select(.ph == "M" and .name == "thread_sort_index")
        | {key: (.tid | tostring), value: .args.sort_index}] | from_entries) as $worker'
seqs="$defs"' | [.traceEvents[] | select(.ph == "X" and cats[0] != "task" and cats[1] != "prog.c:35")]
      | group_by($worker[.tid | tostring]) | map(sort_by(.ts, -.dur) | map("\(.name) \(case)"))'
expect_jq "workers 0 and 1: the exact activations and bodies of the sequential part, the loop, the nested regions" \
    t.json "$seqs | .[0:2]" \
    '[["main S-S","seq S-S","leaf S-S","leaf S-S","loop S-S","parallel prog.c:8 S-C","leaf S-C","leaf S-C",
       "nested S-S","parallel prog.c:23 S-C","inner S-C","parallel prog.c:16 C-C","leaf C-C",
       "tasks S-S","parallel prog.c:30 S-C"],
      ["parallel prog.c:8 S-C","leaf S-C","leaf S-C","parallel prog.c:23 S-C","inner S-C",
       "parallel prog.c:16 C-C","leaf C-C","parallel prog.c:30 S-C"]]'
# The other threads: libgomp gives each nested team a thread of its own; libomp, on a
# busy machine, may run both nested teams' second members on one pool thread, in turn.
expect_jq "the nested regions' other threads: two inner region bodies, one leaf in each, C-C" t.json \
    "$seqs | .[2:] | add" '["parallel prog.c:16 C-C","leaf C-C","parallel prog.c:16 C-C","leaf C-C"]'
expect_jq "the tasks: four bodies on the team's two workers, S-C, each holding one call of leaf, S-C" t.json \
    "$defs"' | [.traceEvents[] | select(.ph == "X")] as $x
     | [$x[] | select(cats[0] == "task") | . as $t
        | [.name, case, ($worker[.tid | tostring] < 2),
           [$x[] | select(.tid == $t.tid and .ts >= $t.ts and .ts + .dur <= $t.ts + $t.dur and .name == "leaf")
                 | cats]]]
     | [length, unique]' '[4, [["task prog.c:33", "S-C", true, [["S-C", "prog.c:35"]]]]]'
expect_jq "every track is its worker's OS thread id (the profile's tid), none 0" t.json \
    "$defs"' | [$worker | to_entries[] | [(.key | tonumber), .value]] | sort_by(.[1])' \
    "$(jq -c '[.workers[] | [.tid, .id]]' p.out)"
n=$(jq '[.traceEvents[] | select(.ph == "X")] | 2 * length' t.json)
expect_jq "the profile counts each worker's events, none dropped" p.out \
    '[([.workers[].trace[0]] | add), ([.workers[].trace[1]] | add), .trace.events, .trace.dropped]' \
    "[$n, 0, $n, 0]"
expect_jq "the counter of workers busy starts at 1, reaches 3 or 4 (the nested regions), ends at 0" t.json \
    '[.traceEvents[] | select(.ph == "C") | .args.busy] | [first, (max | . == 3 or . == 4), last]' '[1, true, 0]'
# The trace's time per routine is the profile's: the calls rows' four times of calls
# reaching it and its entries from outside, each rounded once (1 ns per activation).
jq -c '.columns as $c | [.workers[] | (.calls[] | [.[($c.calls | index("callee"))],
        (.[($c.calls | index("ss_time"))] + .[($c.calls | index("sc_time"))] +
         .[($c.calls | index("cs_time"))] + .[($c.calls | index("cc_time"))])]),
        (.routines[] | [.[0], .[($c.routines | index("s_external_time"))] +
                               .[($c.routines | index("c_external_time"))]])]
      | group_by(.[0]) | map({key: (.[0][0] | tostring), value: (map(.[1]) | add)}) | from_entries' \
    p.out > prof_ns.json
jq -c --slurpfile names <(jq '[.routines[].name]' p.out) \
    '[.traceEvents[] | select(.ph == "X" and (.cat | test("^(task|parallel region),") | not))] | group_by(.name)
     | map({key: (.[0].name as $n | $names[0] | index($n) | tostring),
            value: {ns: (map(.dur * 1000 | round) | add), n: length}}) | from_entries' t.json > trace_ns.json
check "the trace's time per routine is the profile's, within 1 ns per activation" \
    "profile $(cat prof_ns.json)" "trace $(cat trace_ns.json)" -- \
    jq -n -e --slurpfile p prof_ns.json --slurpfile t trace_ns.json \
    '($t[0] | keys) == ($p[0] | keys) and
     ([$t[0] | to_entries[] | (.value.ns - $p[0][.key] | fabs) <= .value.n + 1] | all)'
"$bin/cprof-report" --timeline --width 40 p.out > tl.txt 2>&1
workers=$(jq '.workers | length' p.out)
check "--timeline: a row of 40 columns per worker ($workers), the busy row, a legend entry per routine" \
    "$(indent tl.txt)" -- \
    bash -c '[ '"$workers"' -ge 3 ] && [ $(grep -c "^worker [0-9] (OpenMP thread [0-9]" tl.txt) = '"$workers"' ] &&
             [ $(grep -Ec "^(worker|workers busy).*\|[A-Za-z0-9+.]{40}\|" tl.txt) = $(('"$workers"' + 1)) ] &&
             grep -Eq "^workers busy +\|[0-9]{40}\|$" tl.txt &&
             [ $(grep -Ec "^  [A-Z]  (main|seq|loop|nested|inner|tasks|leaf)  " tl.txt) = 7 ]'

# Off: nothing of it.
CPROF_OUT=off.out ./prog > /dev/null 2>&1
check "without CPROF_TRACE: no trace file, no trace section" -- \
    bash -c '[ ! -e off.out.trace ] && jq -e ".trace == null and ([.workers[].trace] | all(. == null))" off.out > /dev/null'
"$bin/cprof-report" --trace off.out > off.json 2> off.err; st=$?
check "--trace of an untraced run: one line, exit 1, nothing on stdout" "$(indent off.err)" -- \
    bash -c "[ $st = 1 ] && [ ! -s off.json ] && [ \$(wc -l < off.err) = 1 ] && grep -q 'not traced' off.err"

# A full buffer: 4 KB, 10000 calls of leaf.  The first entry that does not fit stops
# the trace; every recorded entry keeps its exit; all else is counted dropped.
cat > many.c <<'C'
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { volatile int v = x; return v + 1; }
int main(void)
{
    long s = 0;
    for (int i = 0; i < 10000; i++)
        s += leaf(i);
    printf("%ld\n", s);
    return 0;
}
C
"$bin/cprof-cc" -O2 many.c -o many
CPROF_TRACE=1 CPROF_TRACE_BUFFER=4K CPROF_OUT=m.out ./many > /dev/null
"$bin/cprof-report" --trace m.out > m.json
"$bin/cprof-report" --csv summary m.out | tr -d '\r' > ms.csv
check "a full buffer: the summary counts the events recorded and dropped" "$(grep trace ms.csv)" -- \
    bash -c "grep -qx 'trace_events,$(jq .trace.events m.out)' ms.csv && grep -qx 'trace_dropped,$(jq .trace.dropped m.out)' ms.csv &&
             [ \$(jq .trace.dropped m.out) -gt 0 ]"
expect_jq "a full buffer: events recorded and dropped add up to every entry and exit" m.out \
    '.workers[0].trace | [.[0] + .[1] == 20002, .[1] > 0, .[0] < 4096 / 2]' '[true, true, true]'
check "a full buffer: the export is well formed, its exits all there" "$(python3 "$checker" --cprof m.json | indent /dev/stdin)" -- \
    bash -c "python3 '$checker' --cprof m.json && jq -e '([.traceEvents[] | select(.ph == \"X\")] | length) * 2 ==
             $(jq '.workers[0].trace[0]' m.out) and .otherData.dropped[0] == $(jq '.workers[0].trace[1]' m.out)' m.json > /dev/null"
"$bin/cprof-report" --timeline m.out > mt.txt
check "a full buffer: the timeline says how many events were dropped" "$(indent mt.txt)" -- \
    grep -q "^worker 0 .*| $(jq '.workers[0].trace[1]' m.out) events dropped (buffer full)$" mt.txt

# Selective: globs and a minimum duration.
CPROF_TRACE=1 CPROF_TRACE_EXCLUDE='leaf,in*' CPROF_OUT=x.out ./prog > /dev/null
"$bin/cprof-report" --trace x.out > x.json
expect_jq "CPROF_TRACE_EXCLUDE='leaf,in*': neither leaf nor inner (the bodies are in)" x.json \
    '[.traceEvents[] | select(.ph == "X") | .name] | unique' \
    '["loop","main","nested","parallel prog.c:16","parallel prog.c:23","parallel prog.c:30",
      "parallel prog.c:8","seq","task prog.c:33","tasks"]'
CPROF_TRACE=1 CPROF_TRACE_EXCLUDE='parallel *,task *' CPROF_OUT=xb.out ./prog > /dev/null
"$bin/cprof-report" --trace xb.out > xb.json
expect_jq "CPROF_TRACE_EXCLUDE='parallel *,task *': the bodies out, the routines in" xb.json \
    '[.traceEvents[] | select(.ph == "X") | .name] | unique' '["inner","leaf","loop","main","nested","seq","tasks"]'
CPROF_TRACE=1 CPROF_TRACE_INCLUDE='s*' CPROF_OUT=i.out ./prog > /dev/null
"$bin/cprof-report" --trace i.out > i.json
expect_jq "CPROF_TRACE_INCLUDE='s*': seq alone" i.json \
    '[.traceEvents[] | select(.ph == "X") | .name]' '["seq"]'
cat > slow.c <<'C'
#include <stdio.h>
#include <time.h>
__attribute__((noinline)) int leaf(int x) { volatile int v = x; return v + 1; }
__attribute__((noinline)) int slow(int x)
{
    struct timespec ts = { 0, 3000000 };
    nanosleep(&ts, 0);
    return leaf(x);
}
int main(void)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += leaf(i) + slow(i);
    printf("%d\n", s);
    return 0;
}
C
"$bin/cprof-cc" -O2 slow.c -o slow
CPROF_TRACE=1 CPROF_TRACE_MIN_NS=1000000 CPROF_OUT=s.out ./slow > /dev/null
"$bin/cprof-report" --trace s.out > s.json
expect_jq "CPROF_TRACE_MIN_NS=1000000: only the activations of 1 ms or more (main, slow)" s.json \
    '[.traceEvents[] | select(.ph == "X")] | sort_by(.ts) | map(.name)' '["main","slow","slow","slow"]'
check "a minimum duration: the export is well formed" "$(python3 "$checker" --cprof s.json | indent /dev/stdin)" -- \
    python3 "$checker" --cprof s.json

# Elsewhere, and the variables misused: one line each, the run as without them.
mkdir -p sub
CPROF_TRACE=1 CPROF_TRACE_OUT=$tmp/sub/elsewhere.trace CPROF_OUT=e.out ./many > /dev/null
check "CPROF_TRACE_OUT: the trace there, the profile names its path, the report finds it" -- \
    bash -c "[ -s sub/elsewhere.trace ] && [ ! -e e.out.trace ] &&
             [ \"\$(jq -r .trace.file e.out)\" = '$tmp/sub/elsewhere.trace' ] &&
             '$bin/cprof-report' --timeline e.out | grep -q '^worker 0 '"
CPROF_TRACE=1 CPROF_TRACE_BUFFER=12Q CPROF_TRACE_MIN_NS=-3 CPROF_OUT=v.out ./many > v.txt 2> v.err
check "a bad CPROF_TRACE_BUFFER and CPROF_TRACE_MIN_NS: one line each, their defaults" "$(indent v.err)" -- \
    bash -c "[ \$(wc -l < v.err) = 2 ] && grep -q '^cprof: CPROF_TRACE_BUFFER=12Q is not a size' v.err &&
             grep -q '^cprof: CPROF_TRACE_MIN_NS=-3 is not a whole number' v.err &&
             jq -e '.trace.buffer == 33554432 and .trace.min_ns == 0 and .trace.dropped == 0' v.out > /dev/null"
CPROF_TRACE=1 CPROF_MODE=count CPROF_OUT=c.out ./many > /dev/null 2> c.err
check "CPROF_MODE=count: no trace, in one line" "$(indent c.err)" -- \
    bash -c "[ \$(wc -l < c.err) = 1 ] && grep -q 'no trace with CPROF_MODE=count' c.err && [ ! -e c.out.trace ] &&
             jq -e '.trace == null' c.out > /dev/null"
CPROF_TRACE=1 CPROF_OUT=/dev/null ./many > /dev/null 2> n.err
check "a profile to /dev/null without CPROF_TRACE_OUT: the trace not written, in one line" "$(indent n.err)" -- \
    bash -c "[ \$(wc -l < n.err) = 1 ] && grep -q 'set CPROF_TRACE_OUT' n.err"

# A forked child that writes its own profile (CPROF_OUT with %p) and a fixed
# CPROF_TRACE_OUT (issue 29): the parent, exiting last, finds the child's trace where
# its own would go, keeps it and writes its own to NAME.PID, in one line; each profile
# names its own trace, and --trace of each shows its own process, its own calls (the
# child 5 of leaf, the parent 1 after the fork).  CPROF_TRACE_OUT with %p: one each.
cat > fork.c <<'C'
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
__attribute__((noinline)) int leaf(int x) { volatile int v = x; return v + 1; }
int main(void)
{
    int s = 0;
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        for (int i = 0; i < 5; i++)
            s += leaf(i);
        return 0;
    }
    waitpid(c, NULL, 0);
    s += leaf(1);
    printf("%ld %ld\n", (long)getpid(), (long)c);
    return 0;
}
C
"$bin/cprof-cc" -O2 fork.c -o fork
mkdir fk && (cd fk && CPROF_TRACE=1 CPROF_OUT=p.%p.out CPROF_TRACE_OUT=t.trace ../fork > pids 2> err)
read -r parent child < fk/pids
check "fork, CPROF_TRACE_OUT without %p: the child's t.trace kept, the parent's t.trace.$parent, one line" \
    "$(ls fk | tr '\n' ' ')" "$(indent fk/err)" -- \
    bash -c "[ \"\$(ls fk | sort | tr '\n' ' ')\" = \"\$(printf '%s\n' err p.$child.out p.$parent.out pids t.trace t.trace.$parent | sort | tr '\n' ' ')\" ] &&
             [ \$(wc -l < fk/err) = 1 ] && grep -q 't.trace was written by another process.*t.trace.$parent' fk/err"
for who in parent child; do
    pid=${!who}
    "$bin/cprof-report" --trace "fk/p.$pid.out" > "fk/$who.json" 2> "fk/$who.err"
    expect_jq "fork: --trace of the $who's profile shows pid $pid and its leaf calls" "fk/$who.json" \
        '[([.traceEvents[] | .pid] | unique), ([.traceEvents[] | select(.ph == "X" and .name == "leaf")] | length)]' \
        "[[$pid], $([ $who = parent ] && echo 1 || echo 5)]"
done
cp "fk/t.trace.$parent" fk/t.trace
"$bin/cprof-report" --trace "fk/p.$child.out" > /dev/null 2> fk/wrong.err; st=$?
check "--trace of a profile whose trace file is another process's: one line, exit 1" "$(indent fk/wrong.err)" -- \
    bash -c "[ $st = 1 ] && [ \$(wc -l < fk/wrong.err) = 1 ] && grep -q 'is not the trace of this profile' fk/wrong.err"
mkdir fp && (cd fp && CPROF_TRACE=1 CPROF_OUT=p.%p.out CPROF_TRACE_OUT=t.%p.trace ../fork > pids 2> err)
read -r parent child < fp/pids
check "fork, CPROF_TRACE_OUT=t.%p.trace: t.$parent.trace and t.$child.trace, nothing said" \
    "$(ls fp | tr '\n' ' ')" "$(indent fp/err)" -- \
    bash -c "[ \"\$(ls fp | sort | tr '\n' ' ')\" = \"\$(printf '%s\n' err p.$child.out p.$parent.out pids t.$child.trace t.$parent.trace | sort | tr '\n' ' ')\" ] && [ ! -s fp/err ]"

# Bad trace files: one line, exit 1, nothing on stdout.
bad() {  # bad NAME GREP: the trace of p.out doctored by the caller
    "$bin/cprof-report" --trace b.out > b.json 2> b.err; local st=$?
    check "$1: one line, exit 1, nothing on stdout" "$(indent b.err)" -- \
        bash -c "[ $st = 1 ] && [ ! -s b.json ] && [ \$(wc -l < b.err) = 1 ] && grep -q '$2' b.err"
}
jq '.trace.file = "b.out.trace"' p.out > b.out
head -c 100 p.out.trace > b.out.trace
bad "a truncated trace file" "is truncated"
{ head -c 64 p.out.trace; printf '\377'; tail -c +66 p.out.trace; } > b.out.trace
bad "a broken event" "broken"
printf 'not a trace at all, not at all' > b.out.trace
bad "not a trace file" "not a cprof trace file"
rm b.out.trace
bad "a missing trace file" "cannot open its trace"
"$bin/cprof-report" --trace --json p.out > /dev/null 2> u.err; st=$?
check "--trace with another report option: a usage error" "$(indent u.err)" -- \
    bash -c "[ $st = 2 ] && grep -q 'take one profile' u.err"
finish
