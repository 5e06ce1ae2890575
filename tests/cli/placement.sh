#!/usr/bin/env bash
# Placement (docs/placement.md): runs pinned by taskset and OMP_PLACES give the placement
# they set up, exactly: two workers forced onto one PU (both ways), workers bound one
# per PU, SMT siblings (where the machine has them), an unbound run, and one that
# re-pins itself mid-run (the move, and the PU it ran on longest in the per-thread table
# and the trace's names, where it first ran said before); the flags in every output
# agree at their printed precision; the topology is lstopo's; the helper leaves the
# program's malloc, SIGCHLD, descriptors and output alone, and a helper that cannot run
# is said; the HTML page shows the section; an MPI job's ranks, per rank and host.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > place.c <<'C'
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Busy for ms of wall time. */
void spin(double ms)
{
    double t0 = now();
    volatile double x = 0;
    while ((now() - t0) * 1e3 < ms)
        x += 1;
}

/* regions parallel regions, every thread of each busy for ms. */
void team(int regions, double ms)
{
    for (int r = 0; r < regions; r++) {
#pragma omp parallel
        spin(ms);
    }
}

static void pin(int pu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(pu, &s);
    if (sched_setaffinity(0, sizeof s, &s) != 0) {
        perror("sched_setaffinity");
        exit(2);
    }
}

/* One thread makes n tiny tasks, then one that re-pins it to pu and spins 5 ms, n
 * more, and one that spins 60 ms. */
static void tasks(int n, int pu)
{
    static volatile int ticks;
#pragma omp parallel num_threads(1)
#pragma omp single
    {
        for (int i = 0; i < n; i++) {
#pragma omp task
            ticks++;
        }
#pragma omp taskwait
#pragma omp task
        {
            pin(pu);
            spin(5);
        }
#pragma omp taskwait
        for (int i = 0; i < n; i++) {
#pragma omp task
            ticks++;
        }
#pragma omp task
        spin(60);
    }
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "tasks")) {
        tasks(20000, atoi(argv[2]));
    } else if (argc > 2 && !strcmp(argv[1], "seq")) {
        /* No region: only the CPU samples see the move. */
        spin(100);
        pin(atoi(argv[2]));
        spin(100);
    } else if (argc > 2 && !strcmp(argv[1], "repin")) {
        /* The initial thread moves to PU argv[2]; the team's other thread stays. */
        team(3, 20);
        pin(atoi(argv[2]));
        team(10, 30);
    } else {
        team(4, 40);
    }
    puts("done");
    return 0;
}
C
"$bin/cprof-cc" -fopenmp -O2 place.c -o place > cc.err 2>&1
check "the test program builds" "$(indent cc.err)" -- test -x place
lstopo-no-graphics --of xml --no-io - > topo.xml 2> lstopo.err
check "lstopo writes the machine's topology (hwloc, make deps)" "$(indent lstopo.err)" -- test -s topo.xml

# The machine, as lstopo says, and this process's PUs: A, and B on another core (the
# runs that need two PUs are skipped without); S1 and S2, two PUs of one core (SMT).
python3 - topo.xml > pus.txt <<'PY'
import os, sys, xml.etree.ElementTree as ET
objs = list(ET.parse(sys.argv[1]).getroot().iter('object'))
parent = {c: p for p in objs for c in p.findall('object')}
def core_of(pu):
    while pu in parent:
        pu = parent[pu]
        if pu.get('type') == 'Core':
            return pu
cores = [o for o in objs if o.get('type') == 'Core']
allowed = os.sched_getaffinity(0)
pus = [(int(o.get('os_index')), cores.index(core_of(o)) if core_of(o) is not None else -1)
       for o in objs if o.get('type') == 'PU' and int(o.get('os_index')) in allowed]
a = pus[0]
b = next((p for p in pus if p[1] != a[1]), (-1, -1))
smt = next(((p, q) for p in pus for q in pus if p[0] < q[0] and p[1] == q[1] and p[1] >= 0), None)
print(a[0], a[1], b[0], b[1], *(smt[0][0], smt[1][0], smt[0][1]) if smt else (-1, -1, -1))
PY
read -r A CA B CB S1 S2 CS < pus.txt
echo "# PU A=$A (core $CA), B=$B (core $CB), SMT siblings ${S1}/${S2} (core $CS)"

# run NAME [ENV...] -- ARGS...: ./place under env, its profile NAME.out, reports NAME.json
# and NAME.txt (-b); the run's stdout and stderr must be the program's.
run() {
    local name=$1; shift
    local -a envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" CPROF_OUT="$name.out" "$@" > "$name.stdout" 2> "$name.stderr"
    "$bin/cprof-report" --json "$name.out" > "$name.json" 2> "$name.err"
    "$bin/cprof-report" -b "$name.out" > "$name.txt" 2>> "$name.err"
    check "$name: the program ran as without cprof, both reports made" "$(indent "$name.stderr")" \
        "$(indent "$name.err")" -- bash -c "[ \"\$(cat $name.stdout)\" = done ] && [ ! -s $name.stderr ] &&
            [ ! -s $name.err ] && [ -s $name.json ] && [ -s $name.txt ]"
}
# The text report's flag lines, and --json's flags, as "! TEXT" lines.
text_flags() { sed -n '/^Placement flags$/,/^Binding$/p' "$1.txt" | grep '^! '; }
json_flags() { jq -r '.placement.flags[] | "! " + .text' "$1.json"; }
# rows NAME TITLE [AWK]: the rows of the text report's section TITLE (under its title,
# rule, blank line and header), each as AWK prints it, on one line.
rows() {
    local each=${3:-'{ print }'}
    awk -v t="$2" '$0 == t { f = 1; n = 0; next } f && ++n <= 3 { next } f && $0 == "" { exit } f' "$1.txt" |
        awk "$each" | tr '\n' ' '
}
# csv_col NAME SECTION KEY: column KEY of --csv SECTION, a line per row.
csv_col() {
    "$bin/cprof-report" --csv "$2" "$1.out" |
        python3 -c 'import csv, sys; r = list(csv.DictReader(sys.stdin)); print("\n".join(x[sys.argv[1]] for x in r))' "$3"
}
same_flags() {
    local t j c
    t=$(text_flags "$1")
    j=$(json_flags "$1")
    c=$(csv_col "$1" placement-flags text | sed 's/^/! /')
    check "$1: the text report's flags are --json's, and --csv placement-flags'" \
        "$(diff <(echo "$t") <(echo "$j") | head -5)" "$(diff <(echo "$c") <(echo "$j") | head -5)" -- \
        bash -c '[ -n "$1" ] && [ "$1" = "$2" ] && [ "$2" = "$3" ]' _ "$t" "$j" "$c"
}
# pct N: a share as the flags print it.
pct() { printf '%.1f' "$1"; }

# ---- two workers forced onto one PU: by the affinity mask, then by OMP_PLACES ----
run one OMP_NUM_THREADS=2 -- taskset -c "$A" ./place
expect_jq "taskset -c $A: both workers placed on PU $A only, never moved" one.json \
    '[.placement.workers[] | [.id, [.pus[].pu], .moves, .main_pu, .core]]' \
    "[[0, [$A], 0, $A, $CA], [1, [$A], 0, $A, $CA]]"
# (Its bins' times are rounded to the ns each: within a ns per bin, 256 at most.)
expect_jq "taskset -c $A: shared PU time is worker 1's placed time (within a ns per bin)" one.json \
    '.placement as $p | [$p.sharing[] | [.workers, .pu, ((.pu_ns - $p.workers[1].placed_ns) | fabs <= 256), .core_ns]]' \
    "[[[0, 1], $A, true, 0]]"
share=$(jq '.placement.sharing[0].pct_pu' one.json)
expect_jq "taskset -c $A: flags: confined to PU $A, workers 0 and 1 shared it" one.json \
    '[.placement.flags[] | .text]' \
    "[\"confined: the affinity mask allows PU $A only, and 2 workers take turns on it (OMP_PROC_BIND not set)\",
      \"workers 0 and 1 shared PU $A (core $CA) for $(pct "$share")% of the run\"]"
same_flags one
got=$(rows one 'Per-thread concurrency' '{ print $1, $4, $5, $7 }')
check "taskset -c $A: the per-thread table: both workers on PU $A, core $CA, 0 moves" "got: $got" -- \
    test "$got" = "0 $A $CA 0 1 $A $CA 0 "

run places OMP_NUM_THREADS=2 "OMP_PLACES={$A}" OMP_PROC_BIND=true -- ./place
if [ "$plain_cc" = gcc ]; then
expect_jq "OMP_PLACES={$A} OMP_PROC_BIND=true: both workers on PU $A only, never moved" places.json \
    '[.placement.workers[] | [.id, [.pus[].pu], .moves]]' "[[0, [$A], 0], [1, [$A], 0]]"
expect_jq "OMP_PLACES={$A}: the binding as set and as libgomp took it" places.json \
    '.placement.processes[0] | [.env, .proc_bind, .places, .affinity]' \
    "[{\"OMP_PROC_BIND\": \"true\", \"OMP_PLACES\": \"{$A}\"}, \"true\", [[$A]], [$A]]"
expect_jq "OMP_PLACES={$A}: one flag, the shared PU (bound: no unbound flag), for worker 1's placed time" places.json \
    '.placement as $p | [[$p.flags[] | [.kind, .workers, .pu]], (($p.sharing[0].pu_ns - $p.workers[1].placed_ns) | fabs <= 256)]' \
    "[[[\"shared_pu\", [0, 1], $A]], true]"
same_flags places
got=$(for k in omp_proc_bind omp_places gomp_cpu_affinity kmp_affinity proc_bind places affinity; do
          csv_col places binding $k; done | tr '\n' '|')
check "OMP_PLACES={$A}: --csv binding: as set, as libgomp took it, the mask" "got: $got" -- \
    test "$got" = "true|{$A}|||true|{$A}|$A|"
else
# libomp binds the initial thread on its first call, not when it loads (libgomp does):
# worker 0 may have run elsewhere first (then one move), the process's mask when the
# runtime started is the launch's, and OMP_PROC_BIND=true is libomp's spread.
expect_jq "OMP_PLACES={$A} OMP_PROC_BIND=true: worker 1 on PU $A only, never moved, worker 0 there at the end" \
    places.json "[(.placement.workers[1] | [[.pus[].pu], .moves]), (.placement.workers[0].pus | map(.pu) | index($A) != null)]" \
    "[[[$A], 0], true]"
expect_jq "OMP_PLACES={$A}: the binding as set and as libomp took it (spread), the launch's mask" places.json \
    ".placement.processes[0] | [.env, .proc_bind, .places, (.affinity | index($A) != null)]" \
    "[{\"OMP_PROC_BIND\": \"true\", \"OMP_PLACES\": \"{$A}\"}, \"spread\", [[$A]], true]"
expect_jq "OMP_PLACES={$A}: the shared PU flagged for worker 1's placed time" places.json \
    '.placement as $p | [([$p.flags[] | select(.kind == "shared_pu") | [.workers, .pu]]), (($p.sharing[0].pu_ns - $p.workers[1].placed_ns) | fabs <= 256)]' \
    "[[[[0, 1], $A]], true]"
got=$(for k in omp_proc_bind omp_places gomp_cpu_affinity kmp_affinity proc_bind places; do
          csv_col places binding $k; done | tr '\n' '|')
check "OMP_PLACES={$A}: --csv binding: as set, as libomp took it" "got: $got" -- \
    test "$got" = "true|{$A}|||spread|{$A}|"
fi

# ---- workers bound one per PU ----
# (libgomp's: libomp binds the initial thread on its first call, so worker 0 ran where
# the launch put it first, and moved once: what these runs say of it differs under
# clang, and the runs above say what libomp does.)
if [ "$plain_cc" != gcc ]; then
    skip "workers bound one per PU, SMT siblings" "libomp binds the initial thread on its first call, not when it loads: worker 0 moves once under $plain_cc (the OMP_PLACES={$A} run above checks what libomp does)"
else
if [ "$B" -ge 0 ]; then
    run spread OMP_NUM_THREADS=2 "OMP_PLACES={$A},{$B}" OMP_PROC_BIND=close -- ./place
    expect_jq "OMP_PLACES={$A},{$B} close: worker 0 on PU $A (core $CA), worker 1 on PU $B (core $CB), no moves" spread.json \
        '[.placement.workers[] | [.id, [.pus[].pu], .moves, .core]]' "[[0, [$A], 0, $CA], [1, [$B], 0, $CB]]"
    expect_jq "OMP_PLACES={$A},{$B}: no PU or core shared, nothing flagged" spread.json \
        '[.placement.sharing, .placement.flags]' '[[], []]'
    check "OMP_PLACES={$A},{$B}: the flags table says there is nothing to flag" "$(indent spread.txt 3)" -- \
        grep -qx '(nothing to flag: every worker stayed on its PU, none shared one)' spread.txt
    got=$(rows spread 'Per-thread concurrency' '{ print $4, $5, $7 }')
    check "OMP_PLACES={$A},{$B}: per-thread table: pu and core $A $CA, $B $CB" "got: $got" -- \
        test "$got" = "$A $CA 0 $B $CB 0 "
    # The same run on a machine where A and B were SMT siblings: its topology changed so
    # (the report's side of SMT, on any machine).
    jq -c --argjson b "$B" --argjson c "$CA" '.machine.topology.pus |= map(if .[0] == $b then .[1] = $c else . end)' \
        spread.out > smtlike.out
    "$bin/cprof-report" --json smtlike.out > smtlike.json 2> smtlike.err
    sibs=$(jq -r --argjson c "$CA" '[.machine.topology.pus[] | select(.[1] == $c) | .[0]] | join(",")' smtlike.out)
    share=$(jq '.placement.sharing[0].pct_core' smtlike.json 2> /dev/null)
    expect_jq "OMP_PLACES={$A},{$B}, A and B made siblings of core $CA: they shared that core, for worker 1's placed time (a ns per bin), flagged" smtlike.json \
        '.placement as $p | [[$p.sharing[] | [.workers, .core, .pu_ns, ((.core_ns - $p.workers[1].placed_ns) | fabs <= 256)]], [$p.flags[].text]]' \
        "[[[[0, 1], $CA, 0, true]], [\"workers 0 and 1 shared core $CA (SMT: PUs $sibs) for $(pct "${share:-0}")% of the run\"]]"
else
    for c in "one per PU: placement" "one per PU: nothing shared" "one per PU: nothing flagged" "one per PU: per-thread" \
             "one per PU, made SMT siblings"; do
        skip "$c" "this process may run on one core only"
    done
fi

# ---- SMT siblings: two PUs of one core ----
if [ "$S1" -ge 0 ]; then
    run smt OMP_NUM_THREADS=2 "OMP_PLACES={$S1},{$S2}" OMP_PROC_BIND=close -- ./place
    expect_jq "OMP_PLACES={$S1},{$S2} (one core): worker 0 on $S1, worker 1 on $S2, core $CS shared for worker 1's placed time" smt.json \
        '.placement as $p | [[$p.workers[] | [.pus[].pu]], [$p.sharing[] | [.workers, .core, .pu_ns, ((.core_ns - $p.workers[1].placed_ns) | fabs <= 256)]]]' \
        "[[[$S1], [$S2]], [[[0, 1], $CS, 0, true]]]"
    share=$(jq '.placement.sharing[0].pct_core' smt.json)
    expect_jq "SMT: the flag names the core and its PUs" smt.json '[.placement.flags[].text]' \
        "[\"workers 0 and 1 shared core $CS (SMT: PUs $(jq -r --argjson c "$CS" '[.placement.machines[0].pus[] | select(.core == $c) | .pu] | join(",")' smt.json)) for $(pct "$share")% of the run\"]"
    same_flags smt
else
    for c in "SMT: placement and sharing" "SMT: the flag" "SMT: flags agree"; do
        skip "$c" "no core with two PUs this process may use"
    done
fi
fi

# ---- unbound ----
run free OMP_NUM_THREADS=2 -- ./place
mask=$(python3 -c 'import os; s = sorted(os.sched_getaffinity(0)); r = []
i = 0
while i < len(s):
    k = i
    while k + 1 < len(s) and s[k + 1] == s[k] + 1: k += 1
    r.append(str(s[i]) if k == i else "%d-%d" % (s[i], s[k])); i = k + 1
print(",".join(r))')
moves=$(jq '[.placement.workers[].moves] | add' free.json)
if [ "$B" -ge 0 ]; then
    expect_jq "unbound: the flag says so, with the PUs the OS may use and the moves seen" free.json \
        '[.placement.flags[] | select(.kind == "unbound") | .text]' \
        "[\"unbound: OMP_PROC_BIND not set: the OS may move the 2 workers between PUs $mask ($moves move$([ "$moves" = 1 ] || echo s) seen)\"]"
else
    skip "unbound: the flag" "this process may run on one core only"
fi
expect_jq "unbound: every worker's PU times add up to its placed time, its pct_run is placed / span" free.json \
    '.placement as $p | [$p.workers[] | ((.pus | map(.ns) | add) == .placed_ns) and
        ((.pct_run - 100 * .placed_ns / $p.processes[0].span_ns) | fabs < 1e-9)] | all' 'true'
same_flags free

# ---- a forced migration: the initial thread re-pins itself from A to B mid-run ----
if [ "$B" -ge 0 ]; then
    run repin OMP_NUM_THREADS=2 CPROF_TRACE=1 -- taskset -c "$A" ./place repin "$B"
    expect_jq "re-pinned: worker 0 on $A then $B, one move; worker 1 stayed on $A" repin.json \
        '[.placement.workers[] | [.id, [.pus[].pu], .moves]]' "[[0, [$A, $B], 1], [1, [$A], 0]]"
    expect_jq "re-pinned: worker 0 ran longest on $B (core $CB), worker 1 on $A (core $CA)" repin.json \
        '[.workers[] | [.pu, .core]]' "[[$B, $CB], [$A, $CA]]"
    share=$(jq '.placement.sharing[] | select(.pu == '"$A"') | .pct_pu' repin.json)
    expect_jq "re-pinned: the flags (confined at the start, the PU shared before the move, the move)" repin.json \
        '[.placement.flags[].text]' \
        "[\"confined: the affinity mask allows PU $A only, and 2 workers take turns on it (OMP_PROC_BIND not set)\",
          \"workers 0 and 1 shared PU $A (core $CA) for $(pct "$share")% of the run\",
          \"worker 0 moved 1 time (PUs $(python3 -c "a, b = sorted([$A, $B]); print('%d-%d' % (a, b) if b == a + 1 else '%d,%d' % (a, b))"))\"]"
    expect_jq "re-pinned: they shared PU $A before the move only (less than worker 1's placed time)" repin.json \
        '.placement as $p | [$p.sharing[] | .pu_ns > 0 and .pu_ns < $p.workers[1].placed_ns] | all' 'true'
    same_flags repin
    got=$(rows repin 'Per-thread concurrency' '{ print $4, $5, $7 }')
    check "re-pinned: the per-thread table's pu and core are where each ran longest ($B $CB, $A $CA), not where it first ran" \
        "got: $got" -- test "$got" = "$B $CB 1 $A $CA 0 "
    "$bin/cprof-report" --trace repin.out > repin.trace 2> trace.err
    names=$(jq -r '.traceEvents[] | select(.name == "thread_name") | .args.name' repin.trace 2> /dev/null | tr '\n' '|')
    check "re-pinned: the trace names each worker's core: $CB, then $CA" "got: $names" "$(indent trace.err)" -- \
        test "$names" = "worker 0 (OpenMP thread 0, core $CB)|worker 1 (OpenMP thread 1, core $CA)|"
else
    for c in "re-pinned: the move" "re-pinned: main PUs" "re-pinned: flags" "re-pinned: sharing" \
             "re-pinned: flags agree" "re-pinned: per-thread" "re-pinned: trace names"; do
        skip "$c" "this process may run on one core only"
    done
fi

# ---- a sequential program re-pinned: seen by the CPU samples, or at the write ----
if [ "$B" -ge 0 ]; then
    run seq OMP_NUM_THREADS=2 -- taskset -c "$A" ./place seq "$B"
    expect_jq "sequential, no samples: observed as it was made and at the write, the move seen then, B's time 0" seq.json \
        '[.placement.workers[] | [.observations, .moves, [.pus[] | [.pu, .ns > 0]]]]' "[[2, 1, [[$A, true], [$B, false]]]]"
    run samples OMP_NUM_THREADS=2 CPROF_RESOURCES=cpu:1000000 -- taskset -c "$A" ./place seq "$B"
    if jq -e '.resources[0].available' samples.out > /dev/null 2>&1; then
        expect_jq "sequential, CPU samples every ms: more observations, the move seen by one, time on both PUs" samples.json \
            '[.placement.workers[] | [.observations > 20, .moves, [.pus[] | [.pu, .ns > 50000000]]]]' \
            "[[true, 1, [[$A, true], [$B, true]]]]"
    else
        skip "sequential, CPU samples: the move seen by a sample" "perf_event_open refused here"
    fi
else
    for c in "sequential, no samples" "sequential, CPU samples"; do
        skip "$c" "this process may run on one core only"
    done
fi

# ---- tasks: observed once 2^16 ticks have passed since the last observation ----
# 40002 tasks: far fewer observations (each of the old rule's per task was 150
# instructions, more than a tiny task), and the move one of them makes is still seen
# by the next task's: the last task's 60 ms are B's.
if [ "$B" -ge 0 ]; then
    run tasks OMP_NUM_THREADS=1 -- taskset -c "$A" ./place tasks "$B"
    expect_jq "tasks: fewer observations than tasks, the move seen, the last task's 60 ms on B" tasks.json \
        '[.placement.workers[] | [.observations < 40002, .moves, [.pus[] | [.pu, .ns > 0]],
                                  [.pus[] | select(.pu == '"$B"') | .ns > 50000000]]]' \
        "[[true, 1, [[$A, true], [$B, true]], [true]]]"
else
    skip "tasks: fewer observations than tasks" "this process may run on one core only"
fi

# ---- the kernel's count of migrations (CPROF_RESOURCES=migrations) ----
run mig OMP_NUM_THREADS=2 CPROF_RESOURCES=migrations -- taskset -c "$A" ./place
if jq -e '.resources[0].available' mig.out > /dev/null 2>&1; then
    expect_jq "migrations: confined to PU $A, the kernel counted none for either worker" mig.json \
        '[.placement.workers[] | [.id, .kernel_migrations]]' '[[0, 0], [1, 0]]'
    # A worker without a counter: its count not measured, never 0.
    jq -c '.workers[1].resources[0][0] = null' mig.out > nomig.out
    "$bin/cprof-report" -b nomig.out > nomig.txt
    "$bin/cprof-report" --json nomig.out > nomig.json
    got=$(rows nomig 'Placement' '{ print $(NF - 3) }')
    check "migrations: a worker without a counter has '-' in the text's migrations column" "got: $got" -- \
        test "$got" = "0 - "
    got=$(csv_col nomig placement kernel_migrations | tr '\n' '|')
    check "migrations: and an empty cell in --csv placement" "got: $got" -- test "$got" = "0||"
    expect_jq "migrations: and null in --json (the key there)" nomig.json \
        '[.placement.workers[] | [has("kernel_migrations"), .kernel_migrations]]' '[[true, 0], [true, null]]'
else
    for c in "migrations: none counted" "migrations: text" "migrations: csv" "migrations: json"; do
        skip "$c" "perf_event_open refused here"
    done
fi

# ---- the topology is lstopo's ----
python3 - topo.xml one.out > topo.diff <<'PY'
import json, sys, xml.etree.ElementTree as ET
def pus(o):
    words = o.get('cpuset').replace('0x', '').split(',')
    v = int(''.join(w.rjust(8, '0') for w in words), 16)
    return [i for i in range(v.bit_length()) if v >> i & 1]
objs = list(ET.parse(sys.argv[1]).getroot().iter('object'))
parent = {c: p for p in objs for c in p.findall('object')}
def up(o, t):
    while o in parent:
        o = parent[o]
        if o.get('type') == t:
            return o
of = lambda t: [o for o in objs if o.get('type') == t]
cores, nodes = of('Core'), of('NUMANode')
want = {'pus': [], 'packages': [], 'numa_nodes': [], 'caches': []}
for o in of('PU'):
    os_ = int(o.get('os_index'))
    c, p = up(o, 'Core'), up(o, 'Package')
    n = next((int(x.get('os_index')) for x in nodes if os_ in pus(x)), -1)
    want['pus'].append([os_, cores.index(c) if c is not None else -1,
                        int(p.get('os_index')) if p is not None else -1, n])
want['packages'] = [{'os': int(o.get('os_index')), 'pus': pus(o)} for o in of('Package')]
want['numa_nodes'] = [{'os': int(o.get('os_index')), 'memory': int(o.get('local_memory', 0)),
                       'pus': pus(o)} for o in nodes]
types = ['unified', 'data', 'instruction']
for t in ['L1Cache', 'L1iCache', 'L2Cache', 'L2iCache', 'L3Cache', 'L3iCache', 'L4Cache', 'L5Cache']:
    want['caches'] += [{'level': int(o.get('depth')), 'type': types[int(o.get('cache_type'))],
                        'size': int(o.get('cache_size')), 'line': int(o.get('cache_linesize')),
                        'pus': pus(o)} for o in of(t)]
got = json.load(open(sys.argv[2]))['machine']['topology']
for k in want:
    if got[k] != want[k]:
        print(k, 'lstopo:', json.dumps(want[k])[:300], 'profile:', json.dumps(got[k])[:300])
m = json.load(open(sys.argv[2]))['machine']
if [m['pus'], m['cores'], m['packages']] != [len(want['pus']), len(cores), len(want['packages'])]:
    print('counts', m)
PY
check "the profile's topology is lstopo's: each PU's core, package and node, packages, NUMA nodes and their memory, every cache and the PUs sharing it" \
    "$(indent topo.diff)" -- test ! -s topo.diff
expect_jq "--json: the machine as the profile has it" one.json \
    '.placement.machines[0] | [.hwloc != "", (.pus | length), (.caches | length) > 0]' \
    "[true, $(jq '.machine.pus' one.out), true]"
got=$(rows one Machine '$1 == "PU" { print $2 }')
check "the machine table: its PU row counts the machine's PUs" "got: $got" -- test "$got" = "$(jq .machine.pus one.out) "

# ---- the helper changes nothing in the program ----
# Its own malloc, which says on stderr if it is called after main (the runtime writes
# the profile then, and runs the helper); a SIGCHLD handler; stdout and stderr closed.
cat > quiet.c <<'C'
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static _Alignas(16) unsigned char pool[1 << 22];
static size_t used;
static volatile int ended;
void *malloc(size_t n)
{
    if (ended)
        write(2, "malloc after main\n", 18);
    size_t need = ((n + 15) & ~(size_t)15) + 16;
    size_t at = __atomic_fetch_add(&used, need, __ATOMIC_RELAXED);
    if (at + need > sizeof pool) {
        errno = ENOMEM;
        return NULL;
    }
    return pool + at + 16;
}
void free(void *p) { (void)p; }
void *calloc(size_t n, size_t size) { return malloc(n * size); }
void *realloc(void *p, size_t n)
{
    void *q = malloc(n);
    if (q && p)
        memcpy(q, p, n);    /* blocks are never reused: reading past the old one is safe here */
    return q;
}
static void on_child(int sig)
{
    (void)sig;
    write(2, "SIGCHLD\n", 8);
}
int work(int n)
{
    int s = 0;
#pragma omp parallel for reduction(+:s)
    for (int i = 0; i < n; i++)
        s += i;
    return s;
}
int main(int argc, char **argv)
{
    signal(SIGCHLD, on_child);
    printf("%d\n", work(100));
    fflush(stdout);
    if (argc > 1) {
        close(1);
        close(2);
    }
    ended = 1;
    return 0;
}
C
"$bin/cprof-cc" -fopenmp -O2 -fno-builtin quiet.c -o quiet > qcc.err 2>&1
"$plain_cc" -fopenmp -O2 -fno-builtin quiet.c -o quiet.gcc > /dev/null 2>&1
OMP_NUM_THREADS=2 CPROF_OUT=quiet.out ./quiet > quiet.stdout 2> quiet.stderr; st=$?
OMP_NUM_THREADS=2 ./quiet.gcc > gcc.stdout 2> gcc.stderr
check "own malloc, a SIGCHLD handler: output, stderr and status are $plain_cc's build's (no malloc after main, no SIGCHLD)" \
    "$(indent qcc.err)" "$(indent quiet.stderr)" -- \
    bash -c "[ $st = 0 ] && cmp -s quiet.stdout gcc.stdout && cmp -s quiet.stderr gcc.stderr &&
             { [ $plain_cc != gcc ] || [ ! -s quiet.stderr ]; }"
# (libomp's shutdown calls the program's malloc, clang's build's as cprof's.)
expect_jq "own malloc: the topology was read all the same" quiet.out '.machine.topology | has("pus")' 'true'
OMP_NUM_THREADS=2 CPROF_OUT=closed.out ./quiet closed > closed.stdout 2> closed.stderr; st=$?
expect_jq "stdout and stderr closed before exit: the helper's pipe took their numbers, the topology was read" \
    closed.out '.machine.topology | has("pus")' 'true'

# Every descriptor taken but the profile's own: the helper cannot run, and the profile
# says why where the topology would be; the report says it too.
cat > nofd.c <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int work(int n) { return n + 1; }
int main(void)
{
    int last = -1, fd;
    while ((fd = open("/dev/null", O_RDONLY)) >= 0)
        last = fd;
    close(last);    /* one for the profile */
    printf("%d\n", work(1));
    return 0;
}
C
"$bin/cprof-cc" -O2 nofd.c -o nofd > /dev/null 2>&1
(ulimit -n 64; CPROF_OUT=nofd.out ./nofd > nofd.stdout 2> nofd.stderr)
"$bin/cprof-report" -b nofd.out > nofd.txt 2> nofd.err
expect_jq "no descriptor left for the helper's pipe: the profile says why, the counts are -1" nofd.out \
    '[.machine.pus, .machine.cores, .machine.packages, (.machine.topology.error | test("^cannot make a pipe for .*cprof-topology: Too many open files$"))]' \
    '[-1, -1, -1, true]'
check "no topology: the report reads it, and the flags say the topology is unknown and why" "$(indent nofd.err)" "$(indent nofd.txt)" -- \
    bash -c "[ ! -s nofd.err ] && grep -q '^! the machine.s topology is unknown (cannot make a pipe for .*): no cores, packages or NUMA nodes, sharing by PU only\$' nofd.txt"
# What the topology would say is not known: never -1 or 0 in a report (docs/report.md,
# "Times not measured"): '-' in the text, an empty CSV cell, null in --json.
got=$(grep -E '^(packages|cores|processing units) ' nofd.txt | awk '{ print $NF }' | tr '\n' ' ')
check "no topology: the summary's packages, cores and PUs are '-'" "got: $got" -- test "$got" = "- - - "
got=$(rows nofd 'Per-thread concurrency' '{ print $5, $6 }')
check "no topology: the per-thread table's core and node are '-'" "got: $got" -- test "$got" = "- - "
got=$(rows nofd 'Placement' '{ print $7, $8, $9 }')
check "no topology: the placement table's core, package and node are '-'" "got: $got" -- test "$got" = "- - - "
got=$(for s in "summary packages" "summary cores" "summary pus" "threads core" "threads node" \
                "placement core" "placement package" "placement node" "placement-flags pu" \
                "placement-flags core" "placement-flags count" "placement-flags pct_run"; do
          if [ "${s%% *}" = summary ]; then
              csv_col nofd summary key | paste -d' ' - <(csv_col nofd summary value) |
                  awk -v k="${s#* }" '$1 == k { print "[" $2 "]" }'
          else
              csv_col nofd ${s%% *} ${s#* } | sed 's/.*/[&]/'
          fi
      done | tr -d '\n')
check "no topology: --csv summary, threads, placement and placement-flags leave those cells empty" "got: $got" -- \
    test "$got" = "[][][][][][][][][][][][]"
"$bin/cprof-report" --json nofd.out > nofd.json
expect_jq "no topology: --json gives null for the machine's counts, the workers' cores, the placement's places and the flag's figures" nofd.json \
    '[.machine[], .workers[0].core, (.placement.workers[0] | .core, .package, .node, (.pus[0] | .core, .package, .node)),
      (.placement.flags[0] | .kind, .pu, .core, .count, .pct_run)]' \
    '[null, null, null, null, null, null, null, null, null, null, "topology", null, null, null, null]'

# ---- a profile whose placement is broken: one line, exit 1 ----
# refused NAME JQ WANT: one.out changed by JQ is refused with "invalid profile: WANT".
refused() {
    jq -c "$2" one.out > bad.out
    "$bin/cprof-report" bad.out > bad.txt 2> bad.err; local st=$?
    check "a broken placement refused in one line: $1" "status $st" "$(indent bad.err)" -- \
        bash -c '[ "$1" = 1 ] && [ ! -s bad.txt ] && [ "$(cat bad.err)" = "cprof-report: bad.out: invalid profile: $2" ]' \
        _ "$st" "$3"
}
refused "a worker's without the header's" 'del(.placement)' \
    'its workers have a placement, the header none'
refused "PU times that do not add up" '.workers[1].placement.placed_ns += 1' \
    'workers[1].placement does not add up (the PUs'"'"' times are its placed_ns, first_ns <= last_ns, fewer moves than observations)'
refused "bins out of order" '.workers[0].placement.bins |= reverse' \
    'workers[0].placement.bins[1] is out of order or range'
refused "a PU set out of order" '.machine.topology.packages[0].pus |= [.[], .[0]]' \
    'machine.topology.packages[0] is not a list of PUs (OS indexes below 65536, ascending)'
refused "a topology with an error and more" '.machine.topology.error = "x"' \
    'machine.topology has an error and more'
refused "a key no one declares" '.workers[0].placement.extra = 1' \
    'workers[0].placement has an unexpected key "extra"'

# ---- the HTML page ----
"$bin/cprof-report" --html one.out > one.html
browser=$(command -v chromium || command -v chromium-browser)
if [ -z "$browser" ]; then
    skip "chromium: the page shows the placement, its flags, the binding and the machine" "chromium is not installed (make deps)"
else
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chromium" \
        --dump-dom "file://$tmp/one.html" 2> chromium.err | tr '\n' ' ' > dom.html
    section() { grep -o "<div class=\"placement\" id=\"section-$1\">.*" dom.html | sed 's#</table>.*##'; }
    flag_cells=$(section placement-flags | grep -o '<td class="l">! [^<]*' | sed 's/<td class="l">//; s/&gt;/>/g' | paste -sd'|')
    want=$(text_flags one | paste -sd'|')
    worker_rows=$(section placement | grep -o '<tr><td class="">' | wc -l)
    check "chromium: the page shows the placement (2 workers), the flags as the text report prints them, the binding and the machine" \
        "flags: $flag_cells" "want:  $want" "rows: $worker_rows" "$(indent chromium.err 3)" -- \
        bash -c "[ -n '$want' ] && [ '$flag_cells' = '$want' ] && [ $worker_rows = 2 ] &&
            grep -q '<div class=\"placement\" id=\"section-binding\"><h3>Binding</h3>' dom.html &&
            grep -q '<div class=\"placement\" id=\"section-machine\"><h3>Machine</h3>' dom.html"
fi

# ---- an MPI job: each rank's binding, cross-rank sharing on a host ----
if ! command -v mpirun > /dev/null 2>&1 || ! command -v mpicc > /dev/null 2>&1; then
    for c in "MPI: ranks confined to one PU" "MPI: flags per rank and host"; do
        skip "$c" "mpirun or mpicc not installed (make deps: openmpi-bin, libopenmpi-dev)"
    done
else
    cat > ranks.c <<'C'
#include <mpi.h>
#include <time.h>
void spin(double ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) * 1e-6 < ms);
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    spin(200);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
C
    OMPI_CC="$bin/cprof-cc" mpicc -O2 ranks.c -o ranks > mpicc.err 2>&1
    root_ok=$([ "$(id -u)" = 0 ] && echo --allow-run-as-root)
    # Both ranks confined to PU A by the launcher's mask: they take turns on it.
    CPROF_OUT=rank.%r.out OMP_NUM_THREADS=1 taskset -c "$A" mpirun --oversubscribe --bind-to none \
        $root_ok -x OMP_NUM_THREADS -x CPROF_OUT -np 2 ./ranks > mpirun.out 2>&1
    "$bin/cprof-report" --json rank.0.out rank.1.out > ranks.json 2> ranks.err
    "$bin/cprof-report" -b rank.0.out rank.1.out > ranks.txt 2>> ranks.err
    host=$(hostname)
    expect_jq "MPI: ranks 0 and 1, each confined to PU $A on $host: its binding row, its one worker on $A" ranks.json \
        '.placement | [[.processes[] | [.rank, .host, .affinity]], [.workers[] | [.rank, .id, [.pus[].pu]]]]' \
        "[[[0, \"$host\", [$A]], [1, \"$host\", [$A]]], [[0, 0, [$A]], [1, 0, [$A]]]]"
    share=$(jq '.placement.sharing[0].pct_pu' ranks.json 2> /dev/null)
    expect_jq "MPI: the two ranks' workers shared PU $A, flagged across ranks, for most of the run" ranks.json \
        "[[.placement.flags[].text], (.placement.sharing[0].pct_pu > 50)]" \
        "[[\"rank 0 worker 0 and rank 1 worker 0 shared PU $A (core $CA) for $(pct "${share:-0}")% of the run\"], true]"
    got="$(rows ranks Binding '{ print $1, $2, $NF }')| $(rows ranks Placement '{ print $1, $2, $3 }')"
    check "MPI: the text report's binding and placement tables have a row per rank, named by rank and host" \
        "got: $got" "$(indent mpirun.out)" "$(indent ranks.err)" -- \
        test "$got" = "0 $host $A 1 $host $A | 0 $host 0 1 $host 0 "
fi
finish
