#!/usr/bin/env bash
# Constructs the rewriter cannot handle: the file (or function) is compiled exactly as
# gcc would, with one warning naming file:line, and the rest of the program is profiled.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

# GNU nested functions: libclang rejects them, gcc accepts them (clang does not: under
# clang cprof-cc fails as clang does, its status and its diagnostics).
if [ "$plain_cc" != gcc ]; then
printf 'int main(void)\n{\n    int add(int y) { return y; }\n    return add(0);\n}\n' > nest.c
"$plain_cc" -O2 nest.c -o ref 2> ref.err; rst=$?
"$bin/cprof-cc" -O2 nest.c -o prog 2> cc.err; st=$?
check "nested function: fails as $plain_cc does (status $rst), with its diagnostics" \
    "status $st" "$(indent cc.err)" -- eval '[ $st = $rst ] && [ $st != 0 ] && cmp -s ref.err cc.err'
else
cat > nest.c <<'EOF2'
#include <stdio.h>
int twice(int x);
int main(void)
{
    int base = 10;
    int add(int y) { return base + y; }
    printf("%d %d\n", add(1), twice(2));
    return 0;
}
EOF2
cat > other.c <<'EOF2'
static int half(int x) { return x / 2; }
int twice(int x) { return 2 * x + half(0); }
EOF2
gcc -O2 nest.c other.c -o ref && ./ref > ref.out
"$bin/cprof-cc" -O2 nest.c other.c -o prog 2> cc.err; st=$?
check "nested function: builds (status $st)" "$(indent cc.err)" -- [ $st = 0 ]
check "nested function: exactly one warning, naming nest.c:6" "$(indent cc.err)" -- \
    test "$(wc -l < cc.err)" = 1 -a "$(grep -c '^cprof-cc: nest\.c:6: warning: libclang: .*; compiled without profiling$' cc.err)" = 1
CPROF_OUT=prof.out ./prog > prog.out; st=$?
check "nested function: same output and status as gcc" "status $st" "$(indent prog.out)" -- \
    cmp -s ref.out prog.out

# A unit that includes <cprof.h> falls back too: the header is found, its calls do
# nothing (the fallback once compiled without cprof's include directory, and failed).
cat > nestctl.c <<'EOF2'
#include <stdio.h>
#include <cprof.h>
int main(void)
{
    int base = 1;
    int add(int y) { return base + y; }
    cprof_region_begin("r");
    printf("%d\n", add(1));
    cprof_region_end();
    return cprof_write();
}
EOF2
"$bin/cprof-cc" -O2 nestctl.c -o nestctl 2> ctl.err; st=$?
check "a unit including <cprof.h> falls back and builds (status $st)" "$(indent ctl.err)" -- \
    bash -c "[ $st = 0 ] && grep -q 'compiled without profiling' ctl.err && [ \"\$(./nestctl)\" = 2 ]"
"$bin/cprof-report" --json prof.out > report.json 2> report.err
expect_jq "nested function: other.c profiled, nest.c not" report.json \
    '[.routines[] | [.name, .file, .s_caller]]' '[["half","other.c",1],["twice","other.c",1]]'
expect_jq "nested function: twice entered from <external>" report.json \
    '[.arcs[] | [.caller, .callee, .s_callarc]]' '[["<external>","twice",1],["twice","half",1]]'
fi

# A C99 inline definition with external linkage may not refer to the unit's static
# tables: that function alone is not profiled, with one warning.
cat > inl.c <<'EOF2'
#include <stdio.h>
inline int sq(int x) { return x * x; }
extern int sq(int x);
static int use(int x) { return sq(x) + 1; }
int main(void) { printf("%d\n", use(3)); return 0; }
EOF2
"$plain_cc" -O2 inl.c -o ref2 && ./ref2 > ref2.out
"$bin/cprof-cc" -O2 inl.c -o inl 2> inl.err; st=$?
check "external inline: builds (status $st)" "$(indent inl.err)" -- [ $st = 0 ]
check "external inline: one warning naming inl.c:2 and sq" "$(indent inl.err)" -- \
    test "$(wc -l < inl.err)" = 1 -a "$(grep -c "^cprof-cc: inl\.c:2: warning: inline function 'sq' with external linkage is not profiled$" inl.err)" = 1
CPROF_OUT=inl.prof ./inl > inl.out
check "external inline: same output as $plain_cc" "$(indent inl.out)" -- cmp -s ref2.out inl.out
"$bin/cprof-report" --json inl.prof > inl.json
expect_jq "external inline: main and use profiled, sq not" inl.json \
    '[.routines[] | [.name, .s_caller, .s_callee]]' '[["main",1,1],["use",1,0]]'
finish
