#!/usr/bin/env bash
# cprof-report --source (docs/source.md) on a program of the kinds that misplace lines:
# two units both named util.c (compiled in their own directories), code included from
# a header (a timed routine and a counted one, and the call sites in them), calls
# spelled in macros, #line directives naming another file (gen.src) and one that does
# not exist (nowhere.y), a call through a pointer that reaches two routines, OpenMP
# parallel loops, a task.  Checked: the profile records every file with its path and
# hash (the hash recomputed here); the two util.c are two files and their static
# helpers two routines; every annotated figure is --json's, exactly
# (tests/lib/source_check.py), at the lines derived here by hand; a changed source is
# said and not aligned; a moved tree is found with --source-dir and --source-map;
# --threshold, --source=SRC, the rows for tools, and bad usage.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
mkdir -p proj/include proj/src/a proj/src/b
cat > proj/include/util.h <<'C'
#define TWICE(x) twice(x)
static inline int twice(int x) { return 2 * x; }
static int sum_to(int n)
{
    int s = 0;
    for (int i = 0; i <= n; i++)
        s += twice(i);
    return s;
}
C
cat > proj/src/a/util.c <<'C'
#include "util.h"
static int helper(int x)
{
    int s = 0;
    for (int i = 0; i < x % 7 + 1; i++)
        s += TWICE(i);
    return s;
}
int a_work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += helper(i);
    return s + sum_to(3);
}
C
cat > proj/src/b/util.c <<'C'
#include "util.h"
static int helper(int x)
{
    int s = 0;
    for (int i = 0; i < x % 5 + 1; i++)
        s += sum_to(i);
    return s;
}
int b_work(int n)
{
    int s = 0;
#pragma omp parallel for reduction(+:s) schedule(static)
    for (int i = 0; i < n; i++)
        s += helper(i);
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task shared(s)
        s += helper(n);
    }
    return s;
}
C
cat > proj/src/main.c <<'C'
#include <stdio.h>
#include "util.h"
int a_work(int n);
int b_work(int n);
#define RUN(f, n) f(n)
int main(void)
{
    int (*fs[2])(int) = {a_work, b_work};
    long s = 0;
    for (int k = 0; k < 2; k++)
        s += fs[k](50);
    s += RUN(a_work, 30);
#line 7 "gen.src"
    s += b_work(20);
#line 200 "nowhere.y"
    s += sum_to(5);
    printf("%ld\n", s);
    return 0;
}
C
# gen.src: what "#line 7" stands for, 10 lines; line 7 has the call.
printf 'gen line %s\n' 1 2 3 4 5 6 > proj/src/gen.src
printf '    s += b_work(20);\n' >> proj/src/gen.src
printf 'gen line %s\n' 8 9 10 >> proj/src/gen.src
build() {
    (cd proj/src/a && "$bin/cprof-cc" -fopenmp -O2 -I../../include -c util.c -o ../../a.o) &&
        (cd proj/src/b && "$bin/cprof-cc" -fopenmp -O2 -I../../include -c util.c -o ../../b.o) &&
        (cd proj/src && "$bin/cprof-cc" -fopenmp -O2 -I../include main.c ../a.o ../b.o -o ../prog)
}
build > cc.err 2>&1 && (cd proj && CPROF_OUT=$tmp/p.out ./prog > ../prog.txt 2>&1)
check "the program builds (two util.c, each in its directory) and writes a profile" \
    "$(indent cc.err)" "$(indent prog.txt)" -- test -s p.out
R=$bin/cprof-report
P=$tmp/proj

# ---- what the profile records ----
fnv() { python3 -c 'import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print("fnv1a64:%016x" % h)' "$1"; }
want=$(for f in src/main.c src/gen.src include/util.h src/a/util.c src/b/util.c; do
           echo "$P/$f $(stat -c %s "$P/$f") $(fnv "$P/$f")"; done | sort -u)
got=$(jq -r '.sources[].files[] | select(.hash) | "\(.path) \(.bytes) \(.hash)"' p.out | sort -u)
check "sources: every file named, with its path, size and FNV-1a hash as compiled" \
    "$(diff <(echo "$got") <(echo "$want"))" -- test "$got" = "$want"
expect_jq "sources: three units; nowhere.y recorded unread (no hash), main.c's and the util.c's paths" p.out \
    '[(.sources | length), (.sources[].files[] | select(.name == "nowhere.y") | [.bytes, .hash, (.path | endswith("/src/nowhere.y"))]),
      ([.sources[] | select(.unit == "util.c") | .files[] | select(.name == "util.c") | .path] | sort)]' \
    "[3, [-1, null, true], [\"$P/src/a/util.c\", \"$P/src/b/util.c\"]]"
expect_jq "sources: every routine and site names its unit" p.out \
    '[.routines[], .sites[] | has("sources")] | all' true

"$R" --json p.out > p.json
expect_jq "--json: the two util.c are two files (a/util.c, b/util.c), their helpers two routines" p.json \
    '[.routines[] | select(.name == "helper" or .name == "a_work" or .name == "b_work") | "\(.name)@\(.file)"]' \
    '["a_work@a/util.c", "b_work@b/util.c", "helper@a/util.c", "helper@b/util.c"]'
expect_jq "--json: the header's routines are one file's, whichever unit named it how (../include/util.h, ../../include/util.h)" p.json \
    '[.routines[] | select(.name == "sum_to" or .name == "twice") | "\(.name)@\(.file)"]' \
    '["sum_to@../include/util.h", "twice@../include/util.h"]'

# ---- every annotated figure is --json's ----
python3 "$root/tests/lib/source_check.py" "$R" p.out > check.txt 2>&1
check "--source: every annotation is --json's figures, every site, routine and construct once, every file's lines as on disk" \
    "$(indent check.txt 8)" -- grep -q '^ok ' check.txt
# The checker finds an annotation moved one line down (a report that misaligned them).
cat > shifted <<SH
#!/bin/bash
if [ "\$1" = --source ] && [ \$# = 2 ]; then
    "$R" "\$@" | awk '/^        \^ calls helper \(a\/util.c\)/ && !done { held = \$0; done = 1; next }
                    { print } held && /^ +[0-9]+  / { print held; held = "" }'
else
    exec "$R" "\$@"
fi
SH
chmod +x shifted
python3 "$root/tests/lib/source_check.py" "$tmp/shifted" p.out > shifted.txt 2>&1; st=$?
check "the checker fails on an annotation moved to the next line" "status $st" "$(indent shifted.txt)" -- \
    bash -c "[ $st = 1 ] && grep -q '^a/util.c:13: --json says' shifted.txt && grep -q '^a/util.c:14: --json says' shifted.txt"
"$R" --source p.out > src.txt
# annotated FILE LINE TEXT: the source line LINE of FILE's section is TEXT, and under it
# an annotation matching PATTERN.
under() {
    awk -v f="$1" -v n="$2" '/^==> / { in_f = ($0 == "==> " f " <==") } in_f' src.txt |
        awk -v n="$2" '$1 == n && !/\^/ { on = 1; print; next } on && /^        \^ / { print; next } { on = 0 }'
}
# a_work(50) and a_work(30) call helper 80 times, helper(x) loops x % 7 + 1 times: 197 + 115.
check "a/util.c line 6 (TWICE(i), a macro): twice called there, S-S 312" "$(under a/util.c 6)" -- \
    bash -c 'echo "$1" | grep -q "s += TWICE(i);" && echo "$1" | grep -q "calls twice \[counted\]: S-S 312, S-C 0, C-S 0, C-C 0; not timed"' _ "$(under a/util.c 6)"
check "main.c line 11 (fs[k](50), a pointer): a_work and b_work, S-S 1 each" "$(under main.c 11)" -- \
    bash -c 'echo "$1" | grep -q "calls a_work: S-S 1, S-C 0, C-S 0, C-C 0; time" && echo "$1" | grep -q "calls b_work: S-S 1, S-C 0, C-S 0, C-C 0; time"' _ "$(under main.c 11)"
check "main.c line 12 (RUN(a_work, 30), a macro): a_work, S-S 1" "$(under main.c 12)" -- \
    bash -c 'echo "$1" | grep -q "s += RUN(a_work, 30);" && echo "$1" | grep -q "calls a_work: S-S 1,"' _ "$(under main.c 12)"
check "gen.src line 7 (#line 7 \"gen.src\"): b_work, S-S 1, beside gen.src's own line 7" "$(under gen.src 7)" -- \
    bash -c 'echo "$1" | grep -q "s += b_work(20);" && echo "$1" | grep -q "calls b_work: S-S 1,"' _ "$(under gen.src 7)"
check "b/util.c line 12: the parallel loop, 2 executions; line 14: helper, S-C 70" "$(under b/util.c 12; under b/util.c 14)" -- \
    bash -c 'echo "$1" | grep -q "#pragma omp parallel for" && echo "$1" | grep -q "\^ parallel: executions 2, team 2;" &&
             echo "$2" | grep -q "calls helper (b/util.c): S-S 0, S-C 70, C-S 0, C-C 0"' _ "$(under b/util.c 12)" "$(under b/util.c 14)"
# The task is in b_work's own parallel region: its call is b_work's S-C call.
check "b/util.c line 18: the task, 2 tasks; line 19: helper, S-C 2" "$(under b/util.c 18; under b/util.c 19)" -- \
    bash -c 'echo "$1" | grep -q "\^ task: executions 2;" && echo "$2" | grep -q "calls helper (b/util.c): S-S 0, S-C 2, C-S 0, C-C 0"' _ "$(under b/util.c 18)" "$(under b/util.c 19)"
check "../include/util.h line 7: twice from sum_to, as many calls as sum_to's loops made" "$(under ../include/util.h 7)" -- \
    bash -c 'echo "$1" | grep -q "s += twice(i);" && echo "$1" | grep -q "calls twice \[counted\]: S-S"' _ "$(under ../include/util.h 7)"
check "nowhere.y: not found, its figures by line number (sum_to at 200)" \
    "$(awk '/^==> nowhere.y/,/^$/' src.txt)" -- \
    bash -c 'awk "/^==> nowhere.y/,/^\$/" src.txt | grep -q "^not found (looked for .*nowhere.y)" &&
             awk "/^==> nowhere.y/,/^\$/" src.txt | grep -qE "^ +200  \^ calls sum_to: S-S 1,"'

# ---- estimates and counts only ----
python3 "$root/tests/lib/source_check.py" "$R" p.out --compensate > check.txt 2>&1
"$R" --source --compensate p.out > comp.txt
check "--compensate: every time marked (estimated), the counts as before, every figure --json --compensate's" \
    "$(indent check.txt)" "$(grep -m2 'time' comp.txt)" -- \
    bash -c 'grep -q "^ok " check.txt && [ "$(grep -c "^        ^ .* ms (estimated);" comp.txt)" = "$(grep -cE "^        \^ .* ms( \(estimated\))?;" src.txt)" ] &&
        [ "$(grep -c "^        ^ .* ms;" comp.txt)" = 0 ] &&
        diff <(grep -o "S-S [0-9]*, S-C [0-9]*, C-S [0-9]*, C-C [0-9]*" comp.txt) <(grep -o "S-S [0-9]*, S-C [0-9]*, C-S [0-9]*, C-C [0-9]*" src.txt) > /dev/null'
(cd proj && CPROF_MODE=count CPROF_OUT=$tmp/count.out ./prog > /dev/null 2>&1)
"$R" --source count.out > count.txt
python3 "$root/tests/lib/source_check.py" "$R" count.out > check.txt 2>&1
check "CPROF_MODE=count: every routine and call 'not timed', every figure --json's" "$(indent check.txt)" -- \
    bash -c 'grep -q "^ok " check.txt && ! grep -qE "^        \^ (routine|calls) .* ms" count.txt &&
        [ "$(grep -c "^        \^ \(routine\|calls\) .*; not timed$" count.txt)" -gt 10 ]'

# ---- the rows for tools ----
"$R" --csv lines p.out | tr -d '\r' > lines.csv
"$R" --source --json p.out > src.json
check "--csv lines: CRLF-free rows as wide as the header, one per routine, construct and callee of a site" \
    "$(head -3 lines.csv)" -- bash -c '[ "$(awk -F, "{ print NF }" lines.csv | sort -u | wc -l)" = 1 ] &&
        [ $(($(wc -l < lines.csv) - 1)) = $(jq "[.routines[] | select(.line > 0)] + [.arcs[].sites[]] + [.regions[] | select(.file)] | length" p.json) ]'
expect_jq "--source --json: every file's status and path; main.c unchanged at its path" src.json \
    '[.format, (.files[] | select(.file == "main.c") | [.status, .found == .path, .found_hash == .hash]), (.files | map(.status) | sort)]' \
    '["cprof-source", ["unchanged", true, true], ["missing", "unchanged", "unchanged", "unchanged", "unchanged", "unchanged"]]'
expect_jq "--source --json: the per-worker rows add up to the routines' entries and the sites' calls" src.json \
    '[.lines[] | select(.kind != "construct")] as $ls | [$ls[] as $l | ([.line_workers[] | select(.file == $l.file and .line == $l.line and .kind == $l.kind and .name == $l.name and .name_file == $l.name_file and .routine == $l.routine) | .calls] | add // 0) == $l.calls] | all' true

# ---- --threshold, --source=SRC ----
# b_work's region starts the team's threads, most of the run under gcc (99%); libomp
# starts them faster, and b_work's share of a clang build's run is 40 to 95%: 10% there.
th=80
[ "$plain_cc" = gcc ] || th=10
"$R" --source --threshold $th p.out > th.txt
check "--threshold $th: only files with a routine or line at $th% or more (not a/util.c's microseconds), quieter routines' lines left out in one line" \
    "$(grep -E '^==>|hidden|\[routine' th.txt)" -- \
    bash -c 'grep -q "^==> b/util.c <==" th.txt && grep -q "^==> main.c <==" th.txt && ! grep -q "^==> a/util.c <==" th.txt &&
        grep -qE "^[0-9 ]+\[routine helper \(b/util.c\), lines 2-8: [0-9.]+% of the run, below '$th'%\]" th.txt &&
        grep -qE "^[0-9]+ files below '$th'% hidden$" th.txt'
"$R" --source=a/util.c --source=gen.src p.out > only.txt
check "--source=a/util.c --source=gen.src: those two files only" "$(grep '^==>' only.txt)" -- \
    test "$(grep '^==>' only.txt | paste -sd' ')" = "==> a/util.c <== ==> gen.src <=="
"$R" --source=util.c --csv lines p.out | tr -d '\r' | sed 1d | cut -d, -f1 | sort -u > only.txt
check "--source=util.c (the end of two paths): both util.c, in the rows too" "$(cat only.txt)" -- \
    test "$(paste -sd' ' only.txt)" = "a/util.c b/util.c"
"$R" --source="$P/src/b/util.c" p.out > only.txt
check "--source=PATH: that file" "$(grep '^==>' only.txt)" -- test "$(grep '^==>' only.txt)" = "==> b/util.c <=="

# ---- a changed source, a moved tree ----
cp -R proj proj.saved
echo '/* one more line */' >> proj/src/a/util.c
"$R" --source p.out > changed.txt
check "a changed source: said CHANGED, its text not shown, its figures by line number; the others as before" \
    "$(awk '/^==> a\/util.c/,/^$/' changed.txt)" -- \
    bash -c 'awk "/^==> a\/util.c/,/^\$/" changed.txt > a.txt && grep -q "^found as .*/src/a/util.c: CHANGED since it was compiled" a.txt &&
        ! grep -q "s += helper(i);" a.txt && grep -qE "^ +13  \^ calls helper \(a/util.c\): S-S 80," a.txt &&
        diff <(awk "/^==> b\/util.c/,/^\$/" changed.txt) <(awk "/^==> b\/util.c/,/^\$/" src.txt) > /dev/null'
expect_jq "a changed source: --source --json says changed, with the hash now" <("$R" --source --json p.out) \
    '.files[] | select(.file == "a/util.c") | [.status, .found_hash != .hash, .found_bytes - .bytes]' '["changed", true, 20]'
rm -rf proj && mv proj.saved moved
"$R" --source p.out > moved.txt
check "a moved tree: every file not found, said so, figures by line number" \
    "$(grep -E '^(==>|not found)' moved.txt | head -4)" -- \
    bash -c '[ "$(grep -c "^not found (looked for" moved.txt)" = 6 ] && ! grep -q "^found as" moved.txt'
"$R" --source --source-dir "$tmp/elsewhere" --source-dir "$tmp/moved" p.out > dir.txt
python3 "$root/tests/lib/source_check.py" "$R" p.out --source-dir "$tmp/moved" > check.txt 2>&1
check "--source-dir: the moved tree found (the ends of the paths under DIR), unchanged, every figure --json's" \
    "$(grep -E '^(==>|found|not found)' dir.txt)" "$(indent check.txt)" -- \
    bash -c '[ "$(grep -c "^found as '"$tmp"'/moved/.*: unchanged$" dir.txt)" = 5 ] && grep -q "^ok " check.txt'
"$R" --source --source-map "$P=$tmp/moved" p.out > map.txt
check "--source-map OLD=NEW: the moved tree found under NEW, unchanged" "$(grep -E '^(found|not found)' map.txt)" -- \
    bash -c '[ "$(grep -c "^found as '"$tmp"'/moved/.*: unchanged$" map.txt)" = 5 ] && cmp -s <(grep -vE "^(found as|not found)" map.txt) <(grep -vE "^(found as|not found)" dir.txt)'
# nowhere.y could not be read when main.c was compiled: found now, it is shown, said
# unchecked, with sum_to's call under its line 200.
for i in $(seq 1 210); do echo "nowhere line $i"; done > moved/src/nowhere.y
"$R" --source=nowhere.y --source-dir "$tmp/moved" p.out > unchecked.txt
check "a file not read when compiled, found later: shown, 'no hash to check', its figures under its lines" \
    "$(grep -E '^(found|not found)|^ +200 ' unchecked.txt)" -- \
    bash -c 'grep -q "^found as '"$tmp"'/moved/src/nowhere.y: no hash to check (it could not be read when it was compiled): it may have changed since$" unchecked.txt &&
        grep -A1 -E "^ +200  nowhere line 200$" unchecked.txt | grep -q "^        ^ calls sum_to: S-S 1,"'
mkdir -p decoy/src/a && echo 'int a_work;' > decoy/src/a/util.c
"$R" --source --source-dir "$tmp/decoy" --source-dir "$tmp/moved" p.out > decoy.txt
check "--source-dir: a file of the same name that is not the one compiled loses to the one that is" \
    "$(grep '^found as .*a/util.c' decoy.txt)" -- grep -q "^found as $tmp/moved/src/a/util.c: unchanged$" decoy.txt

# ---- a profile of an older writer: no hash to check ----
jq 'del(.sources) | .sections |= map(select(.name != "sources")) | del(.routines[].sources) | del(.sites[].sources)' p.out > old.out
(cd moved/src && "$R" --source "$tmp/old.out") > old.txt
check "a profile without sources: files by their names from here, 'no hash', shown, figures still --json's" \
    "$(grep -E '^(==>|found|not found)' old.txt | head -6)" -- \
    bash -c 'grep -q "^found as main.c: the profile has no hash of it" old.txt &&
        cd moved/src && python3 "'"$root"'/tests/lib/source_check.py" "'"$R"'" "'"$tmp"'/old.out" | grep -q "^ok "'

# ---- bad usage ----
for args in "--source-map nothing" "--source-map =x" "--embed-sources" "--source --paths" "--source --sort calls" \
            "--source --json -b" "--source-dir x" "--source --routine main"; do
    # shellcheck disable=SC2086
    "$R" $args p.out > out.txt 2> err.txt; st=$?
    check "$args: a usage error, exit 2, nothing on stdout" "status $st" "$(indent err.txt 2)" -- \
        bash -c "[ $st = 2 ] && grep -q '^cprof-report: ' err.txt && [ ! -s out.txt ]"
done
"$R" --source=nosuch.c p.out > out.txt 2> err.txt; st=$?
check "--source=nosuch.c: one line, exit 1, nothing on stdout" "status $st" "$(indent err.txt)" -- \
    test $st = 1 -a "$(cat err.txt)" = "cprof-report: no source file named 'nosuch.c' in the profile" -a ! -s out.txt
finish
