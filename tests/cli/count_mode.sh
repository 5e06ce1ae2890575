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
# No time was measured: every time of an activation or a call is null, never 0 (a time
# over no call stays 0); the text marks them "-".
expect_jq "every time of an activation or a call is null (not measured)" count.json \
    '[.routines[] | select(.s_caller + (.c_caller | add) > 0) | .s_caller_t, .s_self_t, .c_caller_t,
      .c_self_t, .self_worker_t, .inclusive_worker_t, .self_wall_t, .inclusive_wall_t]
     + [.routines[] | select(.s_callee > 0) | .s_callee_t]
     + [.routines[] | select((.c_callee | add) > 0) | .c_callee_t]
     + [.arcs[] | select(.s_callarc > 0) | .s_callarc_t] + [.arcs[] | select(.c_callarc > 0) | .c_callarc_t]
     | unique' '[null]'
"$bin/cprof-report" -b count.out > count.txt
check "the text report's flat profile shows every time as -" "$(indent count.txt)" -- \
    test "$(awk '/^Flat profile$/ { f = 1; n = 0; next } f && ++n > 3 { if (!NF) exit; print $1 $2 $3 $4 $5 $8 $9 }' count.txt | sort -u)" = "-------"
CPROF_OUT=time.out ./c > /dev/null
expect_jq "without CPROF_MODE the clock is read" time.out '.clock != "none"' 'true'
finish
