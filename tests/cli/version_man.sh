#!/usr/bin/env bash
# cprof's version, asked of either tool and read in a profile, is format/version.h's;
# cprof-cc --version stays gcc's (build probes).  The man pages name every option and
# variable the tools' help lists, and groff renders them without a warning.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

want=$(sed -n 's/^#define CPROF_VERSION "\(.*\)"/\1/p' "$root/format/version.h")
check "format/version.h defines CPROF_VERSION" -- test -n "$want"
out=$("$bin/cprof-report" --version 2>&1); st=$?
check "cprof-report --version: 'cprof-report (cprof) $want', exit 0" "status $st" "output: $out" -- \
    test "$st:$out" = "0:cprof-report (cprof) $want"
out=$("$bin/cprof-cc" -fcprof-version x.c -o x 2>&1); st=$?
check "cprof-cc -fcprof-version: 'cprof-cc (cprof) $want', exit 0, compiles nothing" "status $st" "output: $out" -- \
    test "$st:$out" = "0:cprof-cc (cprof) $want" -a ! -e x
"$plain_cc" --version > gcc.v 2>&1
"$bin/cprof-cc" --version > cc.v 2>&1
check "cprof-cc --version is $plain_cc's" "$(diff gcc.v cc.v | head -5)" -- cmp -s gcc.v cc.v

echo 'int main(void) { return 0; }' > p.c
"$bin/cprof-cc" -O2 p.c -o p > cc.err 2>&1 && CPROF_OUT=p.out ./p
got=$(jq -r .cprof_version p.out 2>/dev/null)
check "a profile records the version that wrote it" "cprof_version: $got" -- test "$got" = "$want"

# Each man page renders without a warning (groff -ww) and to some text.
for page in preprocessor/cprof-cc.1 reports/cprof-report.1 runtime/cprof.7; do
    groff -ww -man -Tutf8 "$root/$page" > page.txt 2> page.err
    check "$page renders without a warning" "$(indent page.err)" -- test ! -s page.err -a -s page.txt
done
# names_in NAME PAGE WORDS...: every word appears in the page as rendered (hyphens as
# typed); more than MIN words are asked for, so an empty help cannot pass.
names_in() {
    local name=$1 page=$2 min=$3 missing= w; shift 3
    groff -man -Tascii "$root/$page" 2>/dev/null | sed 's/.\x08//g' > page.txt
    for w in "$@"; do grep -qe "$w" page.txt || missing="$missing $w"; done
    check "$name" "missing:$missing" "asked: $*" -- test -z "$missing" -a $# -gt "$min"
}
"$bin/cprof-cc" -fcprof-help > help.out
"$bin/cprof-report" --help > rhelp.out
names_in "cprof-cc(1) names every option and variable of -fcprof-help" preprocessor/cprof-cc.1 5 \
    $(grep -oE -- '-f(no-)?cprof-[a-z-]+|CPROF_[A-Z_]+' help.out | sort -u)
names_in "cprof-report(1) names every option of --help" reports/cprof-report.1 5 \
    $(grep -oE -- '--[a-z-]+' rhelp.out | sort -u)
names_in "cprof(7) names every variable a profiled program reads" runtime/cprof.7 1 \
    $(sed -n '/^Variables read by a profiled program/,/^[^ ]/p' help.out | grep -oE 'CPROF_[A-Z_]+' | sort -u)
finish
