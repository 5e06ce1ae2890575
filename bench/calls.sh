#!/usr/bin/env bash
# Added cost per call of cprof against the floor (two TSC reads and a thread-local add
# per call: the least any timing facade costs), gprof's -pg, -finstrument-functions
# with empty hooks and uftrace, sequentially and in parallel loops of 1, 2 and 4
# threads.  Every figure comes from this run: ROUNDS interleaved rounds, medians.
# What it prints is also written to BENCH_RESULTS (default bench/results/calls.txt, the
# file docs/performance.md quotes), after the machine, the compiler and the commit.
set -u
# The timed rows time every activation; the sampled row (issue 30) takes the default.
export CPROF_TIMING=every
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
rounds=${BENCH_ROUNDS:-5}
n=${BENCH_CALLS:-20000000}
results=${BENCH_RESULTS:-$root/bench/results/calls.txt}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "$results"
echo "rounds: $rounds, calls a run: $n"
cd "$tmp"

src=$root/bench/calls.c
gcc -O2 -fopenmp "$src" -o plain
gcc -O2 -fopenmp -DFLOOR "$src" -o floor
gcc -O2 -fopenmp -pg "$src" -o pg
gcc -O2 -fopenmp -finstrument-functions "$src" "$root/bench/hooks.c" -o finstr
"$bin/cprof-cc" -O2 -fopenmp "$src" -o cprof
gcc -O2 -fopenmp -DALTERNATE "$src" -o plain_alt
"$bin/cprof-cc" -O2 -fopenmp -DALTERNATE "$src" -o cprof_alt
if ! command -v uftrace > /dev/null && [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q uftrace > /dev/null 2>&1
fi
have_uftrace=$(command -v uftrace > /dev/null && echo 1 || echo 0)
[ "$have_uftrace" = 1 ] || echo "uftrace is not installed (apt-get install uftrace): its row is skipped"

variants="plain floor pg finstr cprof sampled flat count traced"
[ "$have_uftrace" = 1 ] && variants="$variants uftrace"
modes="0 1 2 4"     # 0: sequential; T: parallel for on T threads

# One measurement: ns per call per thread, printed by the program itself.
measure() {
    local v=$1 t=$2 arg=""
    [ "$t" != 0 ] && arg=$t
    case $v in
        count)   CPROF_MODE=count CPROF_OUT=/dev/null ./cprof "$n" $arg ;;
        cprof)   CPROF_OUT=/dev/null ./cprof "$n" $arg ;;
        sampled) CPROF_TIMING=sampled CPROF_OUT=/dev/null ./cprof "$n" $arg ;;
        flat)    CPROF_PATHS=0 CPROF_OUT=/dev/null ./cprof "$n" $arg ;;
        # A buffer that holds every event: what recording costs, not dropping.
        traced)  CPROF_TRACE=1 CPROF_TRACE_BUFFER=1G CPROF_OUT="$tmp/traced.out" ./cprof "$n" $arg
                 rm -f "$tmp"/traced.out* ;;
        uftrace) uftrace record -d "$tmp/uft" ./pg $((n / 20)) $arg; rm -rf "$tmp/uft" ;;
        pg)      ./pg "$n" $arg; rm -f gmon.out ;;
        *)       ./"$v" "$n" $arg ;;
    esac 2> /dev/null | awk 'NR == 1 { print $1 }'
}
for r in $(seq "$rounds"); do
    for t in $modes; do
        for v in $variants; do
            echo "$v $t $(measure "$v" "$t")" >> raw
        done
    done
done

# median VARIANT T
median() { awk -v v="$1" -v t="$2" '$1 == v && $2 == t { print $3 }' raw | sort -g |
           awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
added() { awk -v a="$(median "$1" "$2")" -v b="$(median plain "$2")" 'BEGIN { if (a != "") printf "%.2f", a - b }'; }

echo
echo "Added cost per call (ns), median of $rounds interleaved rounds, $n calls a run"
printf '%-28s %10s %10s %10s %10s\n' "" sequential "1 thread" "2 threads" "4 threads"
label() { case $1 in
    plain) echo "plain call (ns, not added)" ;; floor) echo "floor: 2 rdtsc + TLS add" ;;
    pg) echo "gcc -pg (gprof, counts)" ;; finstr) echo "-finstrument-functions" ;;
    cprof) echo "cprof (timed)" ;; count) echo "cprof CPROF_MODE=count" ;;
    sampled) echo "cprof, sampled (default)" ;;
    flat) echo "cprof, CPROF_PATHS=0" ;; traced) echo "cprof, CPROF_TRACE=1" ;;
    uftrace) echo "uftrace record (-pg build)" ;; esac; }
for v in $variants; do
    printf '%-28s' "$(label "$v")"
    for t in $modes; do
        if [ "$v" = plain ]; then printf ' %10s' "$(median plain "$t")"; else printf ' %10s' "$(added "$v" "$t")"; fi
    done
    echo
done

echo
echo "Targets"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
verdict() { awk -v r="$1" -v lim="$2" 'BEGIN { print (r != "n/a" && r <= lim) ? "met" : "NOT met" }'; }
line() { printf '  %-52s %6s  (target <= %s)  %s\n' "$1" "$2" "$3" "$(verdict "$2" "$3")"; }
for t in $modes; do
    name="cprof / floor, sequential"; [ "$t" != 0 ] && name="cprof / floor, $t thread(s)"
    line "$name" "$(ratio "$(added cprof "$t")" "$(added floor "$t")")" 1.30
done
if [ "$have_uftrace" = 1 ]; then
    line "cprof / uftrace, sequential" "$(ratio "$(added cprof 0)" "$(added uftrace 0)")" 0.25
fi
line "cprof count-only / gcc -pg, sequential" "$(ratio "$(added count 0)" "$(added pg 0)")" 1.50
# Call paths (issue 12): the calling-context tree against the same facade without it.
for t in $modes; do
    name="cprof / cprof CPROF_PATHS=0, sequential"; [ "$t" != 0 ] && name="cprof / cprof CPROF_PATHS=0, $t thread(s)"
    line "$name" "$(ratio "$(added cprof "$t")" "$(added flat "$t")")" 1.10
done

# Tracing (issue 14): what it adds to the timed facade, against what that adds.
for t in $modes; do
    name="(cprof traced - cprof) / cprof, sequential"; [ "$t" != 0 ] && name="(cprof traced - cprof) / cprof, $t thread(s)"
    line "$name" "$(ratio "$(awk -v a="$(added traced "$t")" -v b="$(added cprof "$t")" 'BEGIN { print a - b }')" \
                          "$(added cprof "$t")")" 2.00
done

# Memory grows with routines x workers and arcs, never with the number of calls.  The
# median of 5 runs each: one run's peak moves by 7% either way (1976K / 1840K once,
# 2068K / 1924K another time), the pages libgomp's two threads happen to touch.
peak() { for i in 1 2 3 4 5; do { CPROF_OUT=/dev/null /usr/bin/time -f %M ./cprof "$1" 2 > /dev/null; } 2>&1 | tail -1; done |
         sort -n | sed -n 3p; }
small=$(peak $((n / 20)))
large=$(peak "$n")
printf '  %-52s %6s  (target <= 1.05)  %s\n' \
    "peak memory, $n calls / $((n / 20)) calls (${large}K / ${small}K)" \
    "$(ratio "$large" "$small")" "$(verdict "$(ratio "$large" "$small")" 1.05)"

# No system call per call: a run with 20 times the calls makes as many system calls.
# libgomp's own futex and sched_yield calls are left out: how often its threads wait
# at the team's barriers depends on how they are scheduled, not on cprof (107 against
# 106 once, on a busy machine).
if command -v strace > /dev/null; then
    syscalls() { CPROF_OUT=/dev/null strace -f -c -e 'trace=!futex,sched_yield' -o "$tmp/strace" ./cprof "$1" 2 > /dev/null 2>&1
                 awk '$NF == "total" { print $(NF - 2) }' "$tmp/strace"; }
    few=$(syscalls $((n / 20))); many=$(syscalls "$n")
    printf '  %-52s %6s  (target: equal)  %s\n' "system calls, $n calls / $((n / 20)) calls" \
        "$many/$few" "$([ "$many" = "$few" ] && echo met || echo "NOT met")"
else
    echo "  strace is not installed: the system-call check is skipped"
fi

# Instructions per call, counted by callgrind: the same on every run and every CPU, and
# what the facade's budget is stated in.  Each variant runs N and 2N calls; the
# difference over N is per call, start-up and exit cancel out.  Threads wait passively
# (OMP_WAIT_POLICY=passive): libgomp's barrier spin would vary the count; with T
# threads the figure is the program's instructions over all calls, every thread's.
gcc -O2 -fopenmp -DINLINE "$src" -o plain_inline
"$bin/cprof-cc" -O2 -fopenmp -DINLINE "$src" -o cprof_inline
# The same with clang and LLVM's OpenMP runtime (docs/cprof-cc.md, "Clang"): its
# facade asks libomp, which OMPT observes.
have_clang=$(command -v clang > /dev/null && echo 1 || echo 0)
if [ "$have_clang" = 1 ]; then
    clang -O2 -fopenmp "$src" -o plain_clang
    "$bin/cprof-clang" -O2 -fopenmp "$src" -o cprof_clang
    clang -O2 -fopenmp -DINLINE "$src" -o plain_inline_clang
    "$bin/cprof-clang" -O2 -fopenmp -DINLINE "$src" -o cprof_inline_clang
fi
if command -v valgrind > /dev/null; then
    cn=100000
    instr() {  # instr ENV... -- PROG [T]: instructions per call
        local -a envs=()
        while [ "$1" != -- ]; do envs+=("$1"); shift; done
        shift
        local a b
        a=$(env "${envs[@]}" OMP_WAIT_POLICY=passive CPROF_OUT=/dev/null valgrind --tool=callgrind \
                --callgrind-out-file=/dev/null ./"$1" "$cn" ${2:-} 2>&1 | awk '/Collected/ { print $NF }')
        b=$(env "${envs[@]}" OMP_WAIT_POLICY=passive CPROF_OUT=/dev/null valgrind --tool=callgrind \
                --callgrind-out-file=/dev/null ./"$1" $((2 * cn)) ${2:-} 2>&1 | awk '/Collected/ { print $NF }')
        awk -v a="$a" -v b="$b" -v n="$cn" 'BEGIN { printf "%.1f", (b - a) / n }'
    }
    echo
    echo "Instructions added per call (valgrind --tool=callgrind; the same on any CPU)"
    printf '%-44s %10s %10s %10s %10s %8s\n' "" sequential "1 thread" "2 threads" "4 threads" target
    declare -A rows
    irow() {  # irow LABEL TARGET BASE ENV... -- PROG: target "-", a number, or "+N" (over timed)
        local label=$1 target=$2 base=$3; shift 3
        local t x b out="" verdict="met" limit
        for t in 0 1 2 4; do
            local arg=""; [ "$t" != 0 ] && arg=$t
            b=$(instr -- "$base" $arg)
            x=$(instr "$@" $arg)
            x=$(awk -v x="$x" -v b="$b" 'BEGIN { printf "%.1f", x - b }')
            rows[$label,$t]=$x
            out="$out $(printf '%10s' "$x")"
            case $target in
                -) verdict="" ;;
                +*) limit=$(awk -v a="${rows[cprof, timed,$t]}" -v d="${target#+}" 'BEGIN { print a + d }') ;;
                *) limit=$target ;;
            esac
            [ -n "$verdict" ] && ! awk -v x="$x" -v l="$limit" 'BEGIN { exit !(x <= l) }' && verdict="NOT met"
        done
        printf '%-44s%s %8s  %s\n' "$label" "$out" "$target" "$verdict"
    }
    irow "floor: 2 rdtsc + TLS add" - plain -- floor
    irow "gcc -pg (gprof, counts)" - plain -- pg
    irow "cprof, timed" 80 plain -- cprof
    # The calls' context and case are the slot's key: two callees in turn from one
    # context cost what one does.
    irow "cprof, timed, two callees in turn" +5 plain_alt -- cprof_alt
    irow "cprof, timed, no call paths (CPROF_PATHS=0)" - plain CPROF_PATHS=0 -- cprof
    irow "cprof, CPROF_MODE=count" 25 plain CPROF_MODE=count -- cprof
    # CPROF_TIMING=sampled: the tiny routine's slot is sampled after its first 16 calls;
    # then 31 calls in 32 take the untimed path, and the figure is the mean over all.
    irow "cprof, sampled hot routine (unsampled calls)" 25 plain CPROF_TIMING=sampled -- cprof
    # Tracing, recorded at every call (not written: the profile goes to /dev/null),
    # against the timed facade: the two rows' added instructions.
    irow "cprof, timed, traced (CPROF_TRACE=1)" - plain CPROF_TRACE=1 -- cprof
    for t in 0 1 2 4; do
        r=$(awk -v a="${rows[cprof, timed, traced (CPROF_TRACE=1),$t]}" -v b="${rows[cprof, timed,$t]}" \
                'BEGIN { printf "%.2f", a / b }')
        printf '%-44s %10s %8s  %s\n' "traced's added / timed's, $([ $t = 0 ] && echo sequential || echo "$t thread(s)")" \
            "$r" "<= 2.00" "$(awk -v r="$r" 'BEGIN { print r <= 2 ? "met" : "NOT met" }')"
    done
    irow "cprof, small routine counted at its sites" 25 plain_inline -- cprof_inline
    if [ "$have_clang" = 1 ]; then
        echo "clang, libomp (cprof-clang):"
        irow "cprof, timed" 80 plain_clang -- cprof_clang
        irow "cprof, CPROF_MODE=count" 25 plain_clang CPROF_MODE=count -- cprof_clang
        irow "cprof, small routine counted at its sites" 25 plain_inline_clang -- cprof_inline_clang
    else
        echo "  clang is not installed: the libomp rows are skipped"
    fi
else
    echo "  valgrind is not installed: instruction counts are skipped"
fi
exec >&-
wait "$!" 2> /dev/null
