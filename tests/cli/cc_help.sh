#!/usr/bin/env bash
# cprof-cc -fcprof-help lists cprof's options and variables; --help stays gcc's (build
# tools ask for it).  Every -fcprof- option of docs/cprof-cc.md and every CPROF_
# variable that cprof-cc or the runtime reads (getenv in their sources) is listed.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

"$bin/cprof-cc" -fcprof-help > help.out 2> help.err; st=$?
check "-fcprof-help: exit 0, help on stdout, nothing on stderr" "status $st" "$(indent help.err)" -- \
    test $st = 0 -a -s help.out -a ! -s help.err
check "-fcprof-help: compiles nothing, even with files" -- \
    bash -c "'$bin/cprof-cc' -fcprof-help nosuch.c -o x > /dev/null 2>&1 && [ ! -e x ]"
missing=
for o in $(grep -oE '`-f(no-)?cprof-[a-z-]+' "$root/docs/cprof-cc.md" | tr -d '`' | sort -u) -fcprof-help; do
    grep -qe "$o" help.out || missing="$missing $o"
done
check "-fcprof-help lists every -fcprof- option of docs/cprof-cc.md" "missing:$missing" -- test -z "$missing"
missing=
# (options.c declares the options' variables in a table, read by getenv too.)
for v in $({ cat "$root"/preprocessor/*.c "$root"/runtime/*.c | grep -oE 'getenv\("CPROF_[A-Z_]+"\)'
             grep -oE '"CPROF_[A-Z_]+"' "$root"/preprocessor/options.c; } | grep -oE 'CPROF_[A-Z_]+' | sort -u); do
    grep -q "$v" help.out || missing="$missing $v"
done
check "-fcprof-help lists every CPROF_ variable cprof reads" "missing:$missing" -- test -z "$missing"
"$plain_cc" --help > gcc.help 2>&1
"$bin/cprof-cc" --help > cc.help 2>&1
check "--help is $plain_cc's" "$(diff gcc.help cc.help | head -5)" -- cmp -s gcc.help cc.help
echo 'int main(void) { return 0; }' > ok.c
for bad in -fcprof-small=many -fcprof-small=-1 -fcprof-small=; do
    "$bin/cprof-cc" "$bad" ok.c -o ok > bad.out 2>&1; st=$?
    check "$bad: one line naming it, exit 1, nothing built" "status $st" "$(indent bad.out)" -- \
        eval "[ $st = 1 ] && [ \$(wc -l < bad.out) = 1 ] && grep -qe '^cprof-cc: $bad: ' bad.out && [ ! -e ok ]"
done
CPROF_SMALL=x "$bin/cprof-cc" ok.c -o ok > bad.out 2>&1; st=$?
check "CPROF_SMALL=x: one line naming it, exit 1" "status $st" "$(indent bad.out)" -- \
    eval "[ $st = 1 ] && [ \$(wc -l < bad.out) = 1 ] && grep -q '^cprof-cc: CPROF_SMALL: ' bad.out"
finish
