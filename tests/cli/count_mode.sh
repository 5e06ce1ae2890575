#!/usr/bin/env bash
# CPROF_MODE=count: no clock read per call; counts exact, every time 0, clock "none",
# and the report reads the profile as any other.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
cat > c.c <<'EOF2'
#include <stdio.h>
static int leaf(int x) { return x + 1; }
static int work(int n)
{
    int s = 0;
#pragma omp parallel for schedule(static) reduction(+:s)
    for (int i = 0; i < n; i++)
        s += leaf(i);
    return s + leaf(0);
}
int main(void) { printf("%d\n", work(100)); return 0; }
EOF2
"$bin/cprof-cc" -fopenmp -O2 c.c -o c 2> e
check "builds" "$(indent e)" -- test ! -s e
CPROF_MODE=count CPROF_OUT=count.out ./c > out
check "runs as usual" "$(indent out)" -- test "$(cat out)" = 5051
expect_jq "profile says clock none" count.out '.clock' '"none"'
expect_jq "its own cost is measured still" count.out '.call_cost_ns > 0' 'true'
"$bin/cprof-report" --json count.out > count.json 2> err
check "cprof-report reads it" "$(indent err)" -- test ! -s err
expect_jq "counts exact: leaf S and C entries, S-S / S-C calls of work" count.json \
    '[r("leaf").s_caller, r("leaf").c_caller, r("work").s_callee, r("work").c_callee]' '[1, [50, 50], 1, [50, 50]]'
expect_jq "every time is 0" count.json \
    '[.routines[] | (.s_caller_t, .s_callee_t, .s_self_t, (.c_caller_t, .c_callee_t, .cs_callee_t, .cc_callee_t, .c_self_t | add))] + [.arcs[] | .s_callarc_t, .c_callarc_t] | unique' '[0]'
CPROF_OUT=time.out ./c > /dev/null
expect_jq "without CPROF_MODE the clock is read" time.out '.clock != "none"' 'true'
finish
