#!/usr/bin/env bash
# What build tools ask a compiler, cprof-cc answers as gcc does, byte for byte;
# and the input kinds they hand it are compiled as gcc would.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
cc=$bin/cprof-cc

# same NAME ARGS...: stdout, stderr and status of cprof-cc ARGS equal the compiler's (its
# temporary file names aside: gcc's /tmp/ccXXXXXX.s, clang's /tmp/NAME-XXXXXX.o); each
# reads its own copy of standard input.
same() {
    local name=$1; shift
    cat > stdin.copy
    "$plain_cc" "$@" < stdin.copy > g.out 2> g.err; local gs=$?
    "$cc" "$@" < stdin.copy > c.out 2> c.err; local cs=$?
    sed -i 's|/tmp/cc[A-Za-z0-9]*\.|/tmp/ccX.|g; s|\(/tmp/[^"/ ]*\)-[0-9a-f]\{6\}\.|\1-X.|g' \
        g.out g.err c.out c.err
    if [ $gs = $cs ] && cmp -s g.out c.out && cmp -s g.err c.err; then ok "$name: same answer as $plain_cc"
    else nok "$name: same answer as $plain_cc" "status $plain_cc $gs, cprof-cc $cs" "$(diff g.out c.out | head -4)" "$(diff g.err c.err | head -4)"; fi
}
same "--version" --version < /dev/null
same "-dumpversion" -dumpversion < /dev/null
same "-dumpfullversion" -dumpfullversion < /dev/null
same "-dumpmachine" -dumpmachine < /dev/null
same "-print-search-dirs" -print-search-dirs < /dev/null
same "-print-file-name=include" -print-file-name=include < /dev/null
same "-print-prog-name=cc1" -print-prog-name=cc1 < /dev/null
same "-print-libgcc-file-name" -print-libgcc-file-name < /dev/null
same "-print-multiarch" -print-multiarch < /dev/null
same "-print-multi-directory" -print-multi-directory < /dev/null
same "-v (no input)" -v < /dev/null
same "-fopenmp -v (no input)" -fopenmp -v < /dev/null

printf '#include <stdio.h>\n#define TWICE(x) (2 * (x))\nint main(void) { printf("%%d\\n", TWICE(21)); return 0; }\n' > p.c
same "-E p.c" -E p.c < /dev/null
same "-E -o - p.c" -E -o - p.c < /dev/null
same "-M p.c" -M p.c < /dev/null
same "-MM p.c" -MM p.c < /dev/null
same "-fsyntax-only p.c" -fsyntax-only p.c < /dev/null
same "-### p.c (dry run)" -### p.c -o never < /dev/null
check "-### compiles nothing" -- test ! -e never
same "-E -x c - (stdin)" -E -x c - < p.c

# Compiled inputs: the program runs as gcc's and writes a profile.
runs() {
    local name=$1 exe=$2 want=$3
    local got; got=$(CPROF_OUT=$exe.prof ./"$exe" 2>&1)
    check "$name: runs as $plain_cc's ($want)" "$got" -- [ "$got" = "$want" ]
    check "$name: profile written" -- test -s "$exe.prof"
}
"$cc" -x c - -o stdin_prog < p.c 2> e; check "-x c - -o prog: silent" "$(indent e)" -- test ! -s e
runs "-x c - (stdin)" stdin_prog 42
"$bin/cprof-report" --json stdin_prog.prof > stdin.json
expect_jq "-x c -: main's file is <stdin>" stdin.json '[.routines[] | [.name, .file]]' '[["main","<stdin>"]]'
(printf 'int main(void){return 0;}\n' | "$cc" -x c -c - ) 2> e
check "-x c -c -: writes -.o as $plain_cc does" "$(indent e)" -- test -s ./-.o

printf 'p.c -O2 "-DNAME=\\"r s\\"" @inner -o rsp_prog\n' > args.rsp; echo '-Wall' > inner
sed 's/TWICE(21)/TWICE(21) + (int)sizeof(NAME)/' p.c > q.c; sed -i 's/^p.c/q.c/' args.rsp
"$cc" @args.rsp 2> e; check "@args.rsp (quotes, escapes, nested @file): builds silently" "$(indent e)" -- test ! -s e
runs "@args.rsp" rsp_prog 46

"$cc" -S p.c -o - > p.s 2> e; check "-S -o -: assembly on stdout" "$(indent e)" -- grep -q cprof_facade p.s

printf '\t.globl asm_one\nasm_one:\n\tmovl $1, %%eax\n\tret\n\t.section .note.GNU-stack,"",@progbits\n' > one.s
printf 'int asm_one(void);\nint obj_two(void);\n#include <stdio.h>\nint main(void){ printf("%%d\\n", asm_one() + obj_two()); return 0; }\n' > m.c
printf 'int obj_two(void) { return 2; }\n' > two.c && "$plain_cc" -c two.c -o two.o
"$cc" -O2 m.c one.s two.o -Wl,--as-needed -o mixed 2> e; check "C + assembly + object inputs, -Wl,...: builds silently" "$(indent e)" -- test ! -s e
runs "C + assembly + object" mixed 3
"$cc" -c m.c one.s 2> e; check "-c m.c one.s: both compiled" "$(indent e)" -- test -s m.o -a -s one.o

printf 'int twice(int x) { return 2 * x; }\n' > lto1.c
printf '#include <stdio.h>\nint twice(int);\nint main(void) { printf("%%d\\n", twice(21)); return 0; }\n' > lto2.c
"$cc" -O2 -flto -c lto1.c -o lto1.o 2> e && "$cc" -O2 -flto lto2.c lto1.o -o lto 2>> e
check "-flto (compile and link): builds silently" "$(indent e)" -- test ! -s e
runs "-flto" lto 42
"$bin/cprof-report" --json lto.prof > lto.json
expect_jq "-flto: the call across units is profiled" lto.json '[.arcs[] | [.caller, .callee, .s_callarc]]' \
    '[["<external>","main",1],["main","twice",1]]'

printf '#include <cstdio>\nextern "C" int cfun(void);\nint main(){ std::printf("%%d\\n", cfun()); return 0; }\n' > x.cpp
printf 'int cfun(void) { return 7; }\n' > c.c
"$cc" -O2 x.cpp c.c -o cxx 2> e
check "C++ input: one warning naming x.cpp" "$(indent e)" -- \
    test "$(cat e)" = "cprof-cc: x.cpp: warning: C++ is not profiled; compiled without profiling"
runs "C++ + C program" cxx 7
"$bin/cprof-report" --json cxx.prof > cxx.json
expect_jq "C++ + C: the C routine is profiled, entered from C++" cxx.json '[.arcs[] | [.caller, .callee]]' '[["<external>","cfun"]]'
finish
