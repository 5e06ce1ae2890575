#!/usr/bin/env bash
# The stack a nested task costs its thread, per nesting level, gcc's build against
# cprof's: a recursion of LEVELS (default 2000) levels, each a task whose body makes the
# next call, measured by the program itself (its frame's address at the outermost and
# the innermost level).  One kind of task per line: if(0) (the issue's program), a task
# libgomp runs at once though it may defer it (with no team here; a team with more than
# 64 queued tasks per thread does the same), a deferred one run at the creator's taskwait,
# if(0) with a copy function (a firstprivate VLA), a taskloop of one if(0) task.  All on
# one thread, the team's other one spinning: the tasks nest on it.  Bytes, the same on
# every run of a build.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CPROF_BIN:-$root/build/bin}
levels=${LEVELS:-2000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$root/bench/results.sh"
results_to "${BENCH_RESULTS:-$root/bench/results/task_stack.txt}"
results_settings LEVELS
cd "$tmp"
# nest NAME BODY: a routine of the recursion, the task construct that calls it in BODY.
nest() {
    cat <<EOF2
static long $1(int d)
{
    long r = 0;
    probe(d, __builtin_frame_address(0));
    if (!d)
        return 0;
$2
    return r + 1;
}
EOF2
}
{
    cat <<'EOF2'
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
static int levels;
static char *outer, *inner;

static void probe(int d, char *at)
{
    if (d == levels - 1)
        outer = at;
    if (d == 1)
        inner = at;
}
EOF2
    nest if0 '#pragma omp task shared(r) if(0)
    r = if0(d - 1);'
    nest alone '#pragma omp task shared(r)
    r = alone(d - 1);'
    nest wait '#pragma omp task shared(r)
    r = wait(d - 1);
#pragma omp taskwait'
    nest copy '    int n = d % 2 + 1;
    int v[n];
    v[0] = 1;
#pragma omp task shared(r) firstprivate(v) if(0)
    r = copy(d - 1) + v[0] - 1;'
    nest loop '#pragma omp taskloop shared(r) num_tasks(1) if(0)
    for (int i = 0; i < 1; i++)
        r = loop(d - 1);'
    cat <<'EOF2'
int main(int argc, char **argv)
{
    long (*const kinds[])(int) = { if0, alone, wait, copy, loop };
    int k = atoi(argv[1]);
    long r = 0;
    levels = atoi(argv[2]);
    volatile int done = 0;
    if (k == 1)
        r = alone(levels);      /* no team: libgomp runs each task at once */
    else {
        /* The other thread spins where it cannot take a task: each one is run by the
         * thread that made it, deferred ones at its taskwait. */
#pragma omp parallel num_threads(2)
        if (omp_get_thread_num() == 0) {
            r = kinds[k](levels);
            done = 1;
        } else {
            while (!done)
                ;
        }
    }
    printf("%ld %ld\n", r, (long)(outer - inner) / (levels - 2));
    return r != levels;
}
EOF2
} > nest.c
gcc -O2 -fopenmp nest.c -o plain
"$bin/cprof-cc" -O2 -fopenmp nest.c -o prof
printf '%-44s %9s %9s %7s\n' "task kind (bytes of stack per nesting level)" gcc cprof added
k=0
for kind in "if(0)" "run at once by libgomp (no team here)" "deferred, run at its creator's taskwait" \
            "if(0) with a copy function" "taskloop, one if(0) task"; do
    # libgomp defers a task while its team has at most 64 per thread not finished:
    # running ancestors count.
    l=$levels
    [ $k = 2 ] && l=100
    g=$(OMP_STACKSIZE=64M ./plain $k "$l" | cut -d' ' -f2)
    c=$(OMP_STACKSIZE=64M CPROF_OUT=/dev/null ./prof $k "$l" | cut -d' ' -f2)
    printf '%-44s %9s %9s %+7d\n' "$kind" "$g" "$c" $((c - g))
    k=$((k + 1))
done
results_done
