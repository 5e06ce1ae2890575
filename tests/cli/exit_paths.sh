#!/usr/bin/env bash
# How a program ends decides what its profile holds (docs/semantics.md): exit() and the
# end of main write it after every destructor of the profiled objects, those of profiled
# shared libraries included; _exit(), abort() and a fatal signal write none.  The
# program's output and status are always gcc's.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
ulimit -c 0
cat > lib.c <<'EOF2'
#include <stdio.h>
int libwork(int x) { return x + 1; }
__attribute__((destructor)) static void lib_fini(void) { printf("lib_fini %d\n", libwork(10)); }
EOF2
cat > app.c <<'EOF2'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int libwork(int x);
__attribute__((destructor)) static void app_fini(void) { printf("app_fini %d\n", libwork(20)); }
int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "return";
    printf("main %d\n", libwork(0));
    fflush(stdout);
    if (!strcmp(how, "_exit"))
        _exit(4);
    if (!strcmp(how, "abort"))
        abort();
    if (!strcmp(how, "signal"))
        raise(SIGTERM);
    return 0;
}
EOF2
cc="$bin/cprof-cc"
mkdir ref
"$cc" -fPIC -shared -O2 lib.c -o libd.so 2> e1 && "$cc" -O2 app.c -L. -ld -Wl,-rpath,. -o app 2>> e1
check "cprof-cc builds the library and the program" "$(indent e1)" -- test -s libd.so -a -x app -a ! -s e1
"$plain_cc" -fPIC -shared -O2 lib.c -o ref/libd.so && "$plain_cc" -O2 app.c -L. -ld -Wl,-rpath,. -o ref/app

# run NAME PROG ARGS...: PROG's output and status against gcc's build's, in ref/.
run() {
    local name=$1; shift
    # (in subshells: the shell's own "Aborted" goes to their stderr, not the log)
    (cd ref && (./app "${@:2}" > "$name.txt" 2>&1); echo "status $?" >> "$name.txt") 2> /dev/null
    (CPROF_OUT=$name.out "$@" > "$name.txt" 2>&1; echo "status $?" >> "$name.txt") 2> /dev/null
    check "$name: output and status equal $plain_cc's build" "$(indent "$name.txt")" -- cmp -s "$name.txt" "ref/$name.txt"
}
arcs='[.arcs[] | [.caller, .callee, .s_callarc, .c_callarc]]'

run return ./app
"$bin/cprof-report" --json return.out > return.json 2> return.err
expect_jq "end of main: the program's and the library's destructors are in the profile" return.json "$arcs" \
    '[["<external>","app_fini",1,0],["<external>","lib_fini",1,0],["<external>","main",1,0],["app_fini","libwork",1,0],["lib_fini","libwork",1,0],["main","libwork",1,0]]'

cp ref/app plain
run plain ./plain
"$bin/cprof-report" --json plain.out > plain.json 2> plain.err
expect_jq "program gcc compiled: the library's destructor is in the profile" plain.json "$arcs" \
    '[["<external>","lib_fini",1,0],["<external>","libwork",2,0],["lib_fini","libwork",1,0]]'

for how in _exit abort signal; do
    run "$how" ./app "$how"
    check "$how: no profile" "files: $(ls | tr '\n' ' ')" -- test ! -e "$how.out"
done
finish
