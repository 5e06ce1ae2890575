#!/usr/bin/env bash
# Where the initial thread's stack cannot grow as far as profiled frames need (a hard
# RLIMIT_STACK), the program dies of SIGSEGV as before, after one line naming the limit.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
cat > deep.c <<'EOF2'
#include <stdio.h>
long down(long n) { return n ? 1 + down(n - 1) : 0; }
int main(void) { printf("%ld\n", down(1000000)); return 0; }
EOF2
"$bin/cprof-cc" -O2 deep.c -o deep 2> cc.err || nok "cprof-cc compiles" "$(cat cc.err)"
( ulimit -Ss 8192 && ulimit -Hs 16384 && CPROF_OUT=$tmp/p.out exec ./deep ) > out 2> err
status=$?
check "killed by SIGSEGV (status 139), as an overflow always was" "status $status" -- [ "$status" -eq 139 ]
want='cprof: stack overflow in the initial thread at N MiB (RLIMIT_STACK soft 16 MiB, raised by cprof from 8 MiB, hard 16 MiB); profiled frames are larger than gcc'"'"'s: run it with a larger `ulimit -s`'
check "one line on stderr names the limit" "$(indent err)" -- [ "$(sed -E 's/ at [0-9]+ MiB/ at N MiB/' err)" = "$want" ]
check "nothing on stdout" -- [ ! -s out ]
finish
