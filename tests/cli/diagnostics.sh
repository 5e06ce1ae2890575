#!/usr/bin/env bash
# A profiled build gives the compiler's diagnostics (gcc's, or clang's in the clang pass): the same warnings and errors on the same
# lines, and under -Werror the same exit status (no unit falls back), on the examples,
# on every case of tests/cases, and on programs made for what the rewriter could
# change: fall-through comments at every -Wimplicit-fallthrough level (gcc -E drops
# comments), #pragma GCC diagnostic, __attribute__((fallthrough)), -Wno-*, system
# headers, warn_unused_result calls, setjmp under -Wc++-compat, implicitly declared
# functions (clang scopes their declarations to blocks), the instrumented twins
# of -fcprof-input-size.  Compared without the column (gcc -E's text has other spacing
# than the source, and the rewriter inserts text in lines), the source excerpt under
# each message, which follows it, and gcc's notes "in definition of macro" and "in
# expansion of macro", which a compile of preprocessed text cannot give (no macro is
# left in it: docs/cprof-cc.md, "Diagnostics").
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

# norm FILE: the messages, each file:line: kind: text (without the column), and gcc's
# other lines but the excerpts.  Clang's excerpts are the source line as it is, then
# the caret's and fix-its' lines: of clang's output only its messages, "In file
# included from" and the count of them are kept; clang's "expanded from macro" is its
# "in expansion of macro", and the "./" before a header found beside the source
# cprof-cc leaves out by design (docs/cprof-cc.md, "Clang": "Headers' names").
norm() {
    if [ "$plain_cc" = clang ]; then
        grep -E '^(In file included from |[^ ].*: (warning|error|note|fatal error): |[0-9]+ (warning|error)s? (and [0-9]+ errors? )?generated\.)' "$1"
    else
        cat "$1"
    fi | grep -v '^ \{1,\}\([0-9]\{1,\} \)\{0,1\}|' | grep -v '^ *\^' |
        grep -v ': note: \(in \(definition\|expansion\) of\|expanded from\) macro ' |
        sed -E -e 's/^([^: ]+):([0-9]+):[0-9]+: /\1:\2: /' -e 's|^\./||'
}
# compare DIR FLAGS... -- FILES: gcc and cprof-cc compile each of FILES (-c) in DIR with
# FLAGS (cprof-cc with the variables in cc_env too); a unit with another status or
# other messages goes to diffs.
diffs=() units=0 cc_env=()
compare() {
    local dir=$1 f st_g st_c; shift
    local -a flags=()
    while [ "$1" != -- ]; do flags+=("$1"); shift; done; shift
    for f in "$@"; do
        (cd "$dir" && "$plain_cc" "${flags[@]}" -c "$f" -o /dev/null) > g.err 2>&1; st_g=$?
        (cd "$dir" && env "${cc_env[@]}" "$bin/cprof-cc" "${flags[@]}" -c "$f" -o "$tmp/c.o") > c.err 2>&1; st_c=$?
        units=$((units + 1))
        if [ $st_g != $st_c ] || ! cmp -s <(norm g.err) <(norm c.err); then
            diffs+=("$dir$f ${flags[*]} (gcc $st_g, cprof-cc $st_c):" "$(diff <(norm g.err) <(norm c.err) | head -4)")
        fi
    done
}
# verdict NAME: one check over the units compared since the last one.
verdict() {
    check "$1: $plain_cc's diagnostics and status ($units units)" "${diffs[@]:0:8}" -- [ ${#diffs[@]} = 0 ]
    diffs=() units=0
}

# ---- the examples and the cases ----
for pass in "-Wall -Wextra" "-Wall -Wextra -Werror" "-Wall -Wextra -Wc++-compat"; do
    read -r -a w <<< "$pass"
    for d in "$root"/examples/*/; do
        [ "$(basename "$d")" = heat_mpi ] && continue     # MPI: tests/cli/mpi.sh
        compare "$d" -fopenmp -O2 "${w[@]}" -- "$(cd "$d" && ls *.c)"
    done
    verdict "examples, $pass"
    for d in "$root"/tests/cases/*/; do
        cf=()
        [ -f "$d/cflags" ] && read -r -a cf < <(grep -v '^#' "$d/cflags" | tr '\n' ' ')
        [ ${#cf[@]} = 0 ] && cf=(-fopenmp -O2 -Wall)
        mapfile -t us < <(cd "$d" && ls *.c)
        compare "$d" "${cf[@]}" "${w[@]}" -idirafter "$root/runtime" -- "${us[@]}"
    done
    verdict "tests/cases, $pass"
done

# ---- programs made for it ----
mkdir -p d sys
cat > d/fall.h <<'EOF2'
/* A header of the program's own: its comments count too. */
static inline int in_header(int k, int (*f)(int))
{
    switch (k) {
    case 0: k = f(k);
        /* FALLTHROUGH */
    case 1: return f(k);
    case 2: k = f(k);
    default: return k;
    }
}
EOF2
cat > d/fall.c <<'EOF2'
/* Fall-through comments in their forms, before calls the rewriter instruments: counted
 * (small, static), timed, of another unit.  gcc reads the comment right before a label
 * (no directive between), and its level decides which texts say "meant". */
#include "fall.h"
#define K20 20
#define K21 21
int ext(int);
static int cnt(int x) { return x + 1; }
static int timed(int x) { int s = 0; for (int i = 0; i < x; i++) s += ext(i); return s; }
int fall(int k)
{
    int r = 0;
    switch (k) {
    case 1: r += cnt(k);
        /* FALLTHROUGH */
    case 2: r += timed(k);
        // fall through
    case 3: r += ext(k);
        /* FALLTHRU */
    case 4: r += cnt(k);
        /* fall-thru. */
    case 5: r += cnt(k);
        /* -fallthrough */
    case 6: r += cnt(k); /* Falls through. */
    case 7: r += cnt(k);
        /* Fall
           through */
    case 8: r += timed(k);
        /* FALLTHROUGH */
#pragma GCC diagnostic push
    case 9: r += timed(k);
#pragma GCC diagnostic pop
        // fall through
    case 10: r += ext(k); /* fallthrough */ case 11: r += ext(k);
        /* Some other comment.  */
    case 12: r += cnt(k);
        /* fallthrough */
        /* and another one */
    case 13: {
        if (timed(k))
            break;
    }   /* FALLTHROUGH */
    case K20: case K21: r += ext(k);
        // fall through
    default: r += cnt(k);
        /* fallthrough */
        { r++; }
    lab:
        r += ext(k);
        break;
    }
    if (r == 12345)
        goto lab;
    return r + in_header(k, ext);
}
EOF2
cat > d/pragmas.c <<'EOF2'
/* #pragma GCC diagnostic around instrumented code, and as _Pragma in a macro. */
int ext(int);
static int cnt(int x) { return x + 1; }
#define QUIET(stmt) _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wunused-variable\"") stmt _Pragma("GCC diagnostic pop")
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
int f(int a, int b) { int u; return cnt(a) + ext(1); }
#pragma GCC diagnostic pop
int g(int a, int b) { int u; return cnt(a) + ext(2); }
#pragma GCC diagnostic warning "-Wsign-compare"
int h(unsigned a, int b) { QUIET(int v;) return a < b ? cnt(b) : ext(b); }
EOF2
cat > d/attr.c <<'EOF2'
/* __attribute__((fallthrough)), and cases that end in calls that do not return. */
#include <stdlib.h>
int ext(int);
__attribute__((noreturn)) void die(int k);
static int cnt(int x) { return x + 1; }
int attr(int k)
{
    int r = 0;
    switch (k) {
    case 1: r += cnt(k); __attribute__((fallthrough));
    case 2: r += ext(k);
        __attribute__((fallthrough));
    case 3: die(k);
    case 4: exit(cnt(k));
    case 5: r += ext(k);
    case 6: return r;
    }
    return 0;
}
EOF2
cat > d/unused.c <<'EOF2'
/* Calls whose value is discarded, of functions that warn about it: as statements, as an
 * if's, a loop's body, cast to void, and used (no warning). */
#include <stdio.h>
__attribute__((warn_unused_result)) int ext(int);
__attribute__((warn_unused_result)) static int cnt(int x) { return x + 1; }
__attribute__((warn_unused_result)) static int timed(int x) { int s = 0; for (int i = 0; i < x; i++) s += i; return s; }
int unused(int k, FILE *f)
{
    char buf[4];
    ext(k);
    cnt(k);
    timed(k);
    if (k) cnt(k); else ext(k);
    while (k-- > 3) timed(k);
    do ext(k); while (0);
    (void)cnt(k);
    fread(buf, 1, 4, f);
    return cnt(k) + timed(ext(k));
}
EOF2
cat > d/jmp.c <<'EOF2'
/* setjmp and longjmp, whose buffers the rewriter hands to the runtime. */
#include <setjmp.h>
int ext(int);
static jmp_buf env;
static sigjmp_buf senv;
int jump(int k)
{
    jmp_buf local;
    if (setjmp(env))
        return 1;
    if (sigsetjmp(senv, 1))
        return 2;
    if (setjmp(local) == 0 && k > 5)
        longjmp(local, 1);
    if (ext(k))
        siglongjmp(senv, 1);
    longjmp(env, 1);
}
EOF2
cat > sys/shdr.h <<'EOF2'
/* A header on a system path (-isystem): its warnings are not the user's. */
static inline int shdr(int a, unsigned b) { int unused; return a < b; }
#define SHDR_CMP(a, b) ((a) < (b))
EOF2
cat > d/sys.c <<'EOF2'
/* A system header's inline function and macro used in instrumented code. */
#include <shdr.h>
#include <stdio.h>
int ext(int);
int sys(int a, unsigned b) { return shdr(ext(a), b) + SHDR_CMP(ext(a), b) + printf("%d\n", a); }
EOF2
cat > d/implicit.c <<'EOF2'
/* Functions called with no declaration in scope: clang declares each in the innermost
 * block of its first call, and warns again at a call outside it; the facades' statement
 * expressions must not be such blocks.  A library function's (abs) is the unit's. */
int proto(int);
int shapes(int n, int (*fp)(int))
{
    int s = imp1(n);
    imp1(n);
    s += imp1(n) + imp2(imp1(1)) + proto(imp3(n));
    s += proto(imp3(n)) + imp2(n) + fp(imp4(n)) + imp4(n) + abs(n);
    {
        s += nested(imp5(n));
        if (s)
            s += imp6(n) + abs(n);
    }
    s += imp5(n) + nested(n) + imp6(imp6(n));
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += imp7(i);
    s += imp7(n);
#pragma omp parallel
    {
#pragma omp single
        s += imp8(imp9(n));
#pragma omp task
        imp9(n);
        imp8(n);
    }
    return s + imp8(n) + imp9(n) + abs(n);
}
int proto(int x) { return x + 1; }
EOF2
dedicated=(fall.c pragmas.c attr.c unused.c jmp.c sys.c)
# The levels are gcc's: clang knows no -Wimplicit-fallthrough=N (it says so once, as a
# warning, which a profiled build must say once too), reads no comment, and is asked
# for its own -Wimplicit-fallthrough (not in -Wall -Wextra) on the attribute's file too.
for lvl in 1 2 3 4 5; do
    compare d/ -O2 -Wall -Wextra -Wimplicit-fallthrough=$lvl -- fall.c
done
[ "$plain_cc" = clang ] && compare d/ -O2 -Wall -Wextra -Wimplicit-fallthrough -- fall.c attr.c
verdict "fall-through comments, -Wimplicit-fallthrough=1 to 5$([ "$plain_cc" = clang ] && echo ' (unknown to clang), and clang'"'"'s -Wimplicit-fallthrough')"
compare d/ -O2 -Wall -Wextra -- "${dedicated[@]}"
compare d/ -O2 -Wall -Wextra -Werror -- "${dedicated[@]}"
compare d/ -O2 -Wall -Wextra -Wc++-compat -- "${dedicated[@]}"
verdict "made for it: -Wall -Wextra, -Werror, -Wc++-compat"
compare d/ -O2 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-implicit-fallthrough \
    -Wno-unused-result -- "${dedicated[@]}"
verdict "made for it: -Wno-*"
compare d/ -O2 -Wall -Wextra -- implicit.c
compare d/ -O2 -Wall -Wextra -Werror -- implicit.c
compare d/ -fopenmp -O2 -Wall -Wextra -- implicit.c
compare d/ -fopenmp -O2 -Wall -Wextra -Werror -- implicit.c
verdict "made for it: implicitly declared functions, as statements, in expressions, as arguments, in blocks and constructs"
compare d/ -O2 -Wall -Wextra -isystem "$tmp/sys" -- sys.c
compare d/ -O2 -Wall -Wextra -Wsystem-headers -isystem "$tmp/sys" -- "${dedicated[@]}"
compare d/ -std=c99 -pedantic -O2 -Wall -Wextra -Wsystem-headers -isystem "$tmp/sys" -- "${dedicated[@]}"
verdict "made for it: system headers (-isystem, -Wsystem-headers, -pedantic)"
cc_env=(CPROF_LIBCALLS=1)
compare d/ -O2 -Wall -Wextra -D_FORTIFY_SOURCE=2 -- unused.c sys.c
verdict "made for it: library calls profiled (CPROF_LIBCALLS=1)"
# A routine's parameters are passed on to its twin, which uses them: gcc does not say
# which are unused (docs/cprof-cc.md, "Diagnostics").
cc_env=(CPROF_INPUT_SIZE=1)
compare d/ -O2 -Wall -Wextra -Wno-unused-parameter -Wno-unused-but-set-parameter -- "${dedicated[@]}"
verdict "made for it: CPROF_INPUT_SIZE=1 (each routine compiled twice)"
finish
