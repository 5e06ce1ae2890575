#!/usr/bin/env bash
# A profiled shared library dlopened, called and dlclosed before exit, once and twice:
# its routines stay in the profile with exact counts (their descriptors are copied when
# the library goes, and the same library loaded again takes its ids back), and a call
# handshake it left pending does not send the next entry into the unmapped library.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
cat > lib.c <<'EOF2'
#include <stdlib.h>
static int inner(int x) { return x + 1; }
int (*volatile hook)(int) = abs;
int libf(int x)
{
    int s = 0;
#pragma omp parallel for reduction(+:s)
    for (int i = 0; i < 4; i++)
        s += inner(x);
    return s + hook(-x) - x;    /* last: a call of code cprof did not compile */
}
EOF2
cat > app.c <<'EOF2'
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static int once(void)
{
    void *h = dlopen("./libl.so", RTLD_NOW);
    if (!h) {
        printf("dlopen: %s\n", dlerror());
        return -1;
    }
    int (*f)(int) = (int (*)(int))dlsym(h, "libf");
    int r = f(2);
    dlclose(h);
    return r;
}
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1;
    /* The program uses libgomp itself: unloading it with its threads alive would crash. */
    printf("%d\n", omp_get_max_threads());
    for (int i = 0; i < n; i++)
        printf("%d\n", once());
    if (argc > 2)
        return 0;
    /* An entry from outside (bsearch calls cmp) after the library is gone. */
    int key = 5, a[1] = { 5 };
    printf("%d\n", bsearch(&key, a, 1, sizeof a[0], cmp) != 0);
    return 0;
}
EOF2
cc="$bin/cprof-cc"
mkdir ref
"$cc" -fopenmp -fPIC -shared -O2 lib.c -o libl.so 2> e1 && "$cc" -fopenmp -O2 app.c -ldl -o app 2>> e1
check "cprof-cc builds the library and the program" "$(indent e1)" -- test -s libl.so -a -x app -a ! -s e1
"$plain_cc" -fopenmp -fPIC -shared -O2 lib.c -o ref/libl.so && "$plain_cc" -fopenmp -O2 app.c -ldl -o ref/app

# run NAME PROG ARGS...: runs PROG in . with the profile NAME.out; the reference in ref/.
# With $said set, the run must say that line (a regular expression) once, besides.
said=
run() {
    local name=$1; shift
    (cd ref && ./app "${@:2}" > "$name.out.ref" 2>&1; echo "status $?" >> "$name.out.ref")
    CPROF_OUT=$name.out "$@" > "$name.txt" 2>&1; echo "status $?" >> "$name.txt"
    if [ -n "$said" ]; then
        check "$name: says once: $said" "$(indent "$name.txt")" -- \
            test "$(grep -c -e "$said" "$name.txt")" = 1
        grep -v -e "$said" "$name.txt" > "$name.rest" && mv "$name.rest" "$name.txt"
    fi
    check "$name: output and status equal $plain_cc's build" "$(indent "$name.txt")" -- cmp -s "$name.txt" "ref/$name.out.ref"
    "$bin/cprof-report" --json "$name.out" > "$name.json" 2> "$name.err"
    check "$name: the profile reads" "$(indent "$name.err")" -- has_routines "$name.json"
}
arcs='[.arcs[] | [.caller, .callee, .s_callarc, .c_callarc]]'

run once ./app 1
expect_jq "once: the library's routines and the arcs into them" once.json "$arcs" \
    '[["<external>","cmp",1,0],["<external>","main",1,0],["libf","inner",0,4],["main","once",1,0],["once","libf",1,0]]'
expect_jq "once: entries of the library's routines" once.json \
    '[.routines[] | select(.file == "lib.c") | [.name, .s_caller, (.c_caller | add)]]' '[["inner",0,4],["libf",1,0]]'

run tables ./app 1 tables
expect_jq "tables: the library's routines in the profile" tables.json "$arcs" \
    '[["<external>","main",1,0],["libf","inner",0,4],["main","once",1,0],["once","libf",1,0]]'

run twice ./app 2
expect_jq "twice: both loads counted" twice.json "$arcs" \
    '[["<external>","cmp",1,0],["<external>","main",1,0],["libf","inner",0,8],["main","once",2,0],["once","libf",2,0]]'
expect_jq "twice: entries of the library's routines" twice.json \
    '[.routines[] | select(.file == "lib.c") | [.name, .s_caller, (.c_caller | add)]]' '[["inner",0,8],["libf",2,0]]'
expect_jq "twice: the library loaded again has the same routines and sites in the profile" twice.out \
    '[([.routines[] | .name] | sort), ([.sites[] | [.file, .line]] | sort)]' \
    '[["cmp","inner","libf","main","once"],[["app.c",14],["app.c",24],["lib.c",7],["lib.c",9],["lib.c",10]]]'

# A program gcc compiled: the runtime is the library's libcprof.so, which must stay
# loaded with the counts when the library goes.  Under clang the program has run OpenMP
# (omp_get_max_threads) before it loads the library: libomp started no tool of cprof's
# and starts none later, which the run says in one line, and the profile: the calls'
# cases are right (libomp answers them), no region is seen (docs/semantics.md, "OpenMP
# runtimes").
cp ref/app plain
[ "$plain_cc" != gcc ] && said="^cprof: libomp.* started before cprof's runtime was loaded"
run plain ./plain 2
said=
expect_jq "plain program: both loads counted" plain.json "$arcs" \
    '[["<external>","libf",2,0],["libf","inner",0,8]]'
if [ "$plain_cc" != gcc ]; then
    expect_jq "plain program: the profile says its regions were not observed, its cases were" \
        plain.json '.openmp | [.observed, .cases, .regions]' '["none", true, false]'
fi
finish
