#!/usr/bin/env bash
# Every libgomp entry point cprof wraps (runtime/ext/gomp.c, build/lib/cprof-link.opt) with
# each clause that changes the data block libgomp is given, its flags or how it runs
# the body: reduction, in_reduction, task_reduction, detach, depend, priority, affinity,
# allocate, grainsize and num_tasks (strict or not), nogroup, final, if, mergeable,
# untied, a copy function (a firstprivate VLA), cancellation; taskloop over long and
# unsigned long long; parallel, parallel_reductions, the combined loops of every
# schedule, sections; the barriers of loops, sections and cancellable regions.  One
# program per combination, built by gcc and by cprof-cc (under clang: clang and
# cprof-clang, the same constructs on libomp, observed by OMPT): the same output and exit
# status, and the profile's counts exact (the task bodies the program counted itself,
# the constructs met, the leaf's calls).  Last, every wrapped entry point is called by
# one of these programs (a new wrapper needs its cases here).
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

# The program's own count of task bodies (or team members) is printed as "bodies=N",
# the leaf's calls as "leaf=N"; the construct checked is the pragma on the line
# holding "MARK".
common='#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
static int leaf(int i) { return i * 3 + 1; }'
main_open='int main(int argc, char **argv)
{
    (void)argv;
    long s = 0;'

# task NAME CLAUSES [BODY] [OPEN] [CLOSE]: six tasks made in a loop by one thread.
task() {
    local body=${3:-'int r = leaf(i);
#pragma omp atomic
            s += r;'}
    cat > "$1.c" <<EOF
$common
$main_open
    int bodies = 0, leaves = 0, n = argc + 2, v = 5, x[2] = { 0, 0 };
    int vla[n], large[20000];
    for (int k = 0; k < n; k++)
        vla[k] = k + 7;
    for (int k = 0; k < 20000; k++)
        large[k] = k;
    omp_event_handle_t ev;
    (void)v, (void)x, (void)vla, (void)ev, (void)large;
#pragma omp parallel num_threads(2)
#pragma omp single
    ${4:-}
    for (int i = 0; i < 6; i++) {
#pragma omp task $2 /* MARK */
        {
#pragma omp atomic
            bodies++;
#pragma omp atomic
            leaves++;
            $body
        }
    }
    ${5:-}
    printf("s=%ld bodies=%d leaf=%d x=%d,%d\n", s, bodies, leaves, x[0], x[1]);
    return 0;
}
EOF
}

# taskloop NAME TYPE CLAUSES [BODY] [OPEN] [CLOSE]: 13 iterations, their tasks counted
# by a firstprivate flag each task clears.
taskloop() {
    local body=${4:-'int r = leaf((int)i);
#pragma omp atomic
        s += r;'}
    cat > "$1.c" <<EOF
$common
$main_open
    int bodies = 0, leaves = 0, first = 1, n = argc + 2, v = 5, last = -1;
    int vla[n];
    for (int k = 0; k < n; k++)
        vla[k] = k + 7;
    (void)v, (void)vla;
    $2 lo = ($2)argc - 1, hi = ($2)argc + 12;
#pragma omp parallel num_threads(2)
#pragma omp single
    ${5:-}
#pragma omp taskloop firstprivate(first) $3 /* MARK */
    for ($2 i = lo; i < hi; i++) {
        if (first) {
            first = 0;
#pragma omp atomic
            bodies++;
        }
#pragma omp atomic
        leaves++;
        $body
    }
    ${6:-}
    printf("s=%ld bodies=%d leaf=%d last=%d\n", s, bodies, leaves, last);
    return 0;
}
EOF
}

# region NAME TEXT: a program of its own (TEXT is main's body), its parallel construct
# on the line with MARK.
region() {
    cat > "$1.c" <<EOF
$common
$main_open
    int bodies = 0, leaves = 0, n = argc + 11;
    (void)n;
$2
    printf("s=%ld bodies=%d leaf=%d\n", s, bodies, leaves);
    return 0;
}
EOF
}

atomic_leaf='int r = leaf(i);
#pragma omp atomic
            s += r;'
counted='#pragma omp atomic
            bodies++;
#pragma omp atomic
            leaves++;'

names=()
add() { names+=("$1"); }

# ---- GOMP_task ----
for c in "" "if(0)" "if(1)" "final(1)" "mergeable" "untied" "priority(3)" "affinity(s)" \
         "if(0) final(1)" "untied if(0)" "mergeable final(1)"; do
    name=task_$(echo "${c:-plain}" | tr -c 'a-z0-9\n' '_' | sed 's/_*$//')
    task "$name" "$c"; add "$name"
done
for c in "depend(inout: x[i % 2])" "depend(out: x[0]) depend(in: x[1])" \
         "depend(mutexinoutset: x[i % 2])" "depend(inout: x[0]) if(0)"; do
    name=task_$(echo "$c" | tr -c 'a-z0-9\n' '_' | sed 's/_*$//')
    task "$name" "$c" "$atomic_leaf
#pragma omp atomic
            x[i % 2] += 1;"; add "$name"
done
task task_firstprivate_vla "firstprivate(vla)" 'int r = leaf(i) + vla[n - 1];
#pragma omp atomic
            s += r;'; add task_firstprivate_vla
task task_firstprivate_vla_if0 "firstprivate(vla) if(0)" 'int r = leaf(i) + vla[n - 1];
#pragma omp atomic
            s += r;'; add task_firstprivate_vla_if0
# A block larger than a chunk of the worker's LIFO (64 KiB).
task task_firstprivate_large "firstprivate(large)" 'large[0] += i;
            int r = leaf(i) + large[19999] - 19999 + large[0] - i;
#pragma omp atomic
            s += r;'
add task_firstprivate_large
task task_allocate "firstprivate(v) allocate(omp_default_mem_alloc: v)" 'int r = leaf(i) + v;
#pragma omp atomic
            s += r;'; add task_allocate
for c in "" "if(0)" "firstprivate(vla)" "firstprivate(vla) if(0)"; do
    name=task_detach_$(echo "${c:-deferred}" | tr -c 'a-z0-9\n' '_' | sed 's/_*$//')
    task "$name" "detach(ev) $c" "$atomic_leaf
            s += vla[0] - 7;
            omp_fulfill_event(ev);"; add "$name"
done
for c in "" "if(0)" "final(1)" "firstprivate(vla)"; do
    name=task_in_reduction_$(echo "${c:-deferred}" | tr -c 'a-z0-9\n' '_' | sed 's/_*$//')
    task "$name" "in_reduction(+: s) $c" 's += leaf(i) + vla[0] - 7;' \
        '#pragma omp taskgroup task_reduction(+: s)
    {' '}'; add "$name"
done
# Cancelled: the third task cancels its taskgroup, libgomp skips the three after it.
task task_cancel_if0 "if(0)" "$atomic_leaf
            if (i == 2) {
#pragma omp cancel taskgroup
            }" '#pragma omp taskgroup
    {' '}'; add task_cancel_if0
env_task_cancel_if0="OMP_CANCELLATION=true"

# ---- GOMP_taskloop and GOMP_taskloop_ull ----
for t in long "unsigned long long"; do
    tn=$( [ "$t" = long ] && echo taskloop || echo taskloop_ull )
    for c in "" "grainsize(2)" "grainsize(strict: 4)" "num_tasks(3)" "num_tasks(strict: 5)" \
             "nogroup" "final(1)" "if(0)" "mergeable" "untied" "priority(2)" \
             "firstprivate(vla)" "firstprivate(vla) if(0)" "lastprivate(last)" \
             "firstprivate(v) allocate(omp_default_mem_alloc: v)"; do
        name=${tn}_$(echo "${c:-plain}" | tr -c 'a-z0-9\n' '_' | sed 's/_*$//')
        body='int r = leaf((int)i) + vla[n - 1] + v;
#pragma omp atomic
        s += r;'
        case $c in lastprivate*) body="$body
        last = (int)i;" ;; esac
        taskloop "$name" "$t" "$c" "$body"; add "$name"
    done
    for c in "" "grainsize(2)" "grainsize(strict: 4)" "num_tasks(strict: 5)" "final(1)" \
             "if(0)" "firstprivate(vla)" "firstprivate(vla) if(0)" "untied mergeable priority(1)"; do
        name=${tn}_reduction_$(echo "${c:-plain}" | tr -c 'a-z0-9\n' '_' | sed 's/_*$//')
        taskloop "$name" "$t" "reduction(+: s) $c" 's += leaf((int)i) + vla[n - 1];'
        add "$name"
    done
    for c in "" "if(0)" "nogroup" "firstprivate(vla)"; do
        name=${tn}_in_reduction_$(echo "${c:-plain}" | tr -c 'a-z0-9\n' '_' | sed 's/_*$//')
        taskloop "$name" "$t" "in_reduction(+: s) $c" 's += leaf((int)i) + vla[n - 1];' \
            '#pragma omp taskgroup task_reduction(+: s)
    {' '}'
        add "$name"
    done
done

# ---- parallel regions and their barriers ----
region parallel "#pragma omp parallel num_threads(2) /* MARK */
    {
        int i = omp_get_thread_num();
        $counted
        $atomic_leaf
    }"; add parallel
region parallel_reductions "#pragma omp parallel num_threads(2) reduction(task, +: s) /* MARK */
    {
#pragma omp atomic
        bodies++;
#pragma omp single
        for (int i = 0; i < n; i++) {
#pragma omp task in_reduction(+: s)
            {
#pragma omp atomic
                leaves++;
                s += leaf(i);
            }
        }
    }"; add parallel_reductions
region parallel_for_reductions "#pragma omp parallel for num_threads(2) reduction(task, +: s) /* MARK */
    for (int i = 0; i < n; i++) {
        if (i == 0)
            bodies = omp_get_num_threads();
#pragma omp task in_reduction(+: s)
        {
#pragma omp atomic
            leaves++;
            s += leaf(i);
        }
    }"; add parallel_for_reductions
# Combined loops: gcc calls GOMP_parallel_loop_* for constant bounds and a schedule
# that is not static; GOMP_parallel_loop_static, which gcc 12 expands inline, is called
# by the program itself, as another compiler's code would.
for sched in static "static, 2" dynamic "dynamic, 3" guided "guided, 2" runtime auto \
             "monotonic: dynamic" "monotonic: dynamic, 2" "monotonic: guided" "monotonic: guided, 2" \
             "monotonic: runtime" "nonmonotonic: dynamic" "nonmonotonic: guided" "nonmonotonic: runtime"; do
    name=parallel_for_$(echo "$sched" | tr -c 'a-z0-9\n' '_' | sed 's/_*$//;s/__*/_/g')
    region "$name" "#pragma omp parallel for num_threads(2) schedule($sched) /* MARK */
    for (int i = 0; i < 12; i++) {
        if (i == 0)
            bodies = omp_get_num_threads();
#pragma omp atomic
        leaves++;
        $atomic_leaf
    }"; add "$name"
done
region parallel_loop_static "    struct shared sh = { &s, &leaves };
    GOMP_parallel_loop_static(static_body, &sh, 2, 0, 12, 1, 2, 0); /* MARK */
    bodies = 2;"
sed -i '/^int main/i\
struct shared { long *s; int *leaves; };\
void GOMP_parallel_loop_static(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);\
_Bool GOMP_loop_static_next(long *, long *);\
void GOMP_loop_end_nowait(void);\
static void static_body(void *p)\
{\
    struct shared *sh = p;\
    long a, b;\
    while (GOMP_loop_static_next(&a, &b))\
        for (long i = a; i < b; i++) {\
            int r = leaf((int)i);\
#pragma omp atomic\
            *sh->leaves += 1;\
#pragma omp atomic\
            *sh->s += r;\
        }\
    GOMP_loop_end_nowait();\
}' parallel_loop_static.c
add parallel_loop_static
region parallel_sections "#pragma omp parallel sections num_threads(2) /* MARK */
    {
#pragma omp section
        { int i = 1;
          bodies = omp_get_num_threads();
#pragma omp atomic
          leaves++;
          $atomic_leaf }
#pragma omp section
        { int i = 2;
#pragma omp atomic
          leaves++;
          $atomic_leaf }
    }"; add parallel_sections
# The barriers: a loop's, sections', an explicit one; each also in a region that can be
# cancelled (the _cancel forms; with OMP_CANCELLATION, never cancelled).
for cancel in "" cancel; do
    cfor= csections= cparallel=
    if [ "$cancel" ]; then
        cfor='if (i < 0) {
#pragma omp cancel for
            }'
        csections='if (t < 0) {
#pragma omp cancel sections
            }'
        cparallel='if (t < 0) {
#pragma omp cancel parallel
        }'
    fi
    region "barriers$cancel" "#pragma omp parallel num_threads(2) /* MARK */
    {
        int t = omp_get_thread_num();
#pragma omp for schedule(dynamic) reduction(+: s)
        for (int i = 0; i < n; i++) {
            $cfor
#pragma omp atomic
            leaves++;
            s += leaf(i);
        }
#pragma omp sections reduction(+: s)
        {
#pragma omp section
            { $csections
#pragma omp atomic
              leaves++;
              s += leaf(100); }
#pragma omp section
            {
#pragma omp atomic
              leaves++;
              s += leaf(200); }
        }
#pragma omp barrier
        $cparallel
#pragma omp atomic
        bodies++;
#pragma omp for nowait
        for (int i = 0; i < 4; i++) {
#pragma omp atomic
            leaves++;
            $atomic_leaf
        }
    }"
    add "barriers$cancel"
done
env_barrierscancel="OMP_CANCELLATION=true"

# ---- build, run, compare ----
called=$tmp/called
: > "$called"
for name in "${names[@]}"; do
    envvar=env_$name
    extra=${!envvar:-}
    if ! "$plain_cc" -fopenmp -O2 "$name.c" -o "$name.gcc" 2> "$name.gcc.err"; then
        # clang refuses some of gcc's (a firstprivate VLA in a task, strict grainsize).
        if [ "$plain_cc" = gcc ]; then
            nok "$name: $plain_cc compiles it" "$(indent "$name.gcc.err")"
        else
            skip "$name" "$plain_cc rejects it: $(grep -m1 'error:' "$name.gcc.err" | cut -c1-160)"
        fi
        continue
    fi
    nm -D "$name.gcc" | sed -n 's/^ *U \(GOMP_[a-z_]*\).*/\1/p' >> "$called"
    "$bin/cprof-cc" -fopenmp -O2 "$name.c" -o "$name" 2> "$name.cc.err"
    st=$?
    if [ $st != 0 ] || [ -s "$name.cc.err" ]; then
        nok "$name: cprof-cc compiles it, saying nothing" "status $st" "$(indent "$name.cc.err")"
        continue
    fi
    env $extra ./"$name.gcc" > "$name.want" 2>&1; want_st=$?
    env $extra CPROF_OUT="$name.out" ./"$name" > "$name.got" 2>&1; got_st=$?
    check "$name: the output and exit status of $plain_cc's build ($want_st)" \
        "$plain_cc's:  $(head -c 200 "$name.want")" "cprof's: $(head -c 200 "$name.got") (status $got_st)" -- \
        cmp -s <(cat "$name.want"; echo "status $want_st") <(cat "$name.got"; echo "status $got_st")
    # The checking facade (CPROF_DEBUG) and the traced one (CPROF_TRACE) run it as well.
    env $extra CPROF_DEBUG=1 CPROF_OUT="$name.d.out" ./"$name" > "$name.debug" 2>&1; debug_st=$?
    env $extra CPROF_TRACE=1 CPROF_OUT="$name.t.out" ./"$name" > "$name.traced" 2>&1; traced_st=$?
    check "$name: CPROF_DEBUG=1 and CPROF_TRACE=1: the same output and status" \
        "debug:  $(head -c 200 "$name.debug") (status $debug_st)" \
        "traced: $(head -c 200 "$name.traced") (status $traced_st)" -- \
        cmp -s <(cat "$name.want" "$name.want"; echo "status $want_st $want_st") \
               <(cat "$name.debug" "$name.traced"; echo "status $debug_st $traced_st")
    # libomp 14 aborts on an untied if(0) task (an assertion in kmp_tasking.cpp), clang's
    # build as cprof's: no profile to read.
    if [ "$want_st" -gt 128 ] && [ "$plain_cc" != gcc ]; then
        skip "$name: the profile" "$plain_cc's build itself dies (status $want_st): $(grep -m1 -i 'assert\|error' "$name.want" | cut -c1-120)"
        continue
    fi
    if ! "$bin/cprof-report" --json "$name.out" > "$name.json" 2> "$name.rep.err"; then
        nok "$name: a profile cprof-report reads" "$(indent "$name.rep.err")"
        continue
    fi
    # A construct the program opens by calling libgomp itself is unnamed.
    sel=".construct == \"parallel\" and .line == null"
    grep -q 'pragma.*MARK' "$name.c" &&
        sel=".line == $(grep -n MARK "$name.c" | cut -d: -f1) and .file == \"$name.c\""
    bodies=$(sed -n 's/.*bodies=\([0-9]*\).*/\1/p' "$name.got")
    leaves=$(sed -n 's/.*leaf=\([0-9]*\).*/\1/p' "$name.got")
    case $name in
        taskloop*) opened=1 ;;
        task*) opened=6 ;;
        *) opened=1 ;;
    esac
    expect_jq "$name: the construct's bodies ($bodies, counted by the program) and openings ($opened), the leaf's calls ($leaves)" \
        "$name.json" "[(.regions[] | select($sel) | [.executions, .opened]), (r(\"leaf\") | .s_caller + (.c_caller | add))]" \
        "[[$bodies, $opened], $leaves]"
done

# Every libgomp entry point cprof-cc links with --wrap is called by one of the programs
# (gcc's: clang's call libomp's own entry points, which OMPT observes).
only_gcc "clang's programs call none of libgomp's entry points"
wrapped=$(sed -n "s/^--wrap=\(GOMP_\)/\1/p" "$root/build/lib/cprof-link.opt" | sort -u)
missing=$(comm -23 <(echo "$wrapped") <(sort -u "$called"))
check "every wrapped entry point ($(echo "$wrapped" | wc -l)) is called by a program here" \
    "not called: $(echo $missing)" -- [ -z "$missing" ]
finish
