#!/usr/bin/env bash
# User regions (docs/control.md) used wrongly: a name that is not a string literal is
# said at compile time and once at run time, a stray cprof_region_end() once; the
# program runs as gcc's build does.  (Their counts, arcs and cases: tests/cases/74_regions.)
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
cat > misuse.c <<'C'
#include <stdio.h>
#include <cprof.h>
void work(void) { volatile int x = 0; for (int i = 0; i < 100; i++) x += i; }
int main(int argc, char **argv)
{
    (void)argv;
    const char *name = argc > 5 ? "many" : "few";
    for (int k = 0; k < 3; k++) {
        cprof_region_begin(name);
        work();
        cprof_region_end();
    }
    cprof_region_end();
    cprof_region_begin("kept");
    work();
    cprof_region_end();
    puts("done");
    return 0;
}
C
"$plain_cc" -O1 -I"$root/runtime" misuse.c -o plain
"$bin/cprof-cc" -O1 misuse.c -o prof 2> cc.err
check "a name that is not a literal: one warning at compile time, naming the line" "$(indent cc.err)" -- \
    bash -c '[ $(wc -l < cc.err) = 1 ] && grep -q "^cprof-cc: misuse.c:9: warning: cprof_region_begin wants a string literal" cc.err'
CPROF_OUT=p.out ./prof > out.txt 2> err.txt; st=$?
check "the run prints what $plain_cc's does, exit 0" "status $st" -- \
    bash -c "[ $st = 0 ] && [ \"\$(cat out.txt)\" = \"\$(./plain)\" ]"
check "at run time: the unrewritten begin and the stray end, one line each" "$(indent err.txt)" -- \
    bash -c '[ $(wc -l < err.txt) = 2 ] && grep -q "^cprof: cprof_region_begin() not rewritten" err.txt &&
             grep -q "^cprof: cprof_region_end() with no region open" err.txt'
"$bin/cprof-report" --json p.out > p.json
expect_jq "the literal region is profiled, the other is not" p.json \
    '[([.routines[].name] | sort), (.arcs[] | select(.caller == "kept") | [.callee, .s_callarc])]' \
    '[["kept", "main", "work"], ["work", 1]]'
expect_jq "the unprofiled regions' calls are main's" p.json \
    '.arcs[] | select(.caller == "main" and .callee == "work") | .s_callarc' '3'
# A region ended on one path and left open on another that meets it (issue 29): where
# they meet, the run follows the path it takes and the sites cannot; one warning at
# compile time names the region and the line, and the calls from there on are the
# routine's.  Ended on every path (tests/cases/80_region_flow): no warning.
cat > oneway.c <<'C'
#include <stdio.h>
#include <cprof.h>
void work(void) { volatile int x = 0; for (int i = 0; i < 100; i++) x += i; }
int main(int argc, char **argv)
{
    (void)argv;
    cprof_region_begin("maybe");
    work();
    if (argc > 1)
        cprof_region_end();
    work();
    cprof_region_begin("both");
    if (argc > 1)
        cprof_region_end();
    else
        cprof_region_end();
    work();
    puts("done");
    return 0;
}
C
"$bin/cprof-cc" -O1 oneway.c -o oneway 2> ow.err
check "a region ended on one path only: one warning at compile time, its name and the line where the paths meet" "$(indent ow.err)" -- \
    bash -c '[ $(wc -l < ow.err) = 1 ] && grep -q "^cprof-cc: oneway.c:9: warning: region .maybe. is open on some paths to here and not on others: the calls from here on are charged to .main." ow.err'
./oneway > ow.out 2>&1
check "the program runs as ever" "$(indent ow.out)" -- test "$(cat ow.out)" = done

finish
