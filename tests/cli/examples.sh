#!/usr/bin/env bash
# Every examples/*/ program, built with cprof-cc and run on 2 threads: its report's
# numbers agree with each other (tests/report/consistency.sh: self <= inclusive in wall
# and in worker time, worker time within elapsed x workers, shares, arcs), and its
# annotated source shows them at their lines (tests/lib/source_check.py).  Under another
# compiler than gcc (tests/run's clang pass), its profile is gcc's build's: the same
# counts, cases, arcs, call paths, regions and tasks (tests/lib/same_profile.py).  The
# exact counts of tests/cli/examples.expect hold; in gcc's pass, a run with every
# activation timed (CPROF_TIMING=every) has the same counts as the default run.
. "$(dirname "$0")/../lib/cli.sh"
# run_example DIR OUT ERR [VAR=VALUE...]: the example's program ($prog) in DIR on 2
# threads, its profile to OUT and its stderr to ERR, where its exit status (a kill by
# the timeout) is said too.  Threads that wait sleep (OMP_WAIT_POLICY=passive):
# libgomp's spinning waits, on a machine busy with other work, made jacobi (a region per
# sweep) run past the timeout, profiled or not (a plain gcc build too, beside two CPU
# hogs).  Counts do not change.
run_example() {
    local dir=$1 out=$2 err=$3 rc
    shift 3
    (cd "$dir" && env "$@" OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 CPROF_OUT="$out" timeout 300 "./$prog" \
         > /dev/null 2> "$err")
    rc=$?
    [ $rc = 124 ] && echo "killed after 300 s" >> "$dir/$err"
    [ $rc = 0 ] || echo "exit status $rc" >> "$dir/$err"
}
for dir in "$root"/examples/*/; do
    [ -f "$dir/Makefile" ] || continue
    # An MPI example (its Makefile builds with mpicc) runs under mpirun: tests/cli/mpi.sh.
    grep -q '^MPICC' "$dir/Makefile" && continue
    name=$(basename "$dir")
    cp -R "$dir" "$tmp/$name"
    cp "$root/examples/example.mk" "$tmp/"
    if ! make -s -C "$tmp/$name" CC="$bin/cprof-cc" > "$tmp/$name.build" 2>&1; then
        nok "examples/$name builds with cprof-cc" "$(indent "$tmp/$name.build")"
        continue
    fi
    prog=$(sed -n 's/^PROG *:*= *//p' "$dir/Makefile")
    run_example "$tmp/$name" prof.out run.err
    check "examples/$name runs and writes a profile" "$(indent "$tmp/$name/run.err")" -- test -s "$tmp/$name/prof.out"
    CPROF_BIN=$bin "$root/tests/report/consistency.sh" "$tmp/$name/prof.out" > "$tmp/$name.cons" 2>&1
    check "examples/$name: report numbers consistent" "$(indent "$tmp/$name.cons")" -- test ! -s "$tmp/$name.cons"
    python3 "$root/tests/lib/source_check.py" "$bin/cprof-report" "$tmp/$name/prof.out" > "$tmp/$name.src" 2>&1
    check "examples/$name: --source shows --json's figures at their lines (docs/source.md)" \
        "$(indent "$tmp/$name.src" 6)" -- grep -q '^ok ' "$tmp/$name.src"
    "$bin/cprof-report" --json "$tmp/$name/prof.out" > "$tmp/$name.json" 2>&1
    while IFS= read -r line; do
        filter=${line#"$name: "}; filter=${filter%% => *}; want=$(jq -c . <<< "${line#* => }")
        actual=$(jq -c "$JQ_DEFS $filter" "$tmp/$name.json" 2>&1 | tr '\n' ' ' | sed 's/ $//')
        check "examples/$name: $filter => $want" "actual: ${actual:0:300}" -- test "$actual" = "$want"
    done < <(grep "^$name: " "$root/tests/cli/examples.expect")
    if [ "$plain_cc" = gcc ]; then
        run_example "$tmp/$name" every.out every.err CPROF_TIMING=every
        "$bin/cprof-report" --json "$tmp/$name/every.out" > "$tmp/$name.every.json" 2>> "$tmp/$name/every.err"
        python3 "$root/tests/lib/same_profile.py" "$tmp/$name.every.json" "$tmp/$name.json" > "$tmp/$name.timing" 2>&1
        check "examples/$name: the same counts, cases, arcs, paths, regions and tasks with CPROF_TIMING=every" \
            "$(indent "$tmp/$name.timing" 12)" "$(indent "$tmp/$name/every.err")" -- test ! -s "$tmp/$name.timing"
        continue
    fi
    cp -R "$dir" "$tmp/$name.gcc"
    if env -u CPROF_GCC -u CPROF_GXX make -s -C "$tmp/$name.gcc" CC="$bin/cprof-cc" > "$tmp/$name.gcc.log" 2>&1; then
        run_example "$tmp/$name.gcc" prof.out run.err
        cat "$tmp/$name.gcc/run.err" >> "$tmp/$name.gcc.log"
    fi
    "$bin/cprof-report" --json "$tmp/$name.gcc/prof.out" > "$tmp/$name.gcc.json" 2>> "$tmp/$name.gcc.log"
    python3 "$root/tests/lib/same_profile.py" "$tmp/$name.gcc.json" "$tmp/$name.json" > "$tmp/$name.same" 2>&1
    check "examples/$name: the same profile as gcc's build (counts, cases, arcs, paths, regions, tasks)" \
        "$(indent "$tmp/$name.same" 12)" "$(indent "$tmp/$name.gcc.log")" -- test ! -s "$tmp/$name.same"
done
finish
