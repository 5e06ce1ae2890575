#!/usr/bin/env bash
# An MPI+OpenMP job (docs/mpi.md): examples/heat_mpi built with Open MPI's mpicc around
# cprof-cc and run by mpirun, 4 ranks x 2 threads: one profile per rank, named by its
# rank; cprof-report sums them as the ranks of one run, with exact counts per rank, and
# names the slow rank; a rank with a separate run, ranks of two jobs or a rank twice are
# refused in one line.  Without mpirun and mpicc (make deps installs them) every check
# is skipped.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

names=("builds with OMPI_CC=cprof-cc mpicc" "runs under mpirun, 4 ranks x 2 threads"
       "one profile per rank" "the ranks' headers" "the job's report" "counts per rank"
       "the slow rank named" "refusals" "%r and %h under mpirun"
       "CMake with find_package(MPI) and CMAKE_C_COMPILER=cprof-cc"
       "a rank's wait is in MPI_Allreduce, not its caller"
       "MPI_Abort in the aborting rank's profile")
if ! command -v mpirun > /dev/null 2>&1 || ! command -v mpicc > /dev/null 2>&1; then
    for n in "${names[@]}"; do skip "$n" "mpirun or mpicc not installed (make deps: openmpi-bin, libopenmpi-dev)"; done
    finish
    exit
fi

# The sources only: a build or profiles left in examples/heat_mpi are not this test's.
mkdir job && cp "$root/examples/heat_mpi/Makefile" "$root/examples/heat_mpi/heat_mpi.c" job/
if ! make -s -C job CC="$bin/cprof-cc" > build.log 2>&1; then
    nok "${names[0]}" "$(indent build.log)"
    finish
    exit
fi
ok "${names[0]}"
make -s -C job run > run.out 2> run.err; st=$?
check "${names[1]}: exit 0, the check passed" "status $st" "$(indent run.err)" "$(indent run.out)" -- \
    bash -c "[ $st = 0 ] && grep -q '^4 ranks, 40960 cells: hottest' run.out && ! grep -q FAILED run.out"
files=$(cd job && ls cprof*.out 2> /dev/null | tr '\n' ' ')
check "${names[2]}: cprof.0.out ... cprof.3.out, nothing else" "files: $files" -- \
    [ "$files" = "cprof.0.out cprof.1.out cprof.2.out cprof.3.out " ]
cd job

# Each header: its rank, the job's size, one job id (Open MPI's PMIx namespace), the host.
heads=$(jq -c '[.rank, .size, .job, .host]' cprof.0.out cprof.1.out cprof.2.out cprof.3.out 2> /dev/null | tr '\n' ' ')
id=$(jq -r .job cprof.0.out 2> /dev/null)
host=$(hostname)
want=""
for r in 0 1 2 3; do want="$want[$r,4,\"$id\",\"$host\"] "; done
check "${names[3]}: ranks 0..3 of 4, one job id, this host" "got:  $heads" "want: $want" -- \
    bash -c "[ -n '$id' ] && [ '$heads' = '$want' ]"

"$bin/cprof-report" --json cprof.*.out > job.json 2> job.err; st=$?
check "${names[4]}: --json reads the four files" "status $st" "$(indent job.err)" -- \
    bash -c "[ $st = 0 ] && [ ! -s job.err ]"
expect_jq "${names[4]}: one job of 4 ranks on 1 host, its workers (rank, worker)" job.json \
    '[.files, .job.id, .job.size, .job.hosts, [.job.ranks[].rank], [.workers[] | [.rank, .rank_worker]]]' \
    "[4, \"$id\", 4, 1, [0, 1, 2, 3], [[0,0],[0,1],[1,0],[1,1],[2,0],[2,1],[3,0],[3,1]]]"
expect_jq "${names[4]}: elapsed is the longest rank's" job.json \
    '.elapsed_ns == ([.job.ranks[].elapsed_ns] | max)' 'true'

# Counts per rank, from heat_mpi.c: STEPS = 50 steps, each an exchange_halo and a relax,
# whose loop calls update_cell once per cell of the rank, CELLS = 8192 on ranks 0..2 and
# twice that on rank 3 (the deliberate imbalance): 409600 and 819200 calls, concurrent
# (S-C).  largest_change every 10 steps: 5; extremes before and after: 2; init_cells
# and main once: 1 + 1 + 2 + 50 + 50 + 5 = 109.  Under mpicc, MPI's calls are leaf
# routines (docs/mpi.md): MPI_Sendrecv twice per exchange (100), MPI_Allreduce in
# largest_change and extremes (7), MPI_Init_thread, MPI_Comm_rank, MPI_Comm_size and
# MPI_Finalize once: 111 more.  Sequential entries per rank: 220.
per_rank() { echo "r(\"$1\").ranks | map([.s_calls, .c_calls])"; }
expect_jq "${names[5]}: update_cell 409600 concurrent calls on ranks 0..2, 819200 on rank 3" job.json \
    "$(per_rank update_cell)" '[[0,409600],[0,409600],[0,409600],[0,819200]]'
for rc in "relax 50" "exchange_halo 50" "largest_change 5" "extremes 2" "init_cells 1" "main 1" \
          "MPI_Sendrecv 100" "MPI_Allreduce 7" "MPI_Init_thread 1" "MPI_Finalize 1"; do
    set -- $rc
    expect_jq "${names[5]}: $1 $2 sequential calls on each rank" job.json "$(per_rank "$1")" \
        "[[$2,0],[$2,0],[$2,0],[$2,0]]"
done
expect_jq "${names[5]}: the job's ranks, 220 sequential calls each, concurrent as update_cell's" job.json \
    '.job.ranks | map([.s_calls, .c_calls])' '[[220,409600],[220,409600],[220,409600],[220,819200]]'
expect_jq "${names[5]}: the arc relax -> update_cell, all ranks" job.json \
    '[arc("relax"; "update_cell") | .s_callarc, .c_callarc]' '[0, 2048000]'

# Rank 3 has twice the cells: the most update_cell time (its per-worker imbalance is
# nothing, the rank imbalance 2 or more).
expect_jq "${names[6]}: --json: update_cell slowest on rank 3" job.json \
    'r("update_cell").rank_imbalance | [.ranks, .inclusive.slowest_rank, .self.slowest_rank]' '[4, 3, 3]'
"$bin/cprof-report" --csv rank_imbalance cprof.*.out | tr -d '\r' > imb.csv
slow=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                $c["name"] == "update_cell" { print $c["inclusive_slowest_rank"] }' imb.csv)
check "${names[6]}: --csv rank_imbalance: update_cell's slowest rank is 3" "got '$slow'" "$(indent imb.csv)" -- \
    [ "$slow" = 3 ]
"$bin/cprof-report" -b cprof.*.out > job.txt 2>&1
line=$(sed -n '/^Rank imbalance per routine$/,/^Concurrency cases$/p' job.txt | grep -E ' update_cell$')
check "${names[6]}: the text report's rank imbalance row: slowest rank 3" "$line" -- \
    bash -c "echo '$line' | awk '{ exit !(\$1 == 4 && \$5 == 3 && \$11 == 3) }'"
check "${names[6]}: the summary: a job of 4 ranks on 1 host" "$(indent job.txt 8)" -- \
    grep -qE '^MPI job +4 ranks on 1 host$' job.txt
"$bin/cprof-report" --csv ranks cprof.*.out | tr -d '\r' | cut -d, -f1,6,7 > ranks.csv
check "${names[6]}: --csv ranks: one row per rank, its calls" "$(indent ranks.csv)" -- \
    [ "$(tr '\n' ' ' < ranks.csv)" = "rank,s_calls,c_calls 0,220,409600 1,220,409600 2,220,409600 3,220,819200 " ]

# refused NAME WANT FILE...: exit 1, stderr the one line WANT, nothing on stdout.
refused() {
    local name=$1 want=$2; shift 2
    "$bin/cprof-report" "$@" > r.out 2> r.err; local st=$?
    check "${names[7]}: $name" "status $st" "want: $want" "got:  $(head -c 300 r.err)" -- \
        bash -c "[ $st = 1 ] && [ ! -s r.out ] && [ \"\$(cat r.err)\" = \"\$1\" ]" _ "$want"
}
# A run of the same program outside mpirun (a singleton: no launcher, rank -1).
OMP_NUM_THREADS=2 CPROF_OUT=plain.out ./heat_mpi > /dev/null 2>&1
refused "a rank with a separate run" \
    "cprof-report: plain.out: a process outside an MPI job, not a rank of job $id like cprof.0.out: a job's ranks and separate runs are not summed together" \
    cprof.0.out cprof.1.out plain.out
refused "a separate run with a rank" \
    "cprof-report: cprof.0.out: rank 0 of job $id, not a process outside an MPI job like plain.out: a job's ranks and separate runs are not summed together" \
    plain.out cprof.0.out
cp cprof.1.out again.out
refused "a rank twice" "cprof-report: again.out: rank 1 of job $id again (cprof.1.out has it)" \
    cprof.0.out cprof.1.out again.out
refused "--csv ranks of a separate run" \
    "cprof-report: --csv ranks: the profiles are not the ranks of an MPI job" --csv ranks plain.out
"$bin/cprof-report" --keep-going --json cprof.*.out plain.out > kg.json 2> kg.err; st=$?
check "${names[7]}: --keep-going leaves the separate run out, one warning" "status $st" "$(indent kg.err)" -- \
    bash -c "[ $st = 0 ] && [ \$(wc -l < kg.err) = 1 ] && grep -q '^cprof-report: warning: plain.out: a process outside' kg.err &&
             [ \"\$(jq -c '[.files, .files_skipped, .job.size]' kg.json)\" = '[4,1,4]' ]"
# No job id (MPICH's Hydra): ranks that ran at one time are one job; one that ran later
# is not.  (sed: jq would round start_unix_ns.)
for r in 0 1 2 3; do sed "s/\"job\":\"$id\"/\"job\":\"\"/" cprof.$r.out > noid.$r.out; done
"$bin/cprof-report" --json noid.*.out > noid.json 2> noid.err; st=$?
check "${names[7]}: no job id, ranks that ran at one time: one job" "status $st" "$(indent noid.err)" -- \
    bash -c "[ $st = 0 ] && [ \"\$(jq -c '[.job.id, [.job.ranks[].rank]]' noid.json)\" = '[\"\",[0,1,2,3]]' ]"
start=$(grep -o '"start_unix_ns":[0-9]*' noid.3.out | cut -d: -f2)
sed "s/\"start_unix_ns\":$start/\"start_unix_ns\":$((start + 3600000000000))/" noid.3.out > later.3.out
refused "no job id, a rank an hour later" \
    "cprof-report: later.3.out: rank 3 did not run at the same time as the ranks of noid.0.out, and the files name no job: not one job" \
    noid.0.out noid.1.out later.3.out

# The job again, its files named by CPROF_OUT's %r and %h: another job, which is refused
# with the first.
mkdir again
(cd again && CPROF_OUT=p.%r.%h.out OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive \
    mpirun --oversubscribe -x OMP_NUM_THREADS -x OMP_WAIT_POLICY -x CPROF_OUT \
        $( [ "$(id -u)" = 0 ] && echo --allow-run-as-root ) -np 4 ../heat_mpi > /dev/null 2> run.err)
files=$(cd again && ls *.out 2> /dev/null | tr '\n' ' ')
check "${names[8]}: CPROF_OUT=p.%r.%h.out: p.0.$host.out ... p.3.$host.out" "files: $files" "$(indent again/run.err)" -- \
    [ "$files" = "p.0.$host.out p.1.$host.out p.2.$host.out p.3.$host.out " ]
id2=$(jq -r .job "again/p.1.$host.out" 2> /dev/null)
refused "ranks of two jobs" \
    "cprof-report: again/p.1.$host.out: rank 1 of job $id2, not of job $id like cprof.0.out: one job's ranks at a time" \
    cprof.0.out "again/p.1.$host.out"

# CMake (docs/mpi.md): the compiler is cprof-cc, MPI's flags come from MPI::MPI_C.  Run
# without a launcher (one rank, a singleton: rank -1), the program is profiled:
# update_cell is called 50 x 2 x 8192 times, the one rank being the last.
cd "$tmp"
mkdir cmake && cp "$root/examples/heat_mpi/heat_mpi.c" cmake/ && cat > cmake/CMakeLists.txt <<'EOF2'
cmake_minimum_required(VERSION 3.13)
project(heat_mpi C)
find_package(MPI REQUIRED COMPONENTS C)
find_package(OpenMP REQUIRED COMPONENTS C)
add_executable(heat_mpi heat_mpi.c)
target_link_libraries(heat_mpi PRIVATE MPI::MPI_C OpenMP::OpenMP_C m)
EOF2
if command -v cmake > /dev/null; then
    (cd cmake && mkdir b && cd b && cmake -DCMAKE_C_COMPILER="$bin/cprof-cc" .. > ../cmake.log 2>&1 &&
         make > ../make.log 2>&1); st=$?
    check "${names[9]}: configures and builds" "status $st" "$(indent cmake/cmake.log 30)" "$(indent cmake/make.log 20)" -- \
        bash -c "[ $st = 0 ] && grep -q 'Found MPI_C' cmake/cmake.log"
    (cd cmake/b && OMP_NUM_THREADS=2 CPROF_OUT=single.out ./heat_mpi > /dev/null 2>&1)
    "$bin/cprof-report" --json cmake/b/single.out > single.json 2>&1
    expect_jq "${names[9]}: the program is profiled (update_cell 819200 calls)" single.json \
        '[(r("update_cell").c_caller | add), .job]' '[819200, null]'
else
    nok "${names[9]}" "cmake is not installed (make deps)"
fi
# mpi_pair NAME: NAME/NAME.c built by mpicc around cprof-cc, run as 2 ranks of 1 thread
# in NAME (cc.log, run.log there).
mpi_pair() {
    (cd "$1" && OMPI_CC="$bin/cprof-cc" mpicc -O2 "$1.c" -o "$1" > cc.log 2>&1 &&
        OMP_NUM_THREADS=1 mpirun --oversubscribe $( [ "$(id -u)" = 0 ] && echo --allow-run-as-root ) \
            -np 2 "./$1" > run.log 2>&1)
}
# Rank 0 computes 300 ms before the reduction, rank 1 goes straight to it: rank 1's
# wait is MPI_Allreduce's time (a leaf routine under mpicc), not step's own.
cd "$tmp" && mkdir wait && cat > wait/wait.c <<'EOF2'
#include <mpi.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

void compute(double seconds)
{
    double t0 = now();
    while (now() - t0 < seconds)
        ;
}

void step(int rank)
{
    if (rank == 0)
        compute(0.3);
    double x = rank, y;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    step(rank);
    MPI_Finalize();
    return 0;
}
EOF2
mpi_pair wait
"$bin/cprof-report" --json wait/cprof.1.out > w1.json 2> w1.err
# step's inclusive time on rank 1 is its wait; MPI_Allreduce holds at least 80% of it
# (99% here: the margin is for a loaded machine preempting rank 1 around the call).
share=$(jqv w1.json 'r("MPI_Allreduce").s_caller_t * 100 / r("step").s_caller_t | floor')
calls=$(jqv w1.json '[arc("step"; "MPI_Allreduce") | .s_callarc]')
check "${names[10]}: rank 1: MPI_Allreduce called once from step, with >= 80% of step's time (got ${share}%)" \
    "$(indent wait/cc.log)" "$(indent wait/run.log)" "$(indent w1.err)" -- \
    bash -c "[ '$calls' = '[1]' ] && [ '${share:-0}' -ge 80 ]"
# MPI_Abort (issue 29): the aborting rank's profile is written at the call, with the
# call itself in it: MPI_Abort entered once, from fail, the frames open then closed as
# at exit (main and fail, once each).
cd "$tmp" && mkdir abort && cat > abort/abort.c <<'EOF2'
#include <mpi.h>

void fail(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        fail(3);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
EOF2
mpi_pair abort
"$bin/cprof-report" --json abort/cprof.1.out > a1.json 2> a1.err
expect_jq "${names[11]}: rank 1's profile: MPI_Abort called once, from fail; fail and main once" a1.json \
    '[r("MPI_Abort").s_caller, [arc("fail"; "MPI_Abort") | .s_callarc], r("fail").s_caller, r("main").s_caller]' \
    '[1, [1], 1, 1]'
finish
