#!/usr/bin/env bash
# Profiled shared libraries: one runtime per process, one profile holding the
# library's routines, whether the program is profiled, plain gcc, or dlopens it.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
cat > lib.c <<'EOF2'
static int inner(int x) { return x + 1; }
int libf(int x)
{
    int s = 0;
#pragma omp parallel for reduction(+:s)
    for (int i = 0; i < 4; i++)
        s += inner(x);
    return s;
}
EOF2
sed 's/libf/dlf/' lib.c > dl.c
cat > app.c <<'EOF2'
#include <stdio.h>
#include <dlfcn.h>
int libf(int);
static int local(int x) { return libf(x); }
int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        void *h = dlopen("./libdl.so", RTLD_NOW);
        int (*g)(int) = h ? (int (*)(int))dlsym(h, "dlf") : 0;
        printf("%d\n", g ? g(2) : -1);
        return 0;
    }
    printf("%d\n", local(1));
    return 0;
}
EOF2
cc="$bin/cprof-cc"
"$cc" -fopenmp -fPIC -shared -O2 lib.c -o libx.so 2> e1 && "$cc" -fopenmp -fPIC -shared -O2 dl.c -o libdl.so 2>> e1
check "cprof-cc -fPIC -shared builds two libraries" "$(indent e1)" -- test -s libx.so -a -s libdl.so -a ! -s e1
"$cc" -fopenmp -O2 app.c -L. -lx -ldl -Wl,-rpath,. -o app 2> e2
check "cprof-cc links a program with a profiled library" "$(indent e2)" -- test -x app -a ! -s e2
"$plain_cc" -fopenmp -O2 app.c -L. -lx -ldl -Wl,-rpath,. -o plain

CPROF_OUT=both.out ./app > out1
check "profiled program + profiled library: output" "$(indent out1)" -- test "$(cat out1)" = 8
"$bin/cprof-report" --json both.out > both.json 2>&1
expect_jq "profiled program + library: one profile, arcs across the boundary" both.json \
    '[.arcs[] | [.caller, .callee, .s_callarc, .c_callarc]]' \
    '[["<external>","main",1,0],["libf","inner",0,4],["local","libf",1,0],["main","local",1,0]]'

CPROF_OUT=plain.out ./plain > out2
check "plain program + profiled library: output" "$(indent out2)" -- test "$(cat out2)" = 8
"$bin/cprof-report" --json plain.out > plain.json 2>&1
expect_jq "plain program + profiled library: the library's routines" plain.json \
    '[.arcs[] | [.caller, .callee, .s_callarc, .c_callarc]]' '[["<external>","libf",1,0],["libf","inner",0,4]]'

CPROF_OUT=dl.out ./app dl > out3
check "dlopen of a profiled library: output" "$(indent out3)" -- test "$(cat out3)" = 12
"$bin/cprof-report" --json dl.out > dl.json 2>&1
expect_jq "dlopen: the call through dlsym's pointer is main's arc" dl.json \
    '[.arcs[] | [.caller, .callee, .s_callarc, .c_callarc]]' '[["<external>","main",1,0],["dlf","inner",0,4],["main","dlf",1,0]]'
finish
