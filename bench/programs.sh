#!/usr/bin/env bash
# Whole programs (issue 30): the call-heavy examples (rsbench, uts, stencil) and those
# shaped like the programs where cprof was slowest (interp: a bytecode interpreter of
# small non-static helpers; fibtask: a task per fib call; md: a non-static pair routine
# per pair; inlined: Graph500-style `static inline` helpers with asserts).
#
# 1. Instructions (callgrind, one thread: the same on every run and every machine) of
#    one whole run, gcc -O2 -fopenmp against cprof-cc -O2 -fopenmp with default settings,
#    and with CPROF_TIMING=every exported (every activation timed).  Target: the
#    geometric mean of cprof / gcc <= 1.25 with default settings, none above 1.6.  The
#    inputs are smaller than the examples' own (compile-time -D, printed) so that a run
#    under callgrind takes under a minute.
# 2. Wall time at 2 threads with the examples' own inputs: gcc, cprof default and cprof
#    with CPROF_TIMING=every, interleaved rounds (BENCH_ROUNDS), medians; and whether the
#    two cprof runs' profiles have the same counts, cases, arcs, contexts, regions and
#    tasks (tests/lib/same_profile.py): sampled timing must not change a count.
# Every run's output must equal the plain build's.  What it prints is also written to
# BENCH_RESULTS (default bench/results/programs.txt, which docs/performance.md quotes).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
rounds=${BENCH_ROUNDS:-3}
programs=${BENCH_PROGRAMS:-"rsbench uts stencil interp fibtask md inlined"}
results=${BENCH_RESULTS:-$root/bench/results/programs.txt}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "$results"
echo "callgrind: $(valgrind --version)"
unset CPROF_TIMING CPROF_MODE CPROF_PATHS CPROF_TRACE

# The smaller inputs of the callgrind runs.
small() {
    case $1 in
        rsbench) echo "-DLOOKUPS=6000" ;;
        uts)     echo "-DROOT_CHILDREN=400" ;;
        stencil) echo "-DN=1024 -DSWEEPS=4" ;;
        interp)  echo "-DINPUTS=300" ;;
        fibtask) echo "-DFIB_HIGH=20" ;;
        md)      echo "-DSTEPS=1" ;;
        inlined) echo "-DEDGES=100000" ;;
    esac
}

# run NAME BINARY [VAR=VALUE...]: runs it, its output to NAME.txt; fails if the exit
# status is not 0.
run() {
    local name=$1 prog=$2
    shift 2
    env "$@" "$prog" > "$tmp/$name.txt" 2> "$tmp/$name.err" ||
        { echo "$name: exit status $? ($(head -c 300 "$tmp/$name.err"))"; return 1; }
}

# Instructions of one run under callgrind (every thread's), its output to NAME.txt; on
# failure, what went wrong.
instructions() {
    local name=$1 prog=$2
    shift 2
    env OMP_NUM_THREADS=1 CPROF_OUT="$tmp/$name.out" "$@" valgrind --tool=callgrind --log-file="$tmp/$name.vg" \
        --callgrind-out-file="$tmp/$name.cg" "$prog" > "$tmp/$name.txt" 2> "$tmp/$name.err" ||
        { echo "exit status $? under callgrind: $(tail -c 300 "$tmp/$name.err")"; return 1; }
    awk '/^(summary|totals):/ { print $2; exit }' "$tmp/$name.cg"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
med() { sort -g "$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
verdict() { awk -v r="$1" 'BEGIN { print (r <= 1.6) ? "" : "above 1.6" }'; }

echo
echo "== instructions of one run, one thread (OMP_NUM_THREADS=1), callgrind, in millions"
echo "smaller inputs than the examples' own (the -D settings shown); cprof: default settings;"
echo "every: the same build with CPROF_TIMING=every exported (every activation timed); counted:"
echo "the program's process, every thread (not the helper process cprof runs once, when it"
echo "writes the profile, to read the machine's topology)"
printf '%-8s %-20s %9s %9s %9s %9s %9s\n' program "input" gcc cprof every cprof/gcc every/gcc
: > "$tmp/ratios"; : > "$tmp/ratios_every"
for name in $programs; do
    src=$root/examples/$name/$name.c
    [ -f "$src" ] || { echo "$name: $src is missing: skipped"; continue; }
    defs=$(small "$name")
    # shellcheck disable=SC2086
    gcc -O2 -fopenmp $defs "$src" -o "$tmp/cg_plain" -lm &&
        "$bin/cprof-cc" -O2 -fopenmp $defs "$src" -o "$tmp/cg_prof" -lm || { echo "$name: build failed"; continue; }
    p=$(instructions cg_plain "$tmp/cg_plain") || { echo "$name, gcc: $p"; continue; }
    c=$(instructions cg_prof "$tmp/cg_prof") || { echo "$name, cprof: $c"; continue; }
    e=$(instructions cg_every "$tmp/cg_prof" CPROF_TIMING=every) || { echo "$name, every: $e"; continue; }
    same=""
    cmp -s "$tmp/cg_plain.txt" "$tmp/cg_prof.txt" && cmp -s "$tmp/cg_plain.txt" "$tmp/cg_every.txt" ||
        same="OUTPUT DIFFERS from gcc's build"
    r=$(ratio "$c" "$p"); re=$(ratio "$e" "$p")
    echo "$r" >> "$tmp/ratios"; echo "$re" >> "$tmp/ratios_every"
    printf '%-8s %-20s %9.1f %9.1f %9.1f %8sx %8sx  %s\n' "$name" "$defs" "$(ratio "$p" 1e6)" \
        "$(ratio "$c" 1e6)" "$(ratio "$e" 1e6)" "$r" "$re" "$(verdict "$r") $same"
done
if [ -s "$tmp/ratios" ]; then
    awk 'FNR == NR { s += log($1); n++; if ($1 > 1.6) over++; next }
         { se += log($1); ne++ }
         END { g = exp(s / n); printf "geometric mean %.2fx (every: %.2fx)  target <= 1.25x, none above 1.6x: %s\n",
               g, exp(se / ne), (g <= 1.25 && !over) ? "met" : "NOT met" }' "$tmp/ratios" "$tmp/ratios_every"
fi

echo
echo "== wall time at 2 threads, the examples' own inputs: medians of $rounds interleaved rounds, seconds"
export OMP_NUM_THREADS=2
printf '%-8s %8s %8s %8s %9s %9s  %s\n' program gcc cprof every cprof/gcc every/gcc "counts: default = every"
for name in $programs; do
    src=$root/examples/$name/$name.c
    [ -f "$src" ] || continue
    gcc -O2 -fopenmp "$src" -o "$tmp/plain" -lm &&
        "$bin/cprof-cc" -O2 -fopenmp "$src" -o "$tmp/prof" -lm || { echo "$name: build failed"; continue; }
    : > "$tmp/p"; : > "$tmp/c"; : > "$tmp/e"
    ok=1
    for r in $(seq "$rounds"); do
        for v in p c e; do
            case $v in
                p) set -- plain "$tmp/plain" ;;
                c) set -- prof "$tmp/prof" CPROF_OUT="$tmp/default.out" ;;
                e) set -- every "$tmp/prof" CPROF_OUT="$tmp/every.out" CPROF_TIMING=every ;;
            esac
            s=$(date +%s.%N)
            run "$@" || ok=0
            awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { print e - s }' >> "$tmp/$v"
        done
        cmp -s "$tmp/plain.txt" "$tmp/prof.txt" && cmp -s "$tmp/plain.txt" "$tmp/every.txt" || ok=0
    done
    "$bin/cprof-report" --json "$tmp/default.out" > "$tmp/default.json" 2>&1
    "$bin/cprof-report" --json "$tmp/every.out" > "$tmp/every.json" 2>&1
    if python3 "$root/tests/lib/same_profile.py" "$tmp/every.json" "$tmp/default.json" > "$tmp/same" 2>&1; then
        counts="same"
    else
        counts="DIFFER: $(head -1 "$tmp/same")"
    fi
    [ "$ok" = 1 ] || counts="$counts; AN OUTPUT OR EXIT STATUS DIFFERED from gcc's build"
    p=$(med "$tmp/p"); c=$(med "$tmp/c"); e=$(med "$tmp/e")
    printf '%-8s %8.2f %8.2f %8.2f %8sx %8sx  %s\n' "$name" "$p" "$c" "$e" "$(ratio "$c" "$p")" \
        "$(ratio "$e" "$p")" "$counts"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
