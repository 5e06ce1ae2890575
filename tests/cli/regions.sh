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
gcc -O1 -I"$root/runtime" misuse.c -o plain
"$bin/cprof-cc" -O1 misuse.c -o prof 2> cc.err
check "a name that is not a literal: one warning at compile time, naming the line" "$(indent cc.err)" -- \
    bash -c '[ $(wc -l < cc.err) = 1 ] && grep -q "^cprof-cc: misuse.c:9: warning: cprof_region_begin wants a string literal" cc.err'
CPROF_OUT=p.out ./prof > out.txt 2> err.txt; st=$?
check "the run prints what gcc's does, exit 0" "status $st" -- \
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
finish
