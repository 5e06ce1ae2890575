#!/usr/bin/env bash
# With -g, debug information points at the user's source: gdb's info line,
# break FILE:LINE and backtraces show the original lines, not the rewrite.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
if ! command -v gdb > /dev/null; then nok "gdb is installed" "apt-get install gdb"; finish; exit; fi
cat > dbg.c <<'EOF2'
#include <stdio.h>

static int leaf(int x)
{
    return x * 2;
}

static int work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += leaf(i);
    return s;
}

int main(void)
{
    printf("%d\n", work(3));
    return 0;
}
EOF2
"$bin/cprof-cc" -g -O0 dbg.c -o dbg 2> e
check "cprof-cc -g -O0 builds silently" "$(indent e)" -- test ! -s e
CPROF_OUT=/dev/null gdb -batch -nx -ex 'info line leaf' -ex 'info line work' -ex 'break dbg.c:5' \
    -ex run -ex bt -ex 'info source' ./dbg > gdb.out 2>&1
"$plain_cc" -g -O0 dbg.c -o ref
gdb -batch -nx -ex 'info line leaf' -ex 'info line work' ./ref 2>&1 | grep -o '^Line [0-9]* of "[^"]*"' > ref.lines
grep -o '^Line [0-9]* of "[^"]*"' gdb.out > dbg.lines
check "info line leaf, work: the lines $plain_cc's build gives ($(echo $(cat ref.lines)))" "$(indent dbg.lines)" -- \
    bash -c 'test -s ref.lines && cmp -s ref.lines dbg.lines'
check "break dbg.c:5 is hit in leaf" "$(indent gdb.out 20)" -- grep -qE 'Breakpoint 1, leaf \(x=0\) at dbg.c:5' gdb.out
check "backtrace: leaf at dbg.c:5, work at dbg.c:12, main at dbg.c:18" "$(indent gdb.out 20)" -- \
    bash -c "grep -qE '#0 +leaf .* at dbg.c:5' gdb.out && grep -qE '#1 .*work .* at dbg.c:12' gdb.out && grep -qE '#2 .*main .* at dbg.c:18' gdb.out"
check "the current source file is dbg.c, not a temporary file" "$(indent gdb.out 20)" -- \
    bash -c "grep -q 'Current source file is dbg.c' gdb.out && ! grep -q cprof-cc gdb.out"
finish
