#!/usr/bin/env bash
# make install PREFIX=... from a copy of the source tree (deleted afterwards); the
# installed cprof-cc builds and profiles a program in a directory outside the source
# tree, and the installed cprof-report reads the profile.
. "$(dirname "$0")/../lib/cli.sh"

mkdir "$tmp/src"
tar -C "$root" --exclude=./build --exclude=./.git --exclude=./tests -cf - . | tar -C "$tmp/src" -xf -
make -C "$tmp/src" -j2 install PREFIX="$tmp/inst" > "$tmp/make.log" 2>&1; st=$?
check "make install PREFIX=\$tmp/inst (from a copy of the sources)" "status $st" "$(tail -n 5 "$tmp/make.log" | sed 's/^/  | /')" -- [ $st = 0 ]
rm -rf "$tmp/src"
for f in bin/cprof-cc bin/cprof-report lib/libcprof.a include/cprof.h share/man/man1/cprof-report.1; do
    check "installed $f" -- test -s "$tmp/inst/$f"
done

mkdir "$tmp/proj"
cd "$tmp/proj"
cat > prog.c <<'EOF'
#include <stdio.h>
static int v[100];
void leaf(int i) { v[i] = i; }
void work(void)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < 100; i++)
        leaf(i);
}
int main(void)
{
    work();
    work();
    printf("%d\n", v[99]);
    return 0;
}
EOF
"$tmp/inst/bin/cprof-cc" -fopenmp -O2 prog.c -o prog > cc.err 2>&1; st=$?
check "installed cprof-cc builds prog.c outside the source tree" "status $st" "$(indent cc.err)" -- [ $st = 0 ]
check "installed cprof-cc: no diagnostics" "$(indent cc.err)" -- test ! -s cc.err
./prog > out.txt 2>&1; st=$?
check "the program runs (exit 0, prints 99)" "status $st" "$(indent out.txt)" -- [ "$st:$(cat out.txt)" = "0:99" ]
check "the program writes cprof.out" -- test -s cprof.out
"$tmp/inst/bin/cprof-report" --json cprof.out > r.json 2> r.err; st=$?
check "installed cprof-report reads it" "status $st" "$(indent r.err)" -- [ $st = 0 ]
expect_jq "leaf c_caller [100,100] (2 x 50 per worker)" r.json 'r("leaf") | [.s_caller, .c_caller]' '[0, [100, 100]]'
expect_jq "work s_caller 2, c_callee [100,100]" r.json 'r("work") | [.s_caller, .c_callee]' '[2, [100, 100]]'

finish
