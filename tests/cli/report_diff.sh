#!/usr/bin/env bash
# cprof-report --diff on two runs of one program, before and after a change: step calls
# leaf REPEAT times, 10 before and 1 after, for each of 400 iterations of a parallel
# for.  So leaf: 4000 -> 400 concurrent entries (-3600), step: 400 -> 400 entries and
# 4000 -> 400 C-S calls (-3600), main: 400 S-C calls both times.  The change (leaf) must
# come first, by calls exactly, and by self time (leaf's work falls by 3600 x ~100 us,
# far beyond what load can add to another routine).
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > prog.c <<'EOF2'
#include <stdio.h>
volatile double sink;
static void leaf(int i) { for (int k = 0; k < 20000; k++) sink += i * k; }
static void step(int i) { for (int k = 0; k < REPEAT; k++) leaf(i); }
static void setup(void) { sink = 1; }
int main(void)
{
    setup();
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < 400; i++)
        step(i);
    printf("%d\n", sink > 0);
    return 0;
}
EOF2
for v in before:10 after:1; do
    name=${v%:*}
    "$bin/cprof-cc" -fopenmp -O2 -DREPEAT=${v#*:} prog.c -o $name > $name.cc 2>&1 || nok "build $name" "$(indent $name.cc)"
    CPROF_OUT=$name.out ./$name > $name.run 2>&1 || nok "run $name" "$(indent $name.run)"
done

"$bin/cprof-report" --diff --csv routines --sort calls before.out after.out > calls.csv 2> err; st=$?
tr -d '\r' < calls.csv > c.csv
check "--diff --csv routines: exit 0, nothing on stderr" "status $st" "$(indent err)" -- test $st = 0 -a ! -s err
col() {  # col NAME KEY: the value of column KEY in the row of routine NAME
    awk -F, -v n="$1" -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $(c["name"]) == n { print $(c[k]) }' c.csv
}
check "--sort calls: leaf first" "$(indent c.csv)" -- test "$(sed -n 2p c.csv | cut -d, -f18)" = leaf
check "leaf: calls 4000 -> 400 (-3600), all concurrent" "$(indent c.csv)" -- \
    test "$(col leaf calls_before) $(col leaf calls_after) $(col leaf calls_diff) $(col leaf c_calls_diff) $(col leaf s_calls_diff)" = "4000 400 -3600 -3600 +0"
check "step: 400 entries both times, C-S calls -3600" "$(indent c.csv)" -- \
    test "$(col step calls_before) $(col step calls_diff) $(col step cs_diff) $(col step ss_diff)" = "400 +0 -3600 +0"
check "main: S-C calls unchanged (+0), setup unchanged" "$(indent c.csv)" -- \
    test "$(col main sc_diff) $(col setup calls_diff)" = "+0 +0"
check "leaf: self time fell" "$(indent c.csv)" -- \
    test "$(col leaf self_worker_diff_ns)" -lt 0 -a "$(col leaf self_worker_after_ns)" -lt "$(col leaf self_worker_before_ns)"

"$bin/cprof-report" --diff -b before.out after.out > diff.txt 2> err; st=$?
check "--diff text: exit 0" "status $st" "$(indent err)" -- test $st = 0 -a ! -s err
check "--diff text: the change (leaf) is at the top, sorted by self time" "$(indent diff.txt 30)" -- \
    bash -c "awk '/^Changes per routine/ { f = 1 } f && / name\$/ { getline; print; exit }' diff.txt |
             grep -qE '^ *-[0-9.]+ .* leaf\$'"
check "--diff text: both runs with their elapsed times" "$(indent diff.txt 12)" -- \
    bash -c "grep -qx 'before  *before.out' diff.txt && grep -qx 'after  *after.out' diff.txt &&
             [ \$(grep -cE '^  elapsed \(ms\) +[0-9]+\.[0-9]{3}$' diff.txt) = 2 ] &&
             grep -qE '^elapsed change \(ms\) +[-+][0-9]+\.[0-9]{3}$' diff.txt"

"$bin/cprof-report" --diff --json --sort calls before.out after.out > diff.json 2> err
expect_jq "--diff --json: leaf first, its change" diff.json \
    '.routines[0] | [.name, .before.calls, .after.calls, .change.calls, .change.c_calls]' '["leaf", 4000, 400, -3600, -3600]'
expect_jq "--diff --json: elapsed of both runs and their difference" diff.json \
    '[.format, .before.file, .after.file, .before.elapsed_ns > 0, .after.elapsed_ns > 0, .elapsed_diff_ns == .after.elapsed_ns - .before.elapsed_ns]' \
    '["cprof-diff", "before.out", "after.out", true, true, true]'

"$bin/cprof-report" --diff before.out > out 2> err; st=$?
check "--diff with one file: usage error" "status $st" -- test $st = 2 -a ! -s out
"$bin/cprof-report" --diff --threshold 5 before.out after.out > out 2> err; st=$?
check "--diff with --threshold: usage error" "status $st" -- test $st = 2 -a ! -s out
: > empty.out
"$bin/cprof-report" --diff before.out empty.out > out 2> err; st=$?
check "--diff with a bad AFTER: exit 1, one line naming it" "status $st" "$(indent err)" -- \
    test $st = 1 -a ! -s out -a "$(cat err)" = "cprof-report: empty.out: empty file"
# Two programs compared (issue 29): routines are matched by name and file whatever the
# programs; when fewer than half of the routines that ran in the smaller profile ran
# in both, one warning line says so (exit 0).  before and after above are two builds
# of one program under two names: no warning there (checked above).
cat > other.c <<'EOF2'
#include <stdio.h>
__attribute__((noinline)) int alpha(int x) { return x + 1; }
__attribute__((noinline)) int beta(int x) { return alpha(x) * 2; }
int main(void) { printf("%d\n", beta(1)); return 0; }
EOF2
"$bin/cprof-cc" -O2 other.c -o other > other.cc 2>&1 && CPROF_OUT=other.out ./other > /dev/null
"$bin/cprof-report" --diff before.out other.out > out 2> err; st=$?
check "--diff of two programs (no routine in both: main is in prog.c and other.c): exit 0, a report, one warning line" "status $st" "$(indent err)" -- \
    bash -c "[ $st = 0 ] && [ -s out ] && [ \$(wc -l < err) = 1 ] &&
             grep -q '^cprof-report: warning: --diff: only 0 of the routines that ran are in both profiles (4 before, 3 after): two programs' err"

finish
