#!/usr/bin/env bash
# CPROF_DEBUG=1 checks the runtime's books at every entry and exit (tests/run runs every
# case under it).  Here, the checks themselves: a frame that is not on the shadow stack
# handed to the exit hook stops the program with one line, where the normal runtime
# ignores it.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
cat > bad.c <<'EOF2'
#include <stdio.h>
#include <cprof.h>
static int where;
int leaf(int x) { return x + 1; }
int main(void)
{
    /* Not a frame of the runtime's: what a corrupted cleanup variable would pass. */
    cprof_facade.leave((struct cprof_frame *)&where);
    printf("%d\n", leaf(1));
    return 0;
}
EOF2
"$bin/cprof-cc" -O2 bad.c -o bad 2> cc.err
check "builds" "$(indent cc.err)" -- test -x bad
CPROF_OUT=normal.out ./bad > normal.txt 2> normal.err; st=$?
check "without CPROF_DEBUG the stray frame is ignored" "status $st" "$(indent normal.err)" -- \
    test "$st" = 0 -a "$(cat normal.txt)" = 2 -a ! -s normal.err
CPROF_DEBUG=1 CPROF_OUT=debug.out ./bad > debug.txt 2> debug.err; st=$?
check "CPROF_DEBUG=1 stops at the stray frame (SIGABRT)" "status $st" -- test "$st" = 134
check "with one line naming the broken invariant" "$(indent debug.err)" -- \
    test "$(grep -c '^cprof: internal error: ' debug.err)" = 1
CPROF_DEBUG=0 CPROF_OUT=zero.out ./bad > zero.txt 2>&1; st=$?
check "CPROF_DEBUG=0 is off" "status $st" -- test "$st" = 0
finish
