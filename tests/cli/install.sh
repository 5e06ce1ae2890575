#!/usr/bin/env bash
# make install PREFIX=... from a copy of the source tree; the installed cprof-cc builds
# and profiles a program in a directory outside the source tree, the installed
# cprof-report reads the profile, objects compiled by cprof-cc link with plain gcc and
# the pkg-config file, and make uninstall takes away everything install put there.
. "$(dirname "$0")/../lib/cli.sh"

mkdir "$tmp/src"
tar -C "$root" --exclude=./build --exclude=./.git --exclude=./tests -cf - . | tar -C "$tmp/src" -xf -
make -C "$tmp/src" -j2 install PREFIX="$tmp/inst" > "$tmp/make.log" 2>&1; st=$?
check "make install PREFIX=\$tmp/inst (from a copy of the sources)" "status $st" "$(tail -n 5 "$tmp/make.log" | sed 's/^/  | /')" -- [ $st = 0 ]
for f in bin/cprof-cc bin/cprof-report libexec/cprof/cprof-rewrite libexec/cprof/cprof-topology \
         lib/libcprof.a lib/libcprof.so \
         lib/cprof-link.opt include/cprof.h lib/pkgconfig/cprof.pc share/man/man1/cprof-cc.1 \
         share/man/man1/cprof-report.1 share/man/man7/cprof.7; do
    check "installed $f" -- test -s "$tmp/inst/$f"
done

# The build tree gone, what follows uses the installation only (the runtime names its
# topology helper by the installed path).
mv "$tmp/src/build" "$tmp/src/build.away"
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
expect_jq "work's loop: a region run twice, by a team of 2" r.json \
    '[.regions[] | [.construct, .routine, .runs, .team_min, .team_max]]' '[["parallel", "work", 2, 2, 2]]'
expect_jq "the installed runtime ran the installed topology helper (the build tree moved away)" cprof.out \
    '[(.machine.topology | has("pus")), .machine.pus > 0]' '[true, true]'

# A link step that is not cprof-cc's: gcc with what pkg-config says.
if command -v pkg-config > /dev/null; then
    export PKG_CONFIG_PATH=$tmp/inst/lib/pkgconfig
    v=$(pkg-config --modversion cprof 2>&1)
    check "pkg-config --modversion cprof is cprof's version" "got: $v" -- \
        test "$v" = "$(sed -n 's/^#define CPROF_VERSION "\(.*\)"/\1/p' "$root/format/version.h")"
    rm -f cprof.out
    "$tmp/inst/bin/cprof-cc" -fopenmp -O2 -c prog.c -o prog.o > cc.err 2>&1 &&
        "$plain_cc" -fopenmp prog.o $(pkg-config --libs cprof) -o linked > ld.err 2>&1 && ./linked > out.txt 2>&1
    st=$?
    check "objects of cprof-cc, linked by $plain_cc \$(pkg-config --libs cprof): run, profile" "status $st" \
        "$(indent cc.err)" "$(indent ld.err)" -- test $st = 0 -a -s cprof.out
    "$tmp/inst/bin/cprof-report" --json cprof.out > r2.json 2> /dev/null
    expect_jq "that profile: leaf c_caller [100,100]" r2.json 'r("leaf") | [.s_caller, .c_caller]' '[0, [100, 100]]'
    expect_jq "that profile: the region hooks linked too (pkg-config gives cprof-link.opt)" r2.json \
        '[.regions[] | [.construct, .runs]]' '[["parallel", 2]]'
else
    skip "pkg-config link" "no pkg-config"
fi

make -C "$tmp/src" uninstall PREFIX="$tmp/inst" > "$tmp/make.log" 2>&1; st=$?
left=$(cd "$tmp/inst" && find . -type f | sort | tr '\n' ' ')
check "make uninstall leaves no file of cprof's" "status $st" "left: $left" -- test $st = 0 -a -z "$left"
rm -rf "$tmp/src"

finish
