#!/usr/bin/env bash
# Nested tasks need the stack gcc's build needs, plus a stated margin (docs/semantics.md,
# "Parallel regions and tasks"): bench/task_stack.sh's bytes per nesting level for each
# kind of task, at most 80 more than gcc's (160 for a task with a copy function, whose
# block libgomp copies to its stack).  The issue's program (12,000 nested if(0) tasks, 2
# threads, default stacks) completes every run; so does examples/uts in 1 MiB thread
# stacks.  Where a thread's stack runs out all the same, the program dies of SIGSEGV as
# gcc's build does, after one line that names the thread.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

at_most() { [ -n "$1" ] && [ "$1" -le "$2" ]; }
# (Its results file in $tmp: a test leaves the committed bench/results/ as it found it.)
BENCH_RESULTS=$tmp/task_stack.txt CPROF_BIN=$bin "$root/bench/task_stack.sh" > bytes 2> bytes.err
while IFS='|' read -r kind max; do
    line=$(awk -v k="$kind" 'index($0, k "  ") == 1' bytes)
    added=$(awk '{ print $NF }' <<< "$line")
    check "bytes of stack per nested task, $kind: at most $max more than $plain_cc's build" \
        "$line" "$(indent bytes.err)" -- at_most "$added" "$max"
done <<'EOF'
if(0)|80
run at once by libgomp (no team here)|80
deferred, run at its creator's taskwait|80
if(0) with a copy function|160
taskloop, one if(0) task|80
EOF

# The issue's program: whichever thread runs the single, on a worker it has libgomp's
# default stack (RLIMIT_STACK's 8 MiB): gcc's build needs 5.9 MB for 12,000 levels.
cat > nest.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
long nest(int d){ long r=0; if(!d) return 0;
#pragma omp task shared(r) if(0)
 r=nest(d-1); return r+1; }
int main(int c,char**v){ long r=0;
#pragma omp parallel
#ifdef WORKER
 if (omp_get_thread_num() == 1)
#else
#pragma omp single
#endif
 r=nest(atoi(v[1])); printf("%ld\n",r); }
EOF
"$plain_cc" -fopenmp -O2 nest.c -o nest.gcc
"$bin/cprof-cc" -fopenmp -O2 nest.c -o nest 2> cc.err || nok "cprof-cc compiles the issue's program" "$(indent cc.err)"
"$bin/cprof-cc" -fopenmp -O2 -DWORKER nest.c -o worker 2>> cc.err || nok "cprof-cc compiles it, forced to a worker" "$(indent cc.err)"
runs() {  # runs N PROGRAM ARGS...: how many of N runs printed 12000 and exited 0
    local n=$1 i good=0; shift
    for i in $(seq "$n"); do
        [ "$( (ulimit -Ss 8192; CPROF_OUT=$tmp/p.out "$@" 2>> runs.err; exit $?) 2> /dev/null)" = 12000 ] &&
            good=$((good + 1))
    done
    echo "$good"
}
: > runs.err
good=$(runs 6 ./nest 12000)
check "the issue's program, 12,000 nested if(0) tasks, 2 threads: 6 runs of 6 complete" \
    "$good completed" "$(indent runs.err)" -- [ "$good" = 6 ]
good=$(OMP_STACKSIZE=8M runs 3 ./worker 12000)
check "the same on OpenMP thread 1 with an 8 MiB stack: 3 runs of 3 complete" \
    "$good completed" "$(indent runs.err)" -- [ "$good" = 3 ]
check "the profile of the last run counts the 12,000 tasks" "$(indent runs.err)" -- \
    bash -c "'$bin/cprof-report' --json p.out | jq -e '[.regions[] | select(.construct == \"task\") | .executions] == [12000]' > /dev/null"

# A stack that runs out all the same: one line, then SIGSEGV as gcc's build.
"$plain_cc" -fopenmp -O2 -DWORKER nest.c -o worker.gcc
# (A subshell that is not the program itself says "Segmentation fault" to /dev/null.)
( OMP_STACKSIZE=256K ./worker.gcc 12000 > gcc.out 2> gcc.err; exit $? ) 2> /dev/null
gst=$?
( OMP_STACKSIZE=256K CPROF_OUT=$tmp/q.out ./worker 12000 > out 2> err; exit $? ) 2> /dev/null
st=$?
check "a 256 KiB worker stack: killed by SIGSEGV as $plain_cc's build is ($gst)" "status $st" -- \
    [ "$st$gst" = 139139 ]
want='cprof: stack overflow in thread TID (OpenMP thread 1) at N KiB of stack (OMP_STACKSIZE 256K); profiled frames are larger than gcc'"'"'s: give the thread a larger stack (OMP_STACKSIZE for OpenMP'"'"'s threads)'
check "one line on stderr names the thread and OMP_STACKSIZE ($plain_cc's build says nothing)" \
    "$(indent err)" -- [ "$(sed -E 's/thread [0-9]+ /thread TID /; s/ at [0-9]+ KiB/ at N KiB/' err)" = "$want" ]
check "the depth it says is below the stack's size" "$(indent err)" -- \
    bash -c '[ "$(sed -E "s/.* at ([0-9]+) KiB.*/\1/" err)" -le 256 ] && [ "$(sed -E "s/.* at ([0-9]+) KiB.*/\1/" err)" -ge 128 ]'
check "nothing on stdout, nothing from $plain_cc's build" -- [ ! -s out -a ! -s gcc.err ]

# BOTS uts's recursion: tasks made from tasks, each waiting for its children, 1016
# levels deep; gcc's build runs in 768 KiB thread stacks.
"$bin/cprof-cc" -fopenmp -O2 "$root/examples/uts/uts.c" -o uts -lm 2> cc.err || nok "cprof-cc compiles uts" "$(indent cc.err)"
good=0
for i in 1 2 3 4; do
    ( OMP_STACKSIZE=1M CPROF_OUT=$tmp/u.out ./uts > uts.out 2>> runs.err; exit $? ) 2> /dev/null &&
        good=$((good + 1))
done
check "examples/uts in 1 MiB thread stacks: 4 runs of 4 complete" "$good completed" "$(indent runs.err)" -- [ "$good" = 4 ]
finish
