#!/usr/bin/env bash
# The rewrite server (preprocessor/server.h): started on demand, shared by compiles,
# detached from the build's pipes, replaced when dead, gone when idle, never trusted
# in a directory others may write, and never the reason a compile fails or hangs.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
# Servers idle for 15 minutes: longer than any timeout below, so that a server holding
# a build's pipe shows as that timeout, however long a loaded machine takes.
export XDG_RUNTIME_DIR=$tmp/run CPROF_SERVER_IDLE=900
mkdir -m 700 run
rewriter=$(cd "$bin/../libexec/cprof" && pwd)/cprof-rewrite
# The servers (not their workers, which are their children).
servers() {
    local all; all=$(pgrep -d, -f "^$rewriter --server $tmp/run/cprof/")
    [ -n "$all" ] && ps -o pid=,ppid= -p "$all" | awk -v all=",$all," 'index(all, "," $2 ",") == 0 { print $1 }' | sort
}
workers() { pgrep -P "$1" -f "^$rewriter --server" | sort; }
# until SECONDS COMMAND...: COMMAND, polled every 0.1 s until it succeeds or SECONDS
# pass (a process's end, which a loaded machine may take long to finish).
until_ok() {
    local end=$((SECONDS + $1)); shift
    until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.1; done
}
none_left() { [ -z "$(pgrep -f "^$rewriter --server $tmp/run/cprof/")" ]; }
stop_servers() { pkill -KILL -f "^$rewriter --server $tmp/run/cprof/"; until_ok 120 none_left; }
trap 'stop_servers; rm -rf "$tmp"' EXIT

cat > unit.c <<'EOF2'
#include <stdio.h>
static int sq(int x) { return x * x; }
int work(int n)
{
    int s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += sq(i);
    return s;
}
EOF2
cat > main.c <<'EOF2'
#include <stdio.h>
int work(int n);
int main(void) { printf("%d\n", work(10)); return 0; }
EOF2
CPROF_SERVER=0 "$bin/cprof-cc" -fopenmp -O2 -c unit.c -o direct.o 2> direct.err
check "CPROF_SERVER=0: compiles, starts no server" "$(indent direct.err)" -- \
    test -s direct.o -a ! -s direct.err -a -z "$(servers)" -a ! -e run/cprof

# The first compile starts the server, and returns although the server lives on
# (its stdout and stderr are not the build's: cat ends when cprof-cc does).
timeout 300 bash -c "'$bin/cprof-cc' -fopenmp -O2 -c unit.c -o first.o 2>&1 | cat > first.err"; st=$?
check "first compile: through a pipe, ends with cprof-cc (status $st)" "$(indent first.err)" -- \
    test $st = 0 -a ! -s first.err
first=$(servers)
check "first compile: one server, its socket in \$XDG_RUNTIME_DIR/cprof" "servers: $first" "$(ls -l run/cprof 2>&1)" -- \
    test "$(echo "$first" | grep -c .)" = 1 -a -S "$(ls run/cprof/rewrite-* | grep -v lock | head -1)"
check "the server's object is the direct rewriter's, byte for byte" -- cmp -s direct.o first.o

# Concurrent compiles share it.
for i in 1 2 3 4 5 6; do
    "$bin/cprof-cc" -fopenmp -O2 -c unit.c -o par$i.o 2> par$i.err &
done
wait
same=0
for i in 1 2 3 4 5 6; do cmp -s direct.o par$i.o && [ ! -s par$i.err ] && same=$((same + 1)); done
check "six compiles at once: six identical objects, no diagnostics ($same)" -- test $same = 6
check "six compiles at once: still the one server" "before: $first" "after: $(servers)" -- \
    test "$(servers)" = "$first"
"$bin/cprof-cc" -fopenmp -O2 main.c unit.c -o prog 2> link.err && CPROF_OUT=prof.out ./prog > prog.out
check "a program built through the server runs as $plain_cc's would" "$(indent link.err)" -- \
    test "$(cat prog.out)" = 285
"$bin/cprof-report" --json prof.out > prof.json 2> /dev/null
expect_jq "through the server: sq called 10 times, concurrently" prof.json \
    '[(r("sq") | .c_caller | add), (r("work") | .s_caller)]' '[10, 1]'

# No server without starting one from scratch at once: none when several start together.
stop_servers
for i in 1 2 3 4; do
    "$bin/cprof-cc" -fopenmp -O2 -c unit.c -o race$i.o 2> race$i.err &
done
wait
same=0
for i in 1 2 3 4; do cmp -s direct.o race$i.o && [ ! -s race$i.err ] && same=$((same + 1)); done
check "four compiles racing to start a server: four identical objects ($same)" -- test $same = 4
check "four compiles racing to start a server: one server wins" "servers: $(servers | tr '\n' ' ')" -- \
    test "$(servers | grep -c .)" = 1

# Workers end with their server; a server killed outright leaves its socket file, and
# the next compile replaces it.
old=$(servers)
check "the server has a pool of workers ($(workers $old | grep -c .))" -- test "$(workers $old | grep -c .)" -ge 2
kill -KILL $old
until_ok 120 none_left
check "a server killed outright: its workers end too" "left: $(pgrep -f "^$rewriter --server" | tr '\n' ' ')" -- \
    none_left
"$bin/cprof-cc" -fopenmp -O2 -c unit.c -o stale.o 2> stale.err
new=$(servers)
check "a dead server's socket: compiles, a new server serves ($old -> $new)" "$(indent stale.err)" -- \
    test -n "$new" -a "$new" != "$old" -a ! -s stale.err
check "a dead server's socket: same object" -- cmp -s direct.o stale.o

# A stopped server accepts connections but never answers: the compile waits a bounded
# time (10 s), then rewrites by itself; it does not wait for the server, which stays
# stopped past the timeout (the compile's own time depends on the machine's load).
stopped="$new $(workers $new)"
kill -STOP $stopped
start=$SECONDS
timeout 300 "$bin/cprof-cc" -fopenmp -O2 -c unit.c -o stopped.o 2> stopped.err; st=$?
took=$((SECONDS - start))
kill -CONT $stopped
check "a stopped server: the compile still succeeds, in ${took}s (status $st)" "$(indent stopped.err)" -- \
    test $st = 0 -a ! -s stopped.err
check "a stopped server: same object" -- cmp -s direct.o stopped.o

# Idle: the server quits and removes its socket.
stop_servers
rm -rf run/cprof
CPROF_SERVER_IDLE=1 "$bin/cprof-cc" -fopenmp -O2 -c unit.c -o idle.o 2> idle.err
had=$(servers)
gone() { [ -z "$(servers)" ] && [ -z "$(ls run/cprof)" ]; }
until_ok 120 gone
check "CPROF_SERVER_IDLE=1: the server quits after a second idle, socket removed" \
    "before: $had, after: $(servers)" "$(ls run/cprof 2>&1)" -- \
    eval '[ -n "$had" ] && gone'

# A socket directory others may write is not trusted: no server, the compile works.
rm -rf run/cprof
mkdir -m 777 run/cprof
"$bin/cprof-cc" -fopenmp -O2 -c unit.c -o open.o 2> open.err; st=$?
check "a socket directory others may write: no server, compiles all the same" "$(indent open.err)" -- \
    test $st = 0 -a -z "$(servers)" -a -z "$(ls run/cprof)"
check "a socket directory others may write: same object" -- cmp -s direct.o open.o

# Diagnostics still reach the user through the server, and a failed compile fails.
rm -rf run/cprof
printf 'int f(void) { return undeclared; }\n' > bad.c
"$bin/cprof-cc" -c bad.c -o bad.o 2> bad.err; st=$?
"$plain_cc" -c bad.c -o gbad.o 2> gbad.err; gst=$?
check "through the server: a bad unit fails as with $plain_cc (status $st, gcc $gst)" "$(indent bad.err)" -- \
    test $st = $gst -a $st != 0 -a -n "$(servers)"
check "through the server: $plain_cc's diagnostics, unchanged" "$(indent bad.err)" -- cmp -s gbad.err bad.err
cat > inl.c <<'EOF2'
inline int sq(int x) { return x * x; }
extern int sq(int x);
int use(int x) { return sq(x) + 1; }
EOF2
"$bin/cprof-cc" -O2 -c inl.c -o inl.o 2> inl.err
check "through the server: the rewriter's warnings reach the user" "$(indent inl.err)" -- \
    grep -q "^cprof-cc: inl\.c:1: warning: inline function 'sq' with external linkage is not profiled$" inl.err
finish
