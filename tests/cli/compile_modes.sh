#!/usr/bin/env bash
# cprof-cc takes gcc's arguments: build habits seen in real Makefiles.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
mkdir inc
cat > inc/conf.h <<'EOF'
#define SCALE 3
EOF
cat > m.c <<'EOF'
#include <stdio.h>
#include "conf.h"
#ifndef N
#error N must be defined
#endif
int leaf(int x)
{
    return x * SCALE;
}
int main(void)
{
    int s = 0;
    for (int i = 0; i < N; i++)
        s += leaf(i);
    printf("%d\n", s);
    return 0;
}
EOF
cat > c89.c <<'EOF'
#include <stdio.h>
static int twice(x)
int x;
{
    return 2 * x;
}
int sum(int n)
{
    int s = 0, i;
    for (i = 0; i < n; i++)
        s += twice(i);
    return s;
}
int main()
{
    printf("%d\n", sum(4));
    return 0;
}
EOF
# Every kind of entry cprof-cc adds at a body's start, each before a declaration: C90
# forbids a statement there (-pedantic-errors), and -Wdeclaration-after-statement warns
# of one in any mode.  A timed routine, a static and an external routine counted at
# their sites (the latter's entry takes its unit's marker back); with
# -fcprof-input-size, each routine's jump to its twin.
cat > decl.c <<'EOF'
#include <stdio.h>
static int counted_static(int x)
{
    int y = x + 1;
    return y;
}
int counted_extern(int x)
{
    static int calls;
    int y = x * 2;
    calls++;
    return y + calls - calls;
}
int timed(int n)
{
    int s = 0, i;
    for (i = 0; i < n; i++)
        s += counted_static(i) + counted_extern(i);
    return s;
}
int main(void)
{
    int r = timed(4);
    printf("%d\n", r);
    return 0;
}
EOF
cat > part.inc <<'EOF'
static int inc_leaf(int x)
{
    return x + 1;
}
EOF
cat > incl.c <<'EOF'
#include <stdio.h>
#include "part.inc"
int main(void)
{
    printf("%d\n", inc_leaf(1) + inc_leaf(2));
    return 0;
}
EOF

# run_build NAME OUT CMD...: cprof-cc build must exit 0, stay silent, produce OUT
run_build() {
    local name=$1 out=$2; shift 2
    rm -f "$out"
    "$bin/cprof-cc" "$@" > cc.out 2> cc.err; local st=$?
    check "$name: exit 0, no diagnostics, $out built" "cprof-cc $* -> status $st" "$(indent cc.err)" -- test $st = 0 -a ! -s cc.err -a -s "$out"
}
# leaf_count NAME EXE WANT: run EXE with a profile, the report's leaf entries
leaf_count() {
    local name=$1 exe=$2 want=$3 routine=${4:-leaf}
    rm -f p.out
    CPROF_OUT=$tmp/p.out ./"$exe" > run.out 2>&1
    "$bin/cprof-report" --json p.out > p.json 2> /dev/null
    expect_jq "$name: $routine counted $want times" p.json "[r(\"$routine\") | .s_caller + (.c_caller | add)]" "[$want]"
}

run_build "-DN=5 -Iinc, no -o (a.out)" a.out -fopenmp -O2 -Wall -DN=5 -Iinc m.c
check "-DN=5: program output 30" "$(./a.out 2>&1)" -- [ "$(./a.out)" = 30 ]
leaf_count "-DN=5 -Iinc" a.out 5

run_build "-D N=7 (separate argument), -I inc" m7 -fopenmp -O2 -D N=7 -I inc m.c -o m7
leaf_count "-D N=7" m7 7

run_build "-MD -MP -MF m.d -c" m.o -fopenmp -O2 -DN=2 -Iinc -MD -MP -MF m.d -c m.c -o m.o
check "-MD -MP -MF: m.d names m.o, m.c and inc/conf.h" "$(indent m.d)" -- grep -q 'conf\.h' m.d
check "-MD -MP -MF: dependency target is m.o" "$(indent m.d)" -- grep -q '^m\.o:' m.d
check "-MD -MP -MF: no temporary file names in m.d" "$(indent m.d)" -- bash -c "! grep -qE '/tmp/|cprof' m.d"

# Compiling and linking at once, -MD writes the compiler's file: OUT.d for -o OUT
# (target OUT), without -o a-SOURCE.d under gcc 12, SOURCE.d under clang (target SOURCE.o).
mkdir -p ref_md cc_md
for d in ref_md cc_md; do
    cp -R m.c inc "$d"/
    compiler=$plain_cc
    [ $d = cc_md ] && compiler=$bin/cprof-cc
    (cd $d && $compiler -fopenmp -DN=2 -Iinc -MD -MP m.c -o mlink && $compiler -fopenmp -DN=2 -Iinc -MMD m.c) 2> /dev/null
done
check "-MD while linking: $plain_cc's dependency files, byte for byte" "$(cd ref_md && ls *.d)" "$(cd cc_md && ls *.d)" -- \
    bash -c '[ "$(cd ref_md && ls *.d)" = "$(cd cc_md && ls *.d)" ] && for f in ref_md/*.d; do cmp -s $f cc_md/${f#ref_md/} || exit 1; done'

"$bin/cprof-cc" -DN=2 -Iinc -MM m.c > mm.out 2> mm.err; st=$?
"$plain_cc" -DN=2 -Iinc -MM m.c > mm.ref 2>&1
check "-MM: same output as $plain_cc -MM" "status $st" "$(diff mm.ref mm.out | head -5)" -- cmp -s mm.out mm.ref

"$bin/cprof-cc" -DN=2 -Iinc -E m.c > e.out 2> e.err; st=$?
check "-E: exits 0 and preprocesses" "status $st" "$(indent e.err)" -- test $st = 0 -a -s e.out
check "-E: output has the expanded source" -- grep -q 'x \* 3' e.out

run_build "-std=c99 -Wall -Wextra -Werror" m99 -std=c99 -fopenmp -O2 -Wall -Wextra -Werror -DN=4 -Iinc m.c -o m99
leaf_count "-std=c99" m99 4

run_build "-ansi (C89 source with a K&R definition)" c89 -ansi -fopenmp -O2 c89.c -o c89
check "-ansi: program output 12" -- [ "$(./c89)" = 12 ]
leaf_count "-ansi" c89 4 twice

for mode in "-std=c89 -pedantic-errors" "-std=gnu11 -Wdeclaration-after-statement -Werror"; do
    for sized in "" -fcprof-input-size; do
        run_build "$mode $sized: every entry a declaration" decl $mode $sized -fopenmp -O2 decl.c -o decl
        check "$mode $sized: program output 22" "$(./decl 2>&1 | head -3)" -- [ "$(./decl)" = 22 ]
        leaf_count "$mode $sized" decl 4 counted_extern
    done
done

run_build "-g -O0" mg -g -O0 -fopenmp -DN=3 -Iinc m.c -o mg
leaf_count "-g -O0" mg 3

run_build "a .c-like file #included by another" incl -fopenmp -O2 -Wall incl.c -o incl
leaf_count "#included source" incl 2 inc_leaf
expect_jq "#included source: routine file is part.inc" p.json '[r("inc_leaf") | .file]' '["part.inc"]'

cp m.c 'sp ace.c'
run_build "a source file name with a space" spc -fopenmp -O2 -DN=6 -Iinc 'sp ace.c' -o spc
leaf_count "file name with a space" spc 6

finish
