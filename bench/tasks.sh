#!/usr/bin/env bash
# Added cost per task of cprof against the same program built by the compiler alone
# (bench/tasks.c: one thread of a team makes N tasks; each task's body calls one tiny
# profiled routine, or nothing in the empty variant; or a tree of N tasks made in
# tasks, each body calling the profiled routine that makes its children).  Instructions counted by
# valgrind --tool=callgrind: each build runs N and 2N tasks, the difference over N is
# per task (start-up and exit cancel out), on 1 and 2 threads.  The figure is cprof's
# minus the plain build's, less (for the calling variant) the profiled call its body
# makes: cprof timed on every call (bench/calls.sh's "cprof, timed", sequential) or,
# in count mode, its count-mode row, measured here the same way.  Threads wait
# passively (OMP_WAIT_POLICY=passive): libgomp's spin would vary the count.  With 2
# threads the figure is every thread's instructions, the runners' included.
# What it prints is also written to BENCH_RESULTS (default bench/results/tasks.txt).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
n=${BENCH_TASKS:-10000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "${BENCH_RESULTS:-$root/bench/results/tasks.txt}"
echo "tasks a run: $n and $((2 * n))"
if ! command -v valgrind > /dev/null; then
    echo "valgrind is not installed: instruction counts are skipped"
    results_done
    exit 0
fi
cd "$tmp"

src=$root/bench/tasks.c
calls=$root/bench/calls.c
build() {  # build SUFFIX PLAIN-CC CPROF-CC
    "$2" -O2 -fopenmp "$src" -o "plain$1"
    "$2" -O2 -fopenmp -DEMPTY "$src" -o "plain_empty$1"
    "$3" -O2 -fopenmp "$src" -o "cprof$1"
    "$3" -O2 -fopenmp -DEMPTY "$src" -o "cprof_empty$1"
    "$2" -O2 -fopenmp -DTREE "$src" -o "plain_tree$1"
    "$3" -O2 -fopenmp -DTREE "$src" -o "cprof_tree$1"
    # The profiled call a body makes, alone: bench/calls.c's sequential loop.
    "$2" -O2 -fopenmp "$calls" -o "plain_calls$1"
    "$3" -O2 -fopenmp "$calls" -o "cprof_calls$1"
}
build "" gcc "$bin/cprof-cc"
have_clang=$(command -v clang > /dev/null && echo 1 || echo 0)
[ "$have_clang" = 1 ] && build _clang clang "$bin/cprof-clang"

# count ENV... -- PROG ARG...: the program's instructions, the median of 3 runs (on 2
# threads, which thread runs which task moves the count by about 2%).  Only the
# program's own process: the runtime's topology helper, a process of its own, reports
# its count too.
count() {
    local -a envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    for r in 1 2 3; do
        env "${envs[@]}" OMP_WAIT_POLICY=passive CPROF_OUT=/dev/null valgrind --tool=callgrind \
            --callgrind-out-file=/dev/null "$@" 2>&1 > /dev/null |
            awk '/Command:/ && !pid { pid = $1 } $1 == pid && /Collected/ { print $NF }'
    done | sort -n | sed -n 2p
}
# instr ENV... -- PROG ARG...: instructions per task (or call), N against 2N.
instr() {
    local -a envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    local prog=$1; shift
    local a b
    a=$(count "${envs[@]}" -- ./"$prog" "$n" "$@")
    b=$(count "${envs[@]}" -- ./"$prog" $((2 * n)) "$@")
    awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN { if (a == "" || b == "") print "failed"; else printf "%.1f", (b - a) / n }'
}
added() {  # added PLAIN ENV... -- PROG ARG...
    local plain=$1; shift
    local -a envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    local x b
    # The plain build with the profiled one's arguments, not its name: that name was
    # once passed on too, where the plain build reads its thread count (atoi: 0, the
    # default team), so both columns' baselines ran on every CPU, and varied from run
    # to run with which thread ran which task (under libomp, with its threads' spin).
    b=$(instr -- "$plain" "${@:2}")
    x=$(instr "${envs[@]}" -- "$@")
    awk -v x="$x" -v b="$b" 'BEGIN { if (x == "failed" || b == "failed") print "failed"; else printf "%.1f", x - b }'
}
# A count below 0 is no measure (the N and 2N runs' counts varied by more than the tasks
# added): never "met".
verdict() { awk -v x="$1" -v l="$2" 'BEGIN { print (x != "failed" && x >= 0 && x <= l) ? "met" : "NOT met" }'; }

less() { awk -v a="$1" -v c="$2" 'BEGIN { if (a == "failed" || c == "failed") print "failed"; else printf "%.1f", a - c }'; }
# row LABEL TARGET CALL ENV PLAIN CPROF: added per task on 1 and 2 threads, less CALL
# (instructions) when it is not empty.
declare -A measured     # one measurement per variant and threads, for the rows that share it
row() {
    local label=$1 target=$2 call=$3 env=$4 plain=$5 prog=$6 t a line="" v=met
    for t in 1 2; do
        [ -n "${measured[$env $prog $t]:-}" ] || measured[$env $prog $t]=$(added "$plain" "$env" -- "$prog" "$t")
        a=${measured[$env $prog $t]}
        [ -n "$call" ] && a=$(less "$a" "$call")
        line="$line $(printf '%10s' "$a")"
        [ "$target" = - ] || [ "$(verdict "$a" "$target")" = met ] || v="NOT met"
    done
    [ "$target" = - ] && v="" || v="  $v"
    printf '  %-58s%s %8s%s\n' "$label" "$line" "$target" "$v"
}
# rows SUFFIX LABEL: one compiler's rows.
rows() {
    local s=$1 mode env label call
    echo "$2"
    printf '  %-58s %10s %10s %8s\n' "" "1 thread" "2 threads" target
    for mode in every count; do
        if [ $mode = every ]; then env=CPROF_TIMING=every; label="timed on every call"
        else env=CPROF_MODE=count; label="CPROF_MODE=count"; fi
        call=$(added "plain_calls$s" "$env" -- "cprof_calls$s")
        row "cprof, $label, empty task" 100 "" "$env" "plain_empty$s" "cprof_empty$s"
        row "cprof, $label, task calling one routine" - "" "$env" "plain$s" "cprof$s"
        printf '  %-58s %10s %10s %8s\n' "  the call alone (bench/calls.c, sequential)" "$call" "$call" -
        row "  the task beyond its body's call" 100 "$call" "$env" "plain$s" "cprof$s"
        row "cprof, $label, tasks made in tasks (fib's shape)" - "" "$env" "plain_tree$s" "cprof_tree$s"
        row "  the task beyond its body's call" 100 "$call" "$env" "plain_tree$s" "cprof_tree$s"
    done
}

echo
echo "Instructions added per task (valgrind --tool=callgrind; the same on any CPU, but"
echo "for placement's: docs/placement.md)"
rows "" "gcc, libgomp (cprof-cc):"
# A task's body reads its PU once 2^16 ticks have passed since the last reading: under
# valgrind, which runs the program many times slower, that is far more often than
# natively, and it varies with the machine's load.  Said, from the profile.
OMP_WAIT_POLICY=passive CPROF_OUT="$tmp/obs.out" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    ./cprof_empty $((2 * n)) 1 > /dev/null 2>&1
obs=$(jq '[.workers[].placement.observations] | add' "$tmp/obs.out" 2> /dev/null)
echo "  (placement read the PU $obs times in the $((2 * n)) empty tasks' run on 1 thread under valgrind)"
if [ "$have_clang" = 1 ]; then
    rows _clang "clang, libomp (cprof-clang):"
else
    echo "  clang is not installed: the libomp rows are skipped"
fi
results_done
