#!/usr/bin/env bash
# Where the profile goes: cprof.out in the working directory (cprof.RANK.out in an MPI
# job), $CPROF_OUT, %p -> pid, %r -> rank, %h -> host; written whole (no temporary left
# behind); cprof_write() on request.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > pid.c <<'EOF'
#include <stdio.h>
#include <unistd.h>
int leaf(int x) { return x * 2; }
int main(void)
{
    int s = 0;
    for (int i = 0; i < 4; i++)
        s += leaf(i);
    printf("pid %ld s %d\n", (long)getpid(), s);
    return 0;
}
EOF
"$bin/cprof-cc" -fopenmp -O2 pid.c -o pidprog > cc.err 2>&1 || nok "build pid.c" "$(indent cc.err)"

# default: cprof.out in the working directory, nothing else
mkdir run1 && (cd run1 && ../pidprog > ../out1.txt)
check "no CPROF_OUT: writes cprof.out in the working directory" "files: $(ls -A run1 | tr '\n' ' ')" -- test -s run1/cprof.out
check "no CPROF_OUT: leaves no other file" "files: $(ls -A run1 | tr '\n' ' ')" -- [ "$(ls -A run1)" = cprof.out ]

# In an MPI job (the launcher's variables, docs/mpi.md) the default name carries the
# rank, so that ranks sharing a directory never overwrite each other.
mkdir run1r && (cd run1r && PMI_RANK=2 PMI_SIZE=4 ../pidprog > /dev/null)
check "no CPROF_OUT, rank 2 of a job: writes cprof.2.out, nothing else" "files: $(ls -A run1r | tr '\n' ' ')" -- \
    [ "$(ls -A run1r)" = cprof.2.out ]

# CPROF_OUT with %r (the MPI rank, -1 outside a job) and %h (the host name)
host=$(hostname)
mkdir run1h && (cd run1h && OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4 CPROF_OUT=p.%r.%h.out ../pidprog > /dev/null &&
                CPROF_OUT=q.%r.%h.%%.out ../pidprog > /dev/null)
check "CPROF_OUT=p.%r.%h.out: p.3.$host.out in a job, q.-1.$host.%.out outside one" "files: $(ls -A run1h | tr '\n' ' ')" -- \
    [ "$(ls -A run1h | sort | tr '\n' ' ')" = "p.3.$host.out q.-1.$host.%.out " ]

# CPROF_OUT with %p
mkdir run2
(cd "$tmp" && CPROF_OUT=$tmp/run2/prof.%p.out ./pidprog > out2.txt)
pid=$(awk '{print $2}' out2.txt)
check "CPROF_OUT=.../prof.%p.out: writes prof.$pid.out" "files: $(ls -A run2 | tr '\n' ' ')" -- test -s "run2/prof.$pid.out"
check "CPROF_OUT with %p: leaves no other file (written then renamed)" "files: $(ls -A run2 | tr '\n' ' ')" -- [ "$(ls -A run2)" = "prof.$pid.out" ]
check "CPROF_OUT with %p: the profile's pid field is the pid" "pid field: $(jq .pid "run2/prof.$pid.out" 2>&1)" -- [ "$(jq .pid "run2/prof.$pid.out" 2>/dev/null)" = "$pid" ]
"$bin/cprof-report" --json "run2/prof.$pid.out" > r2.json 2> r2.err
expect_jq "CPROF_OUT with %p: report reads it (leaf 4 calls)" r2.json '[r("leaf").s_caller, arc("main"; "leaf").s_callarc]' '[4, 4]'

expect_jq "report: worker 0's tid is the pid (initial thread)" r2.json '[.workers[0].tid]' "[$pid]"
np=$(nproc --all 2>/dev/null || echo 1)
expect_jq "report: worker 0's pu in [0, $np), core >= 0 or null (not known)" r2.json "[.workers[0] | (.pu >= 0 and .pu < $np), (.core == null or .core >= 0)]" '[true, true]'

# fork: parent and child each write their own profile (%p); the parent's books are its own
cat > fork.c <<'EOF2'
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
int leaf(int x) { return x + 1; }
int main(void)
{
    int s = leaf(0);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        s += leaf(1) + leaf(2);
        return 0;
    }
    waitpid(c, NULL, 0);
    for (int i = 0; i < 3; i++)
        s += leaf(i);
    printf("parent %ld child %ld s %d\n", (long)getpid(), (long)c, s);
    return 0;
}
EOF2
mkdir run6
"$bin/cprof-cc" -fopenmp -O2 fork.c -o forkprog > cc.err 2>&1 || nok "build fork.c" "$(indent cc.err)"
CPROF_OUT=$tmp/run6/f.%p.out ./forkprog > out6.txt 2>&1
ppid_=$(awk '{print $2}' out6.txt); cpid_=$(awk '{print $4}' out6.txt)
check "fork: parent and child profiles f.$ppid_.out, f.$cpid_.out, nothing else" "files: $(ls -A run6 | tr '\n' ' ')" -- [ "$(ls -A run6 | sort | tr '\n' ' ')" = "$(printf '%s\n' "f.$ppid_.out" "f.$cpid_.out" | sort | tr '\n' ' ')" ]
"$bin/cprof-report" --json "run6/f.$ppid_.out" > r6.json 2> /dev/null
expect_jq "fork: parent's profile counts its own calls (leaf 1 + 3)" r6.json '[r("leaf").s_caller, r("main").s_caller]' '[4, 1]'
"$bin/cprof-report" --json "run6/f.$cpid_.out" > r7.json 2> /dev/null; st=$?
check "fork: child's profile is readable" "status $st" -- [ $st = 0 ]

# The same program without %p (issue 29): the child writes none, and says so in one
# line; the parent's cprof.out is its own.
mkdir run6n && (cd run6n && ../forkprog > out.txt 2> err.txt)
check "fork, no %p: only the parent's cprof.out; the child says in one line that it writes none" \
    "files: $(ls -A run6n | tr '\n' ' ')" "$(indent run6n/err.txt)" -- \
    bash -c "[ \"\$(ls -A run6n | sort | tr '\n' ' ')\" = 'cprof.out err.txt out.txt ' ] &&
             [ \$(wc -l < run6n/err.txt) = 1 ] && grep -q 'forked by .* writes no profile' run6n/err.txt"
"$bin/cprof-report" --json run6n/cprof.out > r6n.json 2> /dev/null
expect_jq "fork, no %p: cprof.out is the parent's (leaf 1 + 3)" r6n.json 'r("leaf").s_caller' 4

# A program that runs another profiled one (here itself, by system()) with the same
# CPROF_OUT: the child's profile, written first during the parent's run, is not
# replaced; the parent's goes to NAME.PID, in one line.  The file found at the start
# (an earlier run's) is replaced as ever.
cat > nest.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int leaf(int x) { return x + 1; }
int main(int argc, char **argv)
{
    int s = 0, n = argc > 1 ? 2 : 7;
    for (int i = 0; i < n; i++)
        s += leaf(i);
    if (argc == 1) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "%s child", argv[0]);
        fflush(stdout);
        if (system(cmd) != 0)
            return 1;
        printf("parent %ld\n", (long)getpid());
    }
    return s < 0;
}
EOF
"$bin/cprof-cc" -O2 nest.c -o nest > cc.err 2>&1 || nok "build nest.c" "$(indent cc.err)"
mkdir run8 && (cd run8 && echo stale > cprof.out && ../nest > out.txt 2> err.txt)
ppid_=$(sed -n 's/^parent //p' run8/out.txt)
check "a profiled program running another: cprof.out (the child's), cprof.out.$ppid_ (the parent's), one line" \
    "files: $(ls -A run8 | tr '\n' ' ')" "$(indent run8/err.txt)" -- \
    bash -c "[ \"\$(ls -A run8 | sort | tr '\n' ' ')\" = 'cprof.out cprof.out.$ppid_ err.txt out.txt ' ] &&
             [ \$(wc -l < run8/err.txt) = 1 ] && grep -q 'cprof.out was written by another process.*cprof.out.$ppid_' run8/err.txt"
"$bin/cprof-report" --json run8/cprof.out > r8c.json 2> /dev/null
"$bin/cprof-report" --json "run8/cprof.out.$ppid_" > r8p.json 2> /dev/null
expect_jq "the child's profile (cprof.out): leaf's 2 calls" r8c.json 'r("leaf").s_caller' 2
expect_jq "the parent's profile (cprof.out.$ppid_): leaf's 7 calls" r8p.json 'r("leaf").s_caller' 7

# CPROF_OUT as a plain path, twice: the second run replaces the file
CPROF_OUT=$tmp/plain.out ./pidprog > /dev/null
CPROF_OUT=$tmp/plain.out ./pidprog > /dev/null
"$bin/cprof-report" --json plain.out > r3.json 2> r3.err
expect_jq "CPROF_OUT plain path, run twice: holds one run (not appended)" r3.json 'r("leaf").s_caller' '4'

# two profiles summed by cprof-report
"$bin/cprof-report" --json plain.out "run2/prof.$pid.out" > r4.json 2> r4.err
expect_jq "cprof-report FILE FILE: counts summed" r4.json '[r("leaf").s_caller, r("main").s_caller, arc("main"; "leaf").s_callarc]' '[8, 2, 8]'

# CPROF_OUT in a directory that does not exist: the program still runs normally
CPROF_OUT=$tmp/nodir/x/p.out ./pidprog > out5.txt 2> err5.txt; st=$?
check "CPROF_OUT unwritable: program exit status still 0" "status $st" -- [ $st = 0 ]
check "CPROF_OUT unwritable: program output intact" "$(indent out5.txt)" -- grep -q '^pid [0-9]* s 12$' out5.txt

# cprof_write() on request, then again at exit
cat > req.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <cprof.h>
int leaf(int x) { return x + 1; }
int main(int argc, char **argv)
{
    int s = 0;
    if (argc < 2)
        return 2;
    for (int i = 0; i < 3; i++)
        s += leaf(i);
    if (cprof_write() != 0)
        return 3;
    if (rename(getenv("CPROF_OUT"), argv[1]) != 0)
        return 4;
    for (int i = 0; i < 2; i++)
        s += leaf(i);
    printf("%d\n", s);
    return 0;
}
EOF
"$bin/cprof-cc" -fopenmp -O2 -Wall -I"$bin/../include" req.c -o req > cc.err 2>&1; st=$?
check "build a program that includes <cprof.h> and calls cprof_write()" "status $st" -- [ $st = 0 ]
check "build a program that includes <cprof.h>: no diagnostics" "$(indent cc.err)" -- test ! -s cc.err
CPROF_OUT=$tmp/req.out ./req "$tmp/mid.out" > req.txt 2>&1; st=$?
check "cprof_write(): returns 0, program exits 0" "status $st" -- [ $st = 0 ]
"$bin/cprof-report" --json mid.out > mid.json 2> /dev/null
"$bin/cprof-report" --json req.out > final.json 2> /dev/null
expect_jq "cprof_write(): profile on request holds the 3 calls so far" mid.json 'r("leaf").s_caller' '3'
expect_jq "cprof_write(): profile at exit holds all 5" final.json 'r("leaf").s_caller' '5'

# A target that is not a regular file is written to, never replaced (a rename over
# /dev/null once turned the device into a plain file).
mkfifo fifo
cat fifo > fifo.out &
reader=$!
CPROF_OUT=$tmp/fifo ./pidprog > /dev/null 2> fifo.err
wait $reader          # the whole profile read, however long a loaded machine takes
check "CPROF_OUT=FIFO: the FIFO is still a FIFO" "$(ls -l fifo)" -- test -p fifo
check "CPROF_OUT=FIFO: the whole profile came through it" "$(indent fifo.err)" -- \
    bash -c "jq -e '.format == \"cprof-profile\"' fifo.out > /dev/null"
mknod null c 1 3 2> /dev/null || cp -a /dev/null null 2> /dev/null
if [ -c null ]; then
    CPROF_OUT=$tmp/null ./pidprog > /dev/null 2> null.err
    check "CPROF_OUT=a character device (a copy of /dev/null): still that device" "$(ls -l null)" "$(indent null.err)" -- \
        bash -c "test -c null && test ! -s null.err"
else
    skip "CPROF_OUT=a character device" "cannot make a device node here"
fi

finish
