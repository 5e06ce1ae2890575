#!/usr/bin/env bash
# No name cprof-cc adds inside an OpenMP construct may need a data-sharing clause: every
# construct the rewriter touches (parallel, for, sections, single, task (untied too), taskloop,
# teams, target on the host, simd, loop, masked and the combined forms), under each
# default clause the pass's compiler accepts and with the clauses that list variables
# (shared, firstprivate, private, lastprivate, reduction), its body calling a counted
# routine, a timed one, one of another unit, one through a pointer, a library function
# (-fcprof-libcalls) and opening a user region.  Each unit is compiled with -Wall
# -Wextra -Werror by the pass's compiler ($plain_cc) and by cprof-cc -fcprof-strict (a
# unit that falls back is an error), the outputs are compared and every count is
# checked against the number of times the program itself saw the body run; all of it
# again with -fcprof-input-size, whose routines are rendered twice.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
flags=(-fopenmp -O2 -Wall -Wextra -Werror -idirafter "$root/runtime")

# One construct per template: @F@ the function, @D@ the default clause.  The body
# statement BODY(i) makes the calls; REGION adds the user region and a counted call
# inside it; ADD(v) counts one run of the body, where the construct allows no
# reduction with atomics.
templates=(parallel for orphaned_for parallel_for sections parallel_sections single task untied_task taskloop
           teams teams_distribute teams_distribute_parallel_for target_parallel_for
           target_teams_distribute_parallel_for simd parallel_for_simd parallel_loop
           teams_loop parallel_masked loop teams_then_loop masked declare_reduction)
# The defaults: gcc 12 accepts the four of OpenMP 5.1; clang 14 none and shared, and
# firstprivate only under -fopenmp-version=51 (its default is 5.0; that unit alone is
# compiled so), private not at all ("expected 'none', 'shared' or 'firstprivate'").
# Clang 14 reads neither 'parallel loop', 'teams loop' nor 'parallel masked' (it warns
# "extra tokens at the end of '#pragma omp parallel'" and drops the rest): their
# constructs are also built as two directives (loop, teams_then_loop, masked), pv
# private to the parallel (clang 14 crashes on a loop's private clause), the body's own
# variable under teams (whose loop gcc runs on threads of each team too).  But clang 14
# runs a loop construct whole in each thread or team, as a simd loop (20 runs of 10
# iterations on 2 threads), its reduction into the shared variable a race: under clang
# the masked construct alone is built.  Clang warns that
# the parallel for simd's loop, whose body makes calls, is not vectorized
# (-Wpass-failed), which cprof-cc silences (docs/cprof-cc.md, "Clang"): not the point
# here, -Wno-pass-failed under clang.
defaults=(none firstprivate private shared) only=
declare -A def_flags=()
if [ "$plain_cc" = clang ]; then
    defaults=(none firstprivate shared) def_flags[firstprivate]=-fopenmp-version=51
    flags+=(-Wno-pass-failed)
    only=" (clang 14: no default(private), default(firstprivate) under -fopenmp-version=51, no parallel loop, teams loop, parallel masked, a loop construct as simd)"
    mapfile -t templates < <(printf '%s\n' "${templates[@]}" | grep -vxE 'parallel_loop|teams_loop|parallel_masked|loop|teams_then_loop')
fi
template() {
    case $1 in
    parallel) cat <<'EOF2' ;;
#pragma omp parallel num_threads(2)@D@ firstprivate(fp) private(pv) reduction(+:acc, execs)
    { pv = omp_get_thread_num(); long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    for) cat <<'EOF2' ;;
#pragma omp parallel num_threads(2)@D@ shared(acc, execs, lp) firstprivate(fp)
#pragma omp for private(pv) lastprivate(lp) reduction(+:acc, execs) schedule(static)
    for (int i = 0; i < 10; i++) { pv = i; lp = i; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    orphaned_for) cat <<'EOF2' ;;
#pragma omp parallel num_threads(2)@D@ firstprivate(fp)
    orphan(fp);
    acc = o_acc; execs = o_execs; lp = o_lp;
EOF2
    parallel_for) cat <<'EOF2' ;;
#pragma omp parallel for num_threads(2)@D@ firstprivate(fp) private(pv) lastprivate(lp) reduction(+:acc, execs)
    for (int i = 0; i < 10; i++) { pv = i; lp = i; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    sections) cat <<'EOF2' ;;
#pragma omp parallel num_threads(2)@D@ shared(acc, execs, lp) firstprivate(fp)
#pragma omp sections private(pv) lastprivate(lp) reduction(+:acc, execs)
    {
#pragma omp section
        { pv = 1; lp = 1; long v = BODY(pv); REGION; acc += v; execs++; }
#pragma omp section
        { pv = 2; lp = 2; long v = BODY(pv); REGION; acc += v; execs++; }
    }
EOF2
    parallel_sections) cat <<'EOF2' ;;
#pragma omp parallel sections num_threads(2)@D@ firstprivate(fp) private(pv) lastprivate(lp) reduction(+:acc, execs)
    {
#pragma omp section
        { pv = 1; lp = 1; long v = BODY(pv); REGION; acc += v; execs++; }
#pragma omp section
        { pv = 2; lp = 2; long v = BODY(pv); REGION; acc += v; execs++; }
    }
EOF2
    single) cat <<'EOF2' ;;
#pragma omp parallel num_threads(2)@D@ shared(acc, execs, fp)
#pragma omp single private(pv)
    { pv = 5; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    task) cat <<'EOF2' ;;
#pragma omp parallel num_threads(2)@D@ shared(acc, execs) firstprivate(fp)
#pragma omp single
    for (int k = 0; k < 4; k++) {
#pragma omp task@D@ shared(acc, execs) firstprivate(fp, k) private(pv)
        { pv = k; long v = BODY(pv); REGION; ADD(v); }
    }
EOF2
    untied_task) cat <<'EOF2' ;;
#pragma omp parallel num_threads(2)@D@ shared(acc, execs) firstprivate(fp)
#pragma omp single
    for (int k = 0; k < 4; k++) {
#pragma omp task untied@D@ shared(acc, execs) firstprivate(fp, k) private(pv)
        { pv = k; long v = BODY(pv); REGION; ADD(v); }
    }
EOF2
    taskloop) cat <<'EOF2' ;;
#pragma omp parallel num_threads(2)@D@ shared(acc, execs, lp) firstprivate(fp)
#pragma omp single
#pragma omp taskloop grainsize(2)@D@ shared(acc, execs) firstprivate(fp) private(pv) lastprivate(lp)
    for (int i = 0; i < 10; i++) { pv = i; lp = i; long v = BODY(pv); REGION; ADD(v); }
EOF2
    teams) cat <<'EOF2' ;;
#pragma omp teams num_teams(2)@D@ firstprivate(fp) private(pv) reduction(+:acc, execs)
    { pv = omp_get_team_num(); long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    teams_distribute) cat <<'EOF2' ;;
#pragma omp teams distribute num_teams(2)@D@ firstprivate(fp) private(pv) lastprivate(lp) reduction(+:acc, execs)
    for (int i = 0; i < 10; i++) { pv = i; lp = i; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    teams_distribute_parallel_for) cat <<'EOF2' ;;
#pragma omp teams distribute parallel for num_teams(2) num_threads(2)@D@ firstprivate(fp) private(pv) lastprivate(lp) reduction(+:acc, execs)
    for (int i = 0; i < 10; i++) { pv = i; lp = i; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    target_parallel_for) cat <<'EOF2' ;;
#pragma omp target parallel for num_threads(2)@D@ map(tofrom: acc, execs, lp) firstprivate(fp) private(pv) lastprivate(lp) reduction(+:acc, execs) defaultmap(none)
    for (int i = 0; i < 10; i++) { pv = i; lp = i; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    target_teams_distribute_parallel_for) cat <<'EOF2' ;;
#pragma omp target teams distribute parallel for num_threads(2)@D@ map(tofrom: acc, execs, lp) firstprivate(fp) private(pv) lastprivate(lp) reduction(+:acc, execs)
    for (int i = 0; i < 10; i++) { pv = i; lp = i; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    simd) cat <<'EOF2' ;;
#pragma omp parallel num_threads(2)@D@ private(lp) firstprivate(fp) reduction(+:acc, execs)
#pragma omp simd private(pv) lastprivate(lp) reduction(+:acc, execs)
    for (int i = 0; i < 10; i++) { pv = i; lp = i; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    parallel_for_simd) cat <<'EOF2' ;;
#pragma omp parallel for simd num_threads(2)@D@ firstprivate(fp) private(pv) lastprivate(lp) reduction(+:acc, execs)
    for (int i = 0; i < 10; i++) { pv = i; lp = i; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    parallel_loop) cat <<'EOF2' ;;
#pragma omp parallel loop num_threads(2)@D@ firstprivate(fp) private(pv) reduction(+:acc, execs)
    for (int i = 0; i < 10; i++) { pv = i; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    teams_loop) cat <<'EOF2' ;;
#pragma omp teams loop num_teams(2)@D@ firstprivate(fp) private(pv) reduction(+:acc, execs)
    for (int i = 0; i < 10; i++) { pv = i; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    loop) cat <<'EOF2' ;;
#pragma omp parallel num_threads(2)@D@ shared(acc, execs) firstprivate(fp) private(pv)
#pragma omp loop reduction(+:acc, execs)
    for (int i = 0; i < 10; i++) { pv = i; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    teams_then_loop) cat <<'EOF2' ;;
#pragma omp teams num_teams(2)@D@ shared(acc, execs) firstprivate(fp)
#pragma omp loop reduction(+:acc, execs)
    for (int i = 0; i < 10; i++) { int q = i; long v = BODY(q); REGION; acc += v; execs++; }
EOF2
    masked) cat <<'EOF2' ;;
#pragma omp parallel num_threads(2)@D@ firstprivate(fp) private(pv) reduction(+:acc, execs)
#pragma omp masked
    { pv = 3; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    declare_reduction) cat <<'EOF2' ;;
#pragma omp parallel for num_threads(2)@D@ firstprivate(fp) private(pv) reduction(+:execs) reduction(mg:sum)
    for (int i = 0; i < 10; i++) { pv = i; long v = BODY(pv); REGION; sum.v += v; execs++; }
    acc = sum.v;
EOF2
    parallel_masked) cat <<'EOF2' ;;
#pragma omp parallel masked num_threads(2)@D@ firstprivate(fp) private(pv) reduction(+:acc, execs)
    { pv = 3; long v = BODY(pv); REGION; acc += v; execs++; }
EOF2
    esac
}

# A unit per construct and default (orphan, called by the orphaned_for template alone,
# has its calls outside every parallel construct of its own): run_NAME(r) puts the runs of the body in r[0],
# the sum of what its calls returned in r[1], lp in r[2].
unit() {
    local name=$1 def=$2 fn=run_$1_$3
    cat <<EOF2
#include <omp.h>
#include <stdlib.h>
#include <cprof.h>
int ext(int x);
static int cnt(int x) { return x + 1; }
static int timed(int x) { int s = 0; for (int k = 0; k < x; k++) s += k; return s; }
static int viaptr(int x) { return 2 * x; }
#define BODY(i) (cnt(i) + timed(3) + ext(i) + fp(i) + labs(i))
#define REGION CPROF_REGION("reg") v += cnt(0)
#define ADD(v) do { _Pragma("omp atomic") acc += (v); _Pragma("omp atomic") execs++; } while (0)
EOF2
    # A declare reduction whose combiner and initializer make calls, which the
    # rewriter copies for the construct (docs/rewriting.md).
    [ "$name" = declare_reduction ] && cat <<'EOF2'
struct sum { long v; };
static struct sum merged(struct sum a, struct sum b) { a.v += b.v; return a; }
static void zero(struct sum *s) { s->v = 0; }
#pragma omp declare reduction(mg : struct sum : omp_out = merged(omp_out, omp_in)) initializer(zero(&omp_priv))
EOF2
    [ "$name" = orphaned_for ] && cat <<'EOF2'
static long o_acc, o_execs;
static int o_lp = -1;
static void orphan(int (*fp)(int))
{
    int pv;
#pragma omp for private(pv) lastprivate(o_lp) reduction(+:o_acc, o_execs) schedule(static)
    for (int i = 0; i < 10; i++) { pv = i; o_lp = i; long v = BODY(pv); REGION; o_acc += v; o_execs++; }
}
EOF2
    cat <<EOF2
void $fn(long r[3]);
void $fn(long r[3])
{
    int (*fp)(int) = viaptr;
    long acc = 0, execs = 0;
    int pv = 0, lp = -1;
EOF2
    [ "$name" = declare_reduction ] && echo '    struct sum sum = { 0 };'
    template "$name" | sed -e "s/@D@/$def/g"
    cat <<EOF2
    r[0] = execs; r[1] = acc; r[2] = lp; (void)pv;
}
EOF2
}

printf 'int ext(int x) { return 3 * x; }\n' > ext.c
units=() fns=()
for name in "${templates[@]}"; do
    for d in "${defaults[@]}"; do
        unit "$name" " default($d)" "$d" > "u_${name}_$d.c"
        units+=("u_${name}_$d.c") fns+=("run_${name}_$d")
    done
done
# uflags UNIT: the flags of UNIT's default beside the others
uflags() { local d=${1%.c}; d=${d##*_}; echo "${def_flags[$d]:-}"; }
{
    echo '#include <stdio.h>'
    for f in "${fns[@]}"; do echo "void $f(long r[3]);"; done
    echo 'int main(void)'
    echo '{'
    echo '    long r[3];'
    for f in "${fns[@]}"; do
        echo "    $f(r); printf(\"$f %ld %ld %ld\\n\", r[0], r[1], r[2]);"
    done
    echo '    return 0;'
    echo '}'
} > main.c

ref_fail=0
for u in "${units[@]}" ext.c main.c; do
    "$plain_cc" "${flags[@]}" $(uflags "$u") -c "$u" -o "${u%.c}.g.o" 2> "${u%.c}.g.err" || ref_fail=1
done
check "$plain_cc compiles every unit with -Wall -Wextra -Werror (the matrix is valid: ${#templates[@]} constructs x ${#defaults[@]} defaults$only)" \
    "$(cat ./*.g.err | indent /dev/stdin 10)" -- [ $ref_fail = 0 ]
"$plain_cc" -fopenmp *.g.o -o ref && OMP_NUM_THREADS=2 ./ref > ref.out

# matrix NAME FLAGS...: every unit alone (so that a unit either builds or says why)
# by cprof-cc with FLAGS, the program run, its counts checked.
matrix() {
    local name=$1 u cc_fail=() cc_diag=() ok_units=() bad=() fn f execs got want st
    shift
    for u in "${units[@]}" ext.c main.c; do
        CPROF_STRICT=1 "$bin/cprof-cc" "${flags[@]}" $(uflags "$u") -fcprof-libcalls -fcprof-strict "$@" -c "$u" -o "${u%.c}.o" \
            2> "${u%.c}.c.err" || cc_fail+=("$u")
        cmp -s "${u%.c}.g.err" "${u%.c}.c.err" || cc_diag+=("$u")
        [ -f "${u%.c}.o" ] && ok_units+=("${u%.c}.o")
    done
    check "$name: cprof-cc -fcprof-strict profiles every unit (${#units[@]} constructs x defaults)" \
        "failed (${#cc_fail[@]}): ${cc_fail[*]:0:8}" "$(for u in "${cc_fail[@]:0:2}"; do indent "${u%.c}.c.err" 3; done)" -- \
        [ ${#cc_fail[@]} = 0 ]
    check "$name: cprof-cc's diagnostics are $plain_cc's (none) on every unit" "differ (${#cc_diag[@]}): ${cc_diag[*]:0:8}" \
        "$(for u in "${cc_diag[@]:0:2}"; do indent "${u%.c}.c.err" 3; done)" -- [ ${#cc_diag[@]} = 0 ]
    "$bin/cprof-cc" -fopenmp "$@" "${ok_units[@]}" -o prog 2> link.err
    OMP_NUM_THREADS=2 CPROF_OUT=prof.out ./prog > prog.out 2> prog.err; st=$?
    check "$name: the profiled program prints what $plain_cc's does (status $st)" "$(diff ref.out prog.out | indent /dev/stdin)" -- \
        cmp -s ref.out prog.out
    "$bin/cprof-report" --json prof.out > report.json 2> report.err
    # Per unit: the body ran E times (the program says so); each run called cnt twice
    # (once in the region), timed, viaptr (through the pointer), ext and labs once, and
    # entered the region once.
    local total='(.s_caller + (.c_caller | add))'
    local arcs='([.arcs[] | select(.caller_file == $f and .callee == $to) | .s_callarc + .c_callarc] | add)'
    while read -r fn execs _; do
        f=u_${fn#run_}.c
        got=$(jq -c --arg f "$f" --arg fn "$fn" "$JQ_DEFS
            [ (rf(\"cnt\"; \$f) | $total), (rf(\"timed\"; \$f) | $total), (rf(\"viaptr\"; \$f) | $total),
              (rf(\"reg\"; \$f) | $total),
              ((\"ext\") as \$to | $arcs), ((\"labs\") as \$to | $arcs) ]" report.json 2>/dev/null)
        want="[$((2 * execs)),$execs,$execs,$execs,$execs,$execs]"
        [ "$got" = "$want" ] || bad+=("$fn: want $want (cnt timed viaptr reg ext labs), got ${got:-nothing}")
    done < ref.out
    [ "$(wc -l < ref.out 2>/dev/null)" = ${#units[@]} ] || bad+=("the program printed $(wc -l < ref.out 2>/dev/null) units' lines")
    check "$name: every count is the program's own count of the body's runs (${#units[@]} units)" \
        "${#bad[@]} wrong" "${bad[@]:0:6}" -- [ ${#bad[@]} = 0 ]
}
matrix default
# -fcprof-input-size renders each routine twice (twins.c): the copies too.
matrix -fcprof-input-size -fcprof-input-size

# Calls in the clauses of such constructs (evaluated before them, by the encountering
# thread): num_threads, if and final, of a parallel and a task with default(none), of
# a parallel loop (a parallel for under clang 14, which reads no parallel loop).  nt
# runs for each parallel (2) and in the task's if (1), cond in the parallel's if (1),
# the task's if and final (2); leaf twice in the parallel (2 threads), once in the
# task, 4 times in the loop.
ploop=loop
[ "$plain_cc" = clang ] && ploop=for
sed "s/@LOOP@/$ploop/" > clauses.c <<'EOF2'
#include <stdio.h>
static int nt(void) { return 2; }
int cond(int x) { return x > 0; }
static int leaf(int x) { return x + 1; }
int main(void)
{
    int s = 0;
#pragma omp parallel default(none) shared(s) num_threads(nt()) if(cond(1))
    {
#pragma omp atomic
        s += leaf(1);
#pragma omp single
        {
#pragma omp task default(none) shared(s) if(cond(nt())) final(cond(0))
            {
#pragma omp atomic
                s += leaf(2);
            }
        }
    }
#pragma omp parallel @LOOP@ num_threads(nt()) reduction(+:s)
    for (int i = 0; i < 4; i++)
        s += leaf(i);
    printf("%d\n", s);
    return 0;
}
EOF2
"$plain_cc" "${flags[@]}" clauses.c -o clauses_ref && ./clauses_ref > clauses_ref.out
"$bin/cprof-cc" "${flags[@]}" -fcprof-strict clauses.c -o clauses 2> clauses.err; st=$?
CPROF_OUT=clauses.prof ./clauses > clauses.out
check "calls in the clauses of default(none) constructs (parallel $ploop): profiled, silent, $plain_cc's output (status $st)" \
    "$(indent clauses.err)" -- bash -c "[ $st = 0 ] && [ ! -s clauses.err ] && cmp -s clauses_ref.out clauses.out"
"$bin/cprof-report" --json clauses.prof > clauses.json
expect_jq "calls in the clauses of default(none) constructs: counts" clauses.json \
    '[.routines[] | [.name, .s_caller + (.c_caller | add)]]' '[["cond",3],["leaf",7],["main",1],["nt",3]]'
finish
