#!/usr/bin/env bash
# cprof-cc with clang and LLVM's OpenMP runtime (docs/cprof-cc.md, "Clang"): the issue's
# programs, mixed builds (units, and a static library, of each compiler in one program),
# and the runtimes cprof cannot observe, which are said at start-up and in the profile
# instead of every call counted as sequential.  It builds with both compilers itself:
# it runs in gcc's pass of tests/run only.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
only_gcc "it builds with both compilers itself (gcc's pass runs it)"
if ! command -v clang > /dev/null; then
    nok "clang is installed (make deps: clang-14, libomp-14-dev)"
    finish
    exit
fi
clang_cc=$bin/cprof-clang
arcs='[.arcs[] | [.caller, .callee, .s_callarc, .c_callarc]]'

# The issue's second program: omp_get_thread_num and omp_get_num_threads are libomp's
# under clang (main's cprof-cc linked libgomp too, whose answers won: "1 -1").
cat > ids.c <<'EOF'
#include <omp.h>
#include <stdio.h>
int main(void){ int ids[2]={-1,-1};
#pragma omp parallel num_threads(2)
  ids[omp_get_thread_num()&1]=omp_get_num_threads();
  printf("%d %d\n",ids[0],ids[1]); return 0; }
EOF
clang -fopenmp ids.c -o ids_ref && ./ids_ref > ids_ref.out
"$clang_cc" -fopenmp ids.c -o ids 2> ids.err
CPROF_OUT=ids.prof ./ids > ids.out 2>&1
check "the issue's omp_get_thread_num program prints what clang's build does (2 2)" \
    "$(indent ids.out)" "$(indent ids.err)" -- eval 'cmp -s ids_ref.out ids.out && [ "$(cat ids.out)" = "2 2" ]'
check "it is linked with libomp alone, not libgomp" "$(ldd ids | grep -i omp)" -- \
    eval 'ldd ids | grep -q libomp && ! ldd ids | grep -q libgomp'
CPROF_GCC=clang "$bin/cprof-cc" -fopenmp ids.c -o ids2 2> /dev/null
check "CPROF_GCC=clang cprof-cc: the same program" -- eval '[ "$(./ids2 2> /dev/null)" = "2 2" ]'
"$bin/cprof-report" --json ids.prof > ids.json
expect_jq "its profile names libomp, observed through OMPT, and its region ran by two workers" ids.json \
    '[.openmp.runtime, .openmp.observed, .openmp.cases, .openmp.regions, (.regions[] | select(.construct == "parallel") | [.executions, .team_max])]' \
    '["libomp.so.5", "ompt", true, true, [2, 2]]'

# The issue's first: calls inside parallel loops are concurrent (every one was counted
# sequential), and --regions sees the region.
cat > loop.c <<'EOF'
#include <stdio.h>
int key_before(int a, int b) { return a < b; }
int count(int n)
{
    int c = 0;
#pragma omp parallel for reduction(+:c)
    for (int i = 0; i < n; i++)
        c += key_before(i, n / 2);
    return c;
}
int main(void) { printf("%d\n", count(1000)); return 0; }
EOF
"$clang_cc" -fopenmp -O2 loop.c -o loop 2> loop.err
CPROF_OUT=loop.prof ./loop > loop.out 2>&1
"$bin/cprof-report" --json loop.prof > loop.json
expect_jq "calls in a parallel loop are S-C and concurrent entries, 1000 of them" loop.json \
    '[arc("count"; "key_before") | .s_callarc, .c_callarc]' '[0, 1000]'
"$bin/cprof-report" --regions loop.prof > loop.regions 2>&1
check "--regions lists the loop's region, two threads" "$(indent loop.regions)" -- \
    grep -qE '^parallel +loop\.c:6 +count +1 +2 ' loop.regions

# Mixed builds: units compiled by gcc and by clang, and a static library built by one
# compiler for a program built by the other, linked by clang (libomp has libgomp's
# entry points too): the same profile as the program built by gcc alone.
cat > lib.c <<'EOF'
int work(int i) { return i * 2; }
int lib_sum(int n)
{
    int s = 0;
#pragma omp parallel for reduction(+:s)
    for (int i = 0; i < n; i++)
        s += work(i);
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 4; i++) {
#pragma omp task firstprivate(i)
        {
#pragma omp atomic
            s += work(i);
        }
    }
    return s;
}
EOF
cat > main.c <<'EOF'
#include <stdio.h>
int lib_sum(int n);
__attribute__((noinline)) int twice(int x) { return 2 * x; }   /* timed, not counted */
int main(void)
{
    int s = 0;
#pragma omp parallel for reduction(+:s)
    for (int i = 0; i < 100; i++)
        s += twice(i);
    printf("%d %d\n", s, lib_sum(100));
    return 0;
}
EOF
"$bin/cprof-cc" -fopenmp -O2 lib.c main.c -o all_gcc 2> e && CPROF_OUT=all_gcc.prof ./all_gcc > all_gcc.out
"$bin/cprof-report" --json all_gcc.prof > all_gcc.json 2>> e
check "the program built by gcc alone (the reference)" "$(indent e)" -- test -s all_gcc.json
"$bin/cprof-cc" -fopenmp -O2 -c lib.c -o lib_gcc.o && "$clang_cc" -fopenmp -O2 -c lib.c -o lib_clang.o &&
"$bin/cprof-cc" -fopenmp -O2 -c main.c -o main_gcc.o && "$clang_cc" -fopenmp -O2 -c main.c -o main_clang.o &&
ar rcs liblib_gcc.a lib_gcc.o && ar rcs liblib_clang.a lib_clang.o
# mixed NAME OBJECTS...: linked by cprof-clang; its output and profile are gcc's build's.
mixed() {
    local name=$1; shift
    "$clang_cc" -fopenmp "$@" -o "$name" 2> "$name.err" && CPROF_OUT=$name.prof ./"$name" > "$name.out" 2>> "$name.err"
    "$bin/cprof-report" --json "$name.prof" > "$name.json" 2>> "$name.err"
    python3 "$root/tests/lib/same_profile.py" all_gcc.json "$name.json" > "$name.same" 2>&1
    check "$name: the output and the profile of the program gcc built alone" \
        "$(indent "$name.err")" "$(indent "$name.same" 10)" -- \
        eval "cmp -s all_gcc.out $name.out && [ ! -s $name.same ] && [ ! -s $name.err ]"
    expect_jq "$name: one runtime, libomp, observed through OMPT" "$name.json" \
        '[.openmp.runtime, .openmp.observed]' '["libomp.so.5", "ompt"]'
}
mixed units_gcc_clang lib_gcc.o main_clang.o
mixed units_clang_gcc lib_clang.o main_gcc.o
mixed static_gcc_program_clang main_clang.o liblib_gcc.a
mixed static_clang_program_gcc main_gcc.o liblib_clang.a

# Two runtimes in one process: a program gcc built (libgomp) and a library clang built
# (libomp).  Each knows its own regions only: one line at start-up, and a profile whose
# cases are not measured, which the report says instead of calling every call
# sequential.
"$clang_cc" -fopenmp -O2 -fPIC -shared lib.c -o liblibc.so 2> e
"$bin/cprof-cc" -fopenmp -O2 main.c -L. -llibc -Wl,-rpath,"$tmp" -o two 2>> e
CPROF_OUT=two.prof ./two > two.out 2> two.err; st=$?
check "two runtimes: the program runs as built (status 0, its output)" "status $st" "$(indent e)" -- \
    eval '[ $st = 0 ] && cmp -s two.out all_gcc.out'
check "two runtimes: one line on stderr says so" "$(indent two.err)" -- \
    eval '[ "$(wc -l < two.err)" = 1 ] && grep -q "^cprof: two OpenMP runtimes are loaded, libgomp.so.1 and libomp.so.5" two.err'
"$bin/cprof-report" --json two.prof > two.json
expect_jq "two runtimes: the profile says cases and regions not measured, and why" two.json \
    '[.openmp.observed, .openmp.cases, .openmp.regions, (.openmp.reason | test("two OpenMP runtimes"))]' \
    '["none", false, false, true]'
expect_jq "two runtimes: every call counted all the same" two.json \
    '[r("twice"), r("work")] | map(.s_caller + (.c_caller | add))' '[100, 104]'
"$bin/cprof-report" two.prof > two.txt
check "two runtimes: the summary shows no sequential and concurrent counts, and says why" "$(indent two.txt 20)" -- \
    eval "grep -qE '^  sequential *$' two.txt && grep -qE '^  concurrent *$' two.txt && grep -q \"The calls' cases are not measured: two OpenMP runtimes\" two.txt"
check "two runtimes: the flat profile leaves s calls and c calls empty" "$(indent two.txt 40)" -- \
    eval "grep -qE '^ *[0-9.]+ .* +[0-9.]+ +[0-9.]+ +twice\$' two.txt && ! grep -qE ' 100 +0 .*twice\$' two.txt"
check "two runtimes: the concurrency cases are not shown, with the reason" "$(indent two.txt 40)" -- \
    grep -q 'Not measured: two OpenMP runtimes' two.txt

# A libomp that starts no tool: the cases are libomp's answers (right), no region is
# seen, and the report says so.
OMP_TOOL=disabled CPROF_OUT=notool.prof ./loop > notool.out 2> notool.err
check "OMP_TOOL=disabled: one line on stderr" "$(indent notool.err)" -- \
    eval '[ "$(wc -l < notool.err)" = 1 ] && grep -q "^cprof: libomp.so.5 (OMP_TOOL=disabled" notool.err'
"$bin/cprof-report" --json notool.prof > notool.json
expect_jq "OMP_TOOL=disabled: the cases measured, the regions not" notool.json \
    '[.openmp.cases, .openmp.regions, (arc("count"; "key_before") | .c_callarc), (.regions | length)]' \
    '[true, false, 1000, 0]'
"$bin/cprof-report" --regions notool.prof > notool.regions 2>&1
check "OMP_TOOL=disabled: --regions says the regions were not observed" "$(indent notool.regions)" -- \
    grep -q "parallel regions and tasks were not observed: OMP_TOOL=disabled" notool.regions
# A program that is a tool of its own (its ompt_start_tool, which takes nothing).
cat > owntool.c <<'EOF'
#include <stddef.h>
struct ompt_start_tool_result_t;
struct ompt_start_tool_result_t *ompt_start_tool(unsigned v, const char *r)
{
    (void)v; (void)r;
    return NULL;
}
EOF
"$clang_cc" -fopenmp -O2 loop.c owntool.c -o owntool 2> e && CPROF_OUT=owntool.prof ./owntool > owntool.out 2> owntool.err
check "the program's own ompt_start_tool: one line, it comes first" "$(indent owntool.err)" "$(indent e)" -- \
    grep -q "another OpenMP tool's ompt_start_tool is found before cprof's" owntool.err
"$bin/cprof-report" --json owntool.prof > owntool.json
expect_jq "the program's own tool: the cases measured, the regions not" owntool.json \
    '[.openmp.cases, .openmp.regions, (arc("count"; "key_before") | .c_callarc)]' '[true, false, 1000]'
OMP_TOOL_LIBRARIES=/nonexistent/tool.so CPROF_OUT=libs.prof ./loop > libs.out 2> libs.err
check "OMP_TOOL_LIBRARIES: one line says it is not loaded, the regions are seen" "$(indent libs.err)" -- \
    eval 'grep -q "^cprof: OMP_TOOL_LIBRARIES=/nonexistent/tool.so is not loaded" libs.err &&
          [ "$(jq ".workers[0].regions | length" libs.prof)" -gt 0 ]'
finish
