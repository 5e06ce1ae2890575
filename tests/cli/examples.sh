#!/usr/bin/env bash
# Every examples/*/ program, built with cprof-cc and run on 2 threads: its report's
# numbers agree with each other (tests/report/consistency.sh: self <= inclusive in wall
# and in worker time, worker time within elapsed x workers, shares, arcs), and its
# annotated source shows them at their lines (tests/lib/source_check.py).
. "$(dirname "$0")/../lib/cli.sh"
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
    (cd "$tmp/$name" && OMP_NUM_THREADS=2 CPROF_OUT=prof.out timeout 300 "./$prog" > /dev/null 2> run.err)
    check "examples/$name runs and writes a profile" "$(indent "$tmp/$name/run.err")" -- test -s "$tmp/$name/prof.out"
    CPROF_BIN=$bin "$root/tests/report/consistency.sh" "$tmp/$name/prof.out" > "$tmp/$name.cons" 2>&1
    check "examples/$name: report numbers consistent" "$(indent "$tmp/$name.cons")" -- test ! -s "$tmp/$name.cons"
    python3 "$root/tests/lib/source_check.py" "$bin/cprof-report" "$tmp/$name/prof.out" > "$tmp/$name.src" 2>&1
    check "examples/$name: --source shows --json's figures at their lines (docs/source.md)" \
        "$(indent "$tmp/$name.src" 6)" -- grep -q '^ok ' "$tmp/$name.src"
done
finish
