#!/usr/bin/env bash
# Calling contexts (issue 12): the process_db example's two contexts of one routine
# told apart, exact counts per path; recursion folded into a few contexts; the
# --paths, --folded and --hatchet outputs.  (That contexts sum to the arcs is checked
# on every profile of the suite by tests/report/consistency.sh.)
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cp "$root/examples/process_db/process_db.c" .
"$bin/cprof-cc" -fopenmp -O2 process_db.c -o pdb > cc.err 2>&1
OMP_NUM_THREADS=2 CPROF_OUT=pdb.out ./pdb > pdb.txt 2> pdb.err
check "examples/process_db runs and writes a profile" "$(indent cc.err)" "$(indent pdb.err)" -- test -s pdb.out
"$bin/cprof-report" --json pdb.out > pdb.json
# The program counts its comparisons itself: each is one call of key_before.
uniq=$(sed -n 's/^comparisons: uniquify \([0-9]*\), salary_stats \([0-9]*\)$/\1/p' pdb.txt)
sal=$(sed -n 's/^comparisons: uniquify \([0-9]*\), salary_stats \([0-9]*\)$/\2/p' pdb.txt)
paths_under() {  # calls of key_before in contexts under routine $1, all workers
    jq --arg via "$1" '[.paths as $p | $p[] | select(.routine == "key_before") |
        select($p[.parent].routine == "sort_keys" and $p[$p[.parent].parent].routine == $via) |
        .calls | add] | add' pdb.json
}
expect_jq "key_before is one arc for both callers of sort_keys" pdb.json \
    '[.arcs[] | select(.callee == "key_before")] | length' 1
check "paths: key_before's calls under uniquify = the program's count ($uniq)" "paths: $(paths_under uniquify)" -- \
    test -n "$uniq" -a "$(paths_under uniquify)" = "$uniq"
check "paths: key_before's calls under salary_stats = the program's count ($sal)" "paths: $(paths_under salary_stats)" -- \
    test -n "$sal" -a "$(paths_under salary_stats)" = "$sal"
time_under() {
    jq --arg via "$1" '[.paths as $p | $p[] | select(.routine == "key_before") |
        select($p[$p[.parent].parent].routine == $via) | .outer_time | add] | add' pdb.json
}
tu=$(time_under uniquify); ts=$(time_under salary_stats)
# Names compared over 160 characters against salaries over 3: about ten times the time.
check "paths: key_before takes more than twice the time under uniquify ($tu ns) as under salary_stats ($ts ns)" -- \
    test "$tu" -gt $((2 * ts))
"$bin/cprof-report" --paths pdb.out > paths.txt 2> paths.err
check "--paths: the context main > <parallel> > uniquify > sort_keys > key_before" "$(indent paths.err)" -- \
    grep -q 'main > <parallel> > uniquify > sort_keys > key_before$' paths.txt
# Every thread of the team has main's path, through the region's context: one
# execution of the region's body on each worker, S-C.
expect_jq "--json: main > <parallel> (process_db.c:144) ran once on each of the 2 workers, S-C" pdb.json \
    '[.paths as $p | $p[] | select(.routine == "<parallel>" and $p[.parent].routine == "main") | [.site.line, .calls, .worker_calls]]' \
    '[[144, [0, 2, 0, 0], [1, 1]]]'
"$bin/cprof-report" --csv paths pdb.out > paths.csv
check "--csv paths: a header and one row per context" -- \
    test "$(($(wc -l < paths.csv) - 1))" = "$(jq '.paths | length' pdb.json)"
# Upward from key_before, downward from sort_keys: the program's counts again.
"$bin/cprof-report" --callers key_before --csv paths pdb.out > up.csv 2> up.err
row_calls() {  # row_calls FILE PATH: s_calls + c_calls of the row whose path is PATH
    tr -d '\r' < "$1" | awk -F, -v p="$2" 'NR > 1 && $NF == p { print $4 + $5 }'
}
check "--callers key_before: key_before < sort_keys < uniquify has the $uniq calls" \
    "$(indent up.err)" "$(grep uniquify up.csv | head -3)" -- \
    test "$(row_calls up.csv 'key_before < sort_keys < uniquify')" = "$uniq"
check "--callers key_before: key_before < sort_keys < salary_stats has the $sal calls" -- \
    test "$(row_calls up.csv 'key_before < sort_keys < salary_stats')" = "$sal"
"$bin/cprof-report" --root sort_keys --csv paths pdb.out > down.csv
check "--root sort_keys: sort_keys > key_before has all $((uniq + sal)) calls, whoever called it" \
    "$(cat down.csv)" -- test "$(row_calls down.csv 'sort_keys > key_before')" = "$((uniq + sal))"
"$bin/cprof-report" --callers nosuch pdb.out > none.out 2> none.err; st=$?
check "--callers of no routine: one line, exit 1" "status $st" "$(indent none.err)" -- \
    test $st = 1 -a "$(wc -l < none.err)" = 1 -a ! -s none.out
"$bin/cprof-report" --folded pdb.out > folded.txt
check "--folded: every line 'frame;frame... N', N > 0" "$(grep -vE '^[^ ;][^;]*(;[^;]+)* [1-9][0-9]*$' folded.txt | head -3)" -- \
    bash -c "[ -s folded.txt ] && ! grep -qvE '^[^ ;][^;]*(;[^;]+)* [1-9][0-9]*$' folded.txt"
# Each context with a self time (worker time: each stretch of a worker's time in one
# context) is one line, and they add up to all the workers' time in the contexts, the
# flat profile's self times (this program runs no task outside an activation).
sum=$(awk '{ s += $NF } END { printf "%.0f", s }' folded.txt)
selves=$(jq '[.paths[].self_worker_t // 0 | select(. > 0)] | add' pdb.json)
flat=$(jq '[.routines[].self_worker_t // 0] | add' pdb.json)
# Each row's times are rounded to ns apart: up to 1 ns a row and worker.
tol=$(jq '(.workers | length) * ((.paths | length) + (.routines | length))' pdb.json)
check "--folded: the lines' times are the contexts' self times ($selves ns), the flat profile's ($flat ns)" \
    "sum $sum" -- test "$sum" = "$selves" -a "$(((sum - flat) * (sum - flat) <= tol * tol))" = 1
"$bin/cprof-report" --hatchet pdb.out > hatchet.json
expect_jq "--hatchet: a list of trees, each node frame (name, type, file, line, counted)/metrics/children" hatchet.json \
    '[.. | objects | select(has("frame")) | select(.frame.type == "function") | (.frame | keys) == ["counted", "file", "line", "name", "type"] and (.metrics | has("time") and has("time (inc)")) and (.children | type) == "array"] | all' true
expect_jq "--hatchet: main's frame and inclusive time are its context's" hatchet.json \
    '.[] | select(.frame.name == "main") | [.frame.file, .frame.line, .frame.counted, .metrics."time (inc)"]' \
    "$(jq -c '[(.routines[] | select(.name == "main") | .file, .line), false,
              (.paths[] | select(.routine == "main" and .parent == null) | .inclusive_worker_t)]' pdb.json)"

# CPROF_PATHS=0: no contexts, the same counts.
OMP_NUM_THREADS=2 CPROF_PATHS=0 CPROF_OUT=flat.out ./pdb > /dev/null 2>&1
"$bin/cprof-report" --json flat.out > flat.json
expect_jq "CPROF_PATHS=0: no contexts in the profile" flat.out '[.workers[].paths | length] | add' 0
expect_jq "CPROF_PATHS=0: key_before's $((uniq + sal)) calls all the same" flat.json \
    '[.arcs[] | select(.callee == "key_before") | .s_callarc + .c_callarc] | add' "$((uniq + sal))"

# CPROF_PATHS_MAX reached (issue 29): a call past the limit counts in its parent's
# <other>, and so do the bodies of a parallel region and of a task met there: the calls
# made inside them hang from that <other>, never from a root of their own.  Worker 0
# keeps 3 contexts (its root, main, main > f0): f1..f7, the region's body, f0 in it, the
# task's body and f1 in it are main > <other>'s 11 calls; worker 1 makes main and
# main > <parallel> (the opener's path), and its f0 is their <other>'s 1 call.
cat > limit.c <<'C'
#include <stdio.h>
static int v;
__attribute__((noinline)) void f0(void) { v++; }
__attribute__((noinline)) void f1(void) { v++; }
__attribute__((noinline)) void f2(void) { v++; }
__attribute__((noinline)) void f3(void) { v++; }
__attribute__((noinline)) void f4(void) { v++; }
__attribute__((noinline)) void f5(void) { v++; }
__attribute__((noinline)) void f6(void) { v++; }
__attribute__((noinline)) void f7(void) { v++; }
int main(void)
{
    f0(); f1(); f2(); f3(); f4(); f5(); f6(); f7();
#pragma omp parallel num_threads(2)
    f0();
#pragma omp task
    f1();
#pragma omp taskwait
    printf("%d\n", v);
    return 0;
}
C
"$bin/cprof-cc" -fopenmp -O2 limit.c -o limit > cc.err 2>&1
CPROF_PATHS_MAX=3 CPROF_OUT=limit.out ./limit > limit.txt 2> limit.err
"$bin/cprof-report" --json limit.out > limit.json 2> limit.err
expect_jq "CPROF_PATHS_MAX=3: the calls in a region's and a task's body past the limit are under main > <other>" limit.json \
    '.paths as $p | [$p[] | select(.routine == "<other>") |
     [([recurse(if .parent != null then $p[.parent] else empty end) | .routine] | reverse | join(" > ")),
      (.calls | add)]] | sort' '[["main > <other>",11],["main > <parallel> > <other>",1]]'

# Recursion folds: fib's tree is main > fib > fib however deep, and so is a recursion
# a million deep.
cat > rec.c <<'C'
#include <stdio.h>
#include <stdlib.h>
long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
long down(long n) { return n ? 1 + down(n - 1) : 0; }
int main(int argc, char **argv)
{
    (void)argv;
    printf("%ld %ld\n", fib(25 + argc - 1), down(1000000));
    return 0;
}
C
"$bin/cprof-cc" -O2 rec.c -o rec > cc.err 2>&1 && CPROF_OUT=rec.out ./rec > rec.txt
"$bin/cprof-report" --json rec.out > rec.json 2> rec.err
expect_jq "fib(25) and a recursion 10^6 deep: 5 contexts (main, fib, fib > fib, down, down > down)" rec.json \
    '[.paths[] | [.routine, (.parent != null)]] | length' 5
expect_jq "fib's recursive context folds into fib's, with fib(25)'s 242784 calls" rec.json \
    '[.paths as $p | $p[] | select(.routine == "fib" and .folds_into != .id) | [$p[.folds_into].routine, (.calls | add)]]' '[["fib", 242784]]'
"$bin/cprof-report" --root fib --csv paths rec.out | tr -d '\r' > root.csv
check "--root fib: the recursive call's context has no time of its own (in fib's, which it folds into)" \
    "$(cat root.csv)" -- bash -c "awk -F, '\$NF == \"fib > fib  => fib\" && \$2 == \"\" && \$3 == \"\" { f = 1 } END { exit !f }' root.csv"
finish
