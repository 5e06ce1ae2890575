#!/usr/bin/env bash
# Separate compilation and linking, sources in a subdirectory, a unit compiled without
# -fopenmp, and a whole program compiled without -fopenmp.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
mkdir src

cat > a.c <<'EOF'
#include <stdio.h>
int b_leaf(int x);
int main(void)
{
    long s = 0;
#pragma omp parallel for schedule(static) reduction(+:s)
    for (int i = 0; i < 10; i++)
        s += b_leaf(i);
    printf("s=%ld\n", s);
    return 0;
}
EOF
cat > src/b.c <<'EOF'
int c_leaf(int x)
{
    return x + 1;
}

int b_leaf(int x)
{
    int s = 0;
#pragma omp parallel for reduction(+:s)
    for (int j = 0; j < 3; j++)
        s += c_leaf(x + j);
    return s;
}
EOF

# build NAME CMD...: run a build command, one check
build() {
    local name=$1; shift
    "$@" > build.out 2>&1; local st=$?
    check "$name" "$* -> status $st" "$(indent build.out)" -- [ $st = 0 ]
}
# profile NAME EXE: run EXE (and its gcc twin ref-EXE), compare stdout, report the profile
profile() {
    local name=$1 exe=$2
    rm -f "$exe.prof" "$exe.json"
    CPROF_OUT=$tmp/$exe.prof ./"$exe" > "$exe.stdout" 2>&1; local st=$?
    ./"ref-$exe" > "ref-$exe.stdout" 2>&1
    check "$name: runs, output equals $plain_cc's" "status $st" "$(diff "ref-$exe.stdout" "$exe.stdout" | head -5)" -- cmp -s "$exe.stdout" "ref-$exe.stdout"
    "$bin/cprof-report" --json "$exe.prof" > "$exe.json" 2> report.err
    check "$name: profile written and read" "$(indent report.err)" -- has_routines "$exe.json"
}

# 1. -c each unit with -fopenmp, then link
build "cprof-cc -fopenmp -c a.c" "$bin/cprof-cc" -fopenmp -O2 -c a.c
build "cprof-cc -fopenmp -c src/b.c -o b.o" "$bin/cprof-cc" -fopenmp -O2 -c src/b.c -o b.o
check "a.o and b.o exist" -- test -s a.o -a -s b.o
build "cprof-cc -fopenmp a.o b.o -o app" "$bin/cprof-cc" -fopenmp a.o b.o -o app
"$plain_cc" -fopenmp -O2 a.c src/b.c -o ref-app
profile "separate compilation" app
# OMP_NUM_THREADS=2, static: b_leaf 5 calls per worker (S-C from main); b_leaf's own
# region is nested and inactive (max-active-levels 1): its 3 calls to c_leaf are C-S.
expect_jq "separate: files as named on the command line" app.json '[.routines[] | [.name, .file]] | sort' '[["b_leaf","src/b.c"],["c_leaf","src/b.c"],["main","a.c"]]'
expect_jq "separate: b_leaf c_caller [5,5], cs_callee [15,15]" app.json 'r("b_leaf") | [.s_caller, .c_caller, .cs_callee, .cc_callee]' '[0, [5,5], [15,15], [0,0]]'
expect_jq "separate: c_leaf c_caller [15,15]" app.json 'r("c_leaf") | [.s_caller, .c_caller]' '[0, [15,15]]'
expect_jq "separate: arcs main->b_leaf (c 10), b_leaf->c_leaf (c 30)" app.json '[arc("main";"b_leaf"), arc("b_leaf";"c_leaf") | [.caller_file, .callee_file, .s_callarc, .c_callarc]]' '[["a.c","src/b.c",0,10],["src/b.c","src/b.c",0,30]]'
expect_jq "separate: site main->b_leaf at a.c:8" app.json '[arc("main";"b_leaf").sites[] | [.file, .line]]' '[["a.c", 8]]'

# 2. b.c compiled without -fopenmp (its pragma ignored), linked with -fopenmp
build "cprof-cc -c src/b.c (no -fopenmp)" "$bin/cprof-cc" -O2 -c src/b.c -o b-noomp.o
build "cprof-cc -fopenmp a.o b-noomp.o -o mixed" "$bin/cprof-cc" -fopenmp a.o b-noomp.o -o mixed
"$plain_cc" -O2 -c src/b.c -o ref-b.o && "$plain_cc" -fopenmp -O2 a.c ref-b.o -o ref-mixed
profile "mixed -fopenmp" mixed
expect_jq "mixed: b_leaf concurrent entries, C-S calls" mixed.json 'r("b_leaf") | [.s_caller, .c_caller, .cs_callee, .cc_callee]' '[0, [5,5], [15,15], [0,0]]'
expect_jq "mixed: c_leaf c_caller [15,15]" mixed.json 'r("c_leaf") | [.s_caller, .c_caller]' '[0, [15,15]]'

# 3. no -fopenmp at all: still profiled, everything sequential, one worker
build "cprof-cc a.c src/b.c -o seq (no -fopenmp)" "$bin/cprof-cc" -O2 a.c src/b.c -o seq
"$plain_cc" -O2 a.c src/b.c -o ref-seq
profile "no -fopenmp" seq
expect_jq "no -fopenmp: one worker" seq.json '.workers | length' '1'
expect_jq "no -fopenmp: b_leaf s_caller 10, s_callee 30" seq.json 'r("b_leaf") | [.s_caller, .c_caller, .s_callee, .cs_callee]' '[10, [0], 30, [0]]'
expect_jq "no -fopenmp: main s_callee 10, c_callee [0]" seq.json 'r("main") | [.s_caller, .s_callee, .c_callee]' '[1, 10, [0]]'
expect_jq "no -fopenmp: c_leaf s_caller 30" seq.json 'r("c_leaf") | [.s_caller, .c_caller]' '[30, [0]]'

# 4. a small routine of external linkage, counted (docs/cprof-cc.md), called from a unit
# plain gcc compiled: each call counted at its entry, from <external>, not timed.
cat > plain_main.c <<'EOF'
#include <stdio.h>
int tiny(int x);
int main(void)
{
    int s = 0;
    for (int i = 0; i < 7; i++)
        s += tiny(i);
    printf("%d\n", s);
    return 0;
}
EOF
echo 'int tiny(int x) { return x + 1; }' > tiny.c
build "cprof-cc -c tiny.c" "$bin/cprof-cc" -O2 -c tiny.c -o tiny.o
build "$plain_cc -c plain_main.c" "$plain_cc" -O2 -c plain_main.c -o plain_main.o
build "cprof-cc links the plain unit with tiny.o" "$bin/cprof-cc" plain_main.o tiny.o -o outside
"$plain_cc" -O2 plain_main.c tiny.c -o ref-outside
profile "counted from outside" outside
expect_jq "counted from outside: tiny counted, its 7 calls from <external>" outside.json \
    '[r("tiny") | .counted, .s_caller] + callers("tiny")' '[true, 7, "<external>"]'

finish
