#!/usr/bin/env bash
# cprof-cc on sources gcc rejects (or warns about): same status as gcc, diagnostics that
# point at the user's file and line, no output file.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

cat > bad.c <<'EOF'
#include <stdio.h>

int main(void)
{
    int y = 3 +;
    return y;
}
EOF
cat > badomp.c <<'EOF'
#include <stdio.h>
int g(int x) { return x; }
void f(int n, int *a)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        a[i] = g(i) + g(i + 1);
        a[i] += g(i) * ;
    }
}
int main(void) { int a[4]; f(4, a); return a[0]; }
EOF
cat > good.c <<'EOF'
int helper(int x) { return x + 1; }
EOF
cat > warn.c <<'EOF'
#include <stdio.h>
int main(void)
{
    int unused_var;
    printf("%d\n", 1);
    return 0;
}
EOF

# locs FILE: the distinct "name.c:LINE" locations gcc-style diagnostics mention
locs() { grep -oE '[A-Za-z0-9_./-]+\.[ci]:[0-9]+' "$1" | sort -u | tr '\n' ' '; }

# error_case NAME WANTLOC OUT ARGS...: compile with gcc and cprof-cc, compare
error_case() {
    local name=$1 want=$2 out=$3; shift 3
    rm -f "$out"
    "$plain_cc" "$@" > gcc.out 2> gcc.err; local gs=$?
    if [ $gs = 0 ] || ! grep -q "$want:" gcc.err; then
        nok "$name: $plain_cc rejects it at $want (sanity)" "$plain_cc status $gs"; indent gcc.err; return
    fi
    rm -f "$out"
    "$bin/cprof-cc" "$@" > cc.out 2> cc.err; local cs=$?
    check "$name: exit status equals $plain_cc's ($gs)" "cprof-cc exited $cs" -- [ "$cs" = "$gs" ]
    check "$name: stderr mentions $want" "cprof-cc's stderr:" "$(indent cc.err 8)" -- grep -q "$want:" cc.err
    local other
    other=$(locs cc.err | tr ' ' '\n' | grep -v '^$' | grep -vE "^($(echo "$@" | tr ' ' '\n' | grep '\.c$' | sed 's/\./\\./g' | paste -sd'|')):" | tr '\n' ' ')
    check "$name: diagnostics name only the user's files" "other locations: $other" "$(indent cc.err 8)" -- [ -z "$other" ]
    check "$name: no output file $out" "$out exists" -- [ ! -e "$out" ]
}

error_case "syntax error" "bad.c:5" app -fopenmp -O2 bad.c -o app
error_case "syntax error, -c" "bad.c:5" bad.o -fopenmp -O2 -c bad.c
error_case "syntax error in a parallel loop" "badomp.c:8" app -fopenmp -O2 badomp.c -o app
error_case "syntax error in the second of two files" "bad.c:5" app -fopenmp -O2 good.c bad.c -o app

# a missing source file
"$plain_cc" -fopenmp missing.c -o app > gcc.out 2> gcc.err; gs=$?
"$bin/cprof-cc" -fopenmp missing.c -o app > cc.out 2> cc.err; cs=$?
check "missing source: exit status equals $plain_cc's ($gs)" "cprof-cc exited $cs" -- [ "$cs" = "$gs" ]
check "missing source: stderr mentions missing.c" "$(indent cc.err)" -- grep -q 'missing\.c' cc.err
check "missing source: no output file" -- [ ! -e app ]

# a warning keeps its location and does not stop the build
"$plain_cc" -fopenmp -Wall warn.c -o ref > gcc.out 2> gcc.err; gs=$?
if [ $gs != 0 ] || ! grep -q 'warn\.c:4:' gcc.err; then nok "warning: $plain_cc warns at warn.c:4 (sanity)"; fi
"$bin/cprof-cc" -fopenmp -Wall warn.c -o app > cc.out 2> cc.err; cs=$?
check "warning: exit status 0" "cprof-cc exited $cs" "$(indent cc.err)" -- [ "$cs" = 0 ]
check "warning: stderr mentions warn.c:4 (unused variable)" "$(indent cc.err)" -- grep -q 'warn\.c:4:.*unused_var' cc.err
check "warning: executable built" -- [ -x app ]

finish
