#!/usr/bin/env bash
# Constructs the rewriter cannot handle: the file (or function) is compiled exactly as
# gcc would, with one warning naming file:line, and the rest of the program is profiled.
# Never silently: the program registers each unit compiled without profiling, the
# profile lists it with the reason, cprof-report's summary, --json and --html say so;
# -fcprof-strict (CPROF_STRICT=1) makes it a compile error.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

# GNU nested functions: libclang rejects them, gcc accepts them (clang does not: under
# clang cprof-cc fails as clang does, its status and its diagnostics).
if [ "$plain_cc" != gcc ]; then
printf 'int main(void)\n{\n    int add(int y) { return y; }\n    return add(0);\n}\n' > nest.c
"$plain_cc" -O2 nest.c -o ref 2> ref.err; rst=$?
"$bin/cprof-cc" -O2 nest.c -o prog 2> cc.err; st=$?
check "nested function: fails as $plain_cc does (status $rst), with its diagnostics" \
    "status $st" "$(indent cc.err)" -- eval '[ $st = $rst ] && [ $st != 0 ] && cmp -s ref.err cc.err'
else
cat > nest.c <<'EOF2'
#include <stdio.h>
int twice(int x);
int main(void)
{
    int base = 10;
    int add(int y) { return base + y; }
    printf("%d %d\n", add(1), twice(2));
    return 0;
}
EOF2
cat > other.c <<'EOF2'
static int half(int x) { return x / 2; }
int twice(int x) { return 2 * x + half(0); }
EOF2
gcc -O2 nest.c other.c -o ref && ./ref > ref.out
"$bin/cprof-cc" -O2 nest.c other.c -o prog 2> cc.err; st=$?
check "nested function: builds (status $st)" "$(indent cc.err)" -- [ $st = 0 ]
check "nested function: exactly one warning, naming nest.c:6" "$(indent cc.err)" -- \
    test "$(wc -l < cc.err)" = 1 -a "$(grep -c '^cprof-cc: nest\.c:6: warning: libclang: .*; compiled without profiling$' cc.err)" = 1
CPROF_OUT=prof.out ./prog > prog.out; st=$?
check "nested function: same output and status as gcc" "status $st" "$(indent prog.out)" -- \
    cmp -s ref.out prog.out

# A unit that includes <cprof.h> falls back too: the header is found, its calls do
# nothing (the fallback once compiled without cprof's include directory, and failed).
cat > nestctl.c <<'EOF2'
#include <stdio.h>
#include <cprof.h>
int main(void)
{
    int base = 1;
    int add(int y) { return base + y; }
    cprof_region_begin("r");
    printf("%d\n", add(1));
    cprof_region_end();
    return cprof_write();
}
EOF2
"$bin/cprof-cc" -O2 nestctl.c -o nestctl 2> ctl.err; st=$?
check "a unit including <cprof.h> falls back and builds (status $st)" "$(indent ctl.err)" -- \
    bash -c "[ $st = 0 ] && grep -q 'compiled without profiling' ctl.err && [ \"\$(./nestctl)\" = 2 ]"
"$bin/cprof-report" --json prof.out > report.json 2> report.err
expect_jq "nested function: other.c profiled, nest.c not" report.json \
    '[.routines[] | [.name, .file, .s_caller]]' '[["half","other.c",1],["twice","other.c",1]]'
expect_jq "nested function: twice entered from <external>" report.json \
    '[.arcs[] | [.caller, .callee, .s_callarc]]' '[["<external>","twice",1],["twice","half",1]]'
nest_reason='libclang: function definition is not allowed here, line 6'
expect_jq "nested function: the profile lists nest.c, not profiled, and why" prof.out \
    '[.unprofiled, ([.sections[].name] | index("unprofiled") != null)]' \
    "[[{\"file\": \"nest.c\", \"reason\": \"$nest_reason\"}], true]"
expect_jq "nested function: --json's unprofiled" report.json '.unprofiled' \
    "[{\"file\": \"nest.c\", \"reason\": \"$nest_reason\"}]"
"$bin/cprof-report" prof.out > report.txt
check "nested function: the summary says 1 unit not profiled: nest.c (reason)" "$(indent report.txt 6)" -- \
    grep -qx "units not profiled  *1 unit not profiled: nest.c ($nest_reason)" report.txt
"$bin/cprof-report" --html prof.out > page.html
browser=$(command -v chromium || command -v chromium-browser)
if [ -n "$browser" ]; then
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chromium" \
        --dump-dom "file://$tmp/page.html" 2> /dev/null | tr '\n' ' ' > dom.html
    check "--html: the page says first that nest.c is not profiled, and why" \
        "$(grep -o '<main>.\{0,200\}' dom.html)" -- \
        grep -q "<main><p class=\"note\" id=\"unprofiled\">1 unit not profiled: nest.c ($nest_reason)\.  cprof-cc compiled" dom.html
else
    skip "--html: the page says first that nest.c is not profiled, and why" "chromium is not installed (make deps)"
fi
"$bin/cprof-report" prof.out prof.out > twice.txt
check "two runs summed: the unit listed once" "$(grep 'not profiled' twice.txt)" -- \
    grep -qx "units not profiled  *1 unit not profiled: nest.c ($nest_reason)" twice.txt

# A program whose only unit falls back still writes its profile, which says so.
printf 'int twice(int x) { return 2 * x; }\n' > twice.c
gcc -O2 -c twice.c -o plain.o
"$bin/cprof-cc" -O2 nest.c plain.o -o alone 2> alone.err
CPROF_OUT=alone.out ./alone > alone.txt 2>&1; st=$?
check "only unit not profiled: the program runs as gcc's (status $st)" "$(indent alone.txt)" -- \
    bash -c "[ $st = 0 ] && cmp -s ref.out alone.txt"
expect_jq "only unit not profiled: a profile, no routine, the unit listed" alone.out \
    '[(.routines | length), (.unprofiled | map(.file))]' '[0, ["nest.c"]]'

# -fcprof-strict, and its variable for builds one does not control: the fallback is an
# error (one line, status 1, no output); a real error stays gcc's.
"$bin/cprof-cc" -O2 -fcprof-strict -c nest.c -o strict.o 2> strict.err; st=$?
check "-fcprof-strict: status 1, one error line, no object" "status $st" "$(indent strict.err)" "$(ls strict.o 2>&1)" -- \
    bash -c "[ $st = 1 ] && [ ! -e strict.o ] && [ \"\$(cat strict.err)\" = 'cprof-cc: nest.c:6: error: libclang: function definition is not allowed here; not compiled (-fcprof-strict)' ]"
CPROF_STRICT=1 "$bin/cprof-cc" -O2 nest.c other.c -o strictenv 2> strictenv.err; st=$?
check "CPROF_STRICT=1: status 1, no program" "status $st" "$(indent strictenv.err)" -- \
    bash -c "[ $st = 1 ] && [ ! -e strictenv ] && grep -q '^cprof-cc: nest.c:6: error: .*(-fcprof-strict)$' strictenv.err"
CPROF_STRICT=1 "$bin/cprof-cc" -O2 -fno-cprof-strict -c nest.c -o nostrict.o 2> nostrict.err; st=$?
check "-fno-cprof-strict overrides CPROF_STRICT=1" "status $st" "$(indent nostrict.err)" -- \
    bash -c "[ $st = 0 ] && [ -s nostrict.o ] && grep -q 'compiled without profiling$' nostrict.err"
printf 'int main(void) { int add(int y) { return y; } return add(0) }\n' > bad.c
gcc -c bad.c -o bad.o 2> bad.gcc; gst=$?
"$bin/cprof-cc" -fcprof-strict -c bad.c -o bad.o 2> bad.err; st=$?
check "-fcprof-strict, a real error: gcc's diagnostics and status ($gst)" "status $st" "$(diff bad.gcc bad.err | indent /dev/stdin)" -- \
    bash -c "[ $st = $gst ] && cmp -s bad.gcc bad.err"

# Standard input, C++, assembly output, and an instrumented unit gcc refused.
"$bin/cprof-cc" -O2 -x c - -x none plain.o -o fromstdin < nest.c 2> stdin.err
CPROF_OUT=stdin.out ./fromstdin > /dev/null
expect_jq "standard input: listed as <stdin>" stdin.out '.unprofiled' \
    '[{"file": "<stdin>", "reason": "libclang: function definition is not allowed here, line 6"}]'
printf '#include <cstdio>\nextern "C" int twice(int);\nint main() { std::printf("%%d\\n", twice(4)); return 0; }\n' > cx.cc
g++ -MD -MP cx.cc twice.c -o cxref 2> /dev/null && mv cxref.d cxref.dep
"$bin/cprof-cc" -O2 -MD -MP cx.cc twice.c -o cxref 2> cx.err; st=$?
check "C++: one warning" "status $st" "$(indent cx.err)" -- \
    bash -c "[ $st = 0 ] && [ \"\$(cat cx.err)\" = 'cprof-cc: cx.cc: warning: C++ is not profiled; compiled without profiling' ]"
CPROF_OUT=cx.out ./cxref > cx.txt
expect_jq "C++: listed, twice profiled and entered from <external>" cx.out \
    '[.unprofiled, [.routines[].name]]' '[[{"file": "cx.cc", "reason": "C++ is not profiled"}], ["twice"]]'
deps() { tr -d '\\\n' < "$1" | tr ' ' '\n' | grep -v '^$' | sort; }
check "C++ -MD -MP: g++'s prerequisites and targets, no temporary file" "$(diff <(deps cxref.dep) <(deps cxref.d) | head -5)" -- \
    bash -c "cmp -s <(deps cxref.dep) <(deps cxref.d) && ! grep -q cprof cxref.d"
"$bin/cprof-cc" -S nest.c -o nest.s 2> s.err
check "-S: the assembly registers the unit" "$(indent s.err)" -- grep -q 'cprof_register_unprofiled_v9' nest.s
# A gcc that refuses the instrumented text (as for a construct the rewriter gets wrong):
# back to gcc's compile of the source, the reason gcc's first error.
printf '#!/bin/sh\nfor a; do case $a in *.cprof.i) echo "$a:1:1: error: refused" >&2; exit 1;; esac; done\nexec gcc "$@"\n' > picky
chmod +x picky
printf '#include <stdio.h>\nint main(void) { puts("pk"); return 0; }\n' > pk.c
CPROF_GCC=$tmp/picky "$bin/cprof-cc" -O2 -c pk.c -o pk.o 2> picky.err; st=$?
check "instrumented code refused: one warning, gcc's object" "status $st" "$(indent picky.err)" -- \
    bash -c "[ $st = 0 ] && [ -s pk.o ] && grep -q '^cprof-cc: pk.c: warning: the instrumented code did not compile (.*error: refused); compiled without profiling$' picky.err"
"$bin/cprof-cc" pk.o -o pk 2> /dev/null && CPROF_OUT=pk.out ./pk > /dev/null
expect_jq "instrumented code refused: listed with gcc's error" pk.out \
    '[.unprofiled[] | [.file, (.reason | test("^the instrumented code did not compile \\(.*error: refused\\)$"))]]' '[["pk.c", true]]'
fi

# A C99 inline definition with external linkage may not refer to the unit's static
# tables: that function alone is not profiled, with one warning.
cat > inl.c <<'EOF2'
#include <stdio.h>
inline int sq(int x) { return x * x; }
extern int sq(int x);
static int use(int x) { return sq(x) + 1; }
int main(void) { printf("%d\n", use(3)); return 0; }
EOF2
"$plain_cc" -O2 inl.c -o ref2 && ./ref2 > ref2.out
"$bin/cprof-cc" -O2 inl.c -o inl 2> inl.err; st=$?
check "external inline: builds (status $st)" "$(indent inl.err)" -- [ $st = 0 ]
check "external inline: one warning naming inl.c:2 and sq" "$(indent inl.err)" -- \
    test "$(wc -l < inl.err)" = 1 -a "$(grep -c "^cprof-cc: inl\.c:2: warning: inline function 'sq' with external linkage is not profiled$" inl.err)" = 1
CPROF_OUT=inl.prof ./inl > inl.out
check "external inline: same output as $plain_cc" "$(indent inl.out)" -- cmp -s ref2.out inl.out
"$bin/cprof-report" --json inl.prof > inl.json
expect_jq "external inline: main and use profiled, sq not" inl.json \
    '[.routines[] | [.name, .s_caller, .s_callee]]' '[["main",1,1],["use",1,0]]'
finish
