#!/usr/bin/env bash
# Selective instrumentation: include/exclude by function or file (option and
# environment), the in-source opt-out, and library calls as leaf routines.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"
mkdir lib
cat > s.c <<'EOF2'
#include <stdio.h>
#include <math.h>
int util(int x);
static int helper(int x) { return x + 1; }
__attribute__((no_instrument_function)) static int quiet(int x) { return helper(x); }
static int noisy(int x) { return helper(x) + quiet(x) + util(x); }
int main(void) { printf("%d %.1f\n", noisy(1), sqrt(16.0)); return 0; }
EOF2
printf 'int util(int x) { return 2 * x; }\n' > lib/util.c
"$plain_cc" -O2 s.c lib/util.c -o ref -lm && ./ref > ref.out

# profile NAME ENV... -- CPROF-CC ARGS: build with cprof-cc, run, report to NAME.json
profile() {
    local name=$1; shift
    local -a envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
    env "${envs[@]}" "$bin/cprof-cc" -O2 "$@" s.c lib/util.c -o "$name" -lm > "$name.err" 2>&1
    CPROF_OUT=$name.prof ./"$name" > "$name.out"
    check "$name: builds silently" "$(indent "$name.err")" -- test ! -s "$name.err"
    check "$name: same output as $plain_cc" "$(indent "$name.out")" -- cmp -s ref.out "$name.out"
    "$bin/cprof-report" --json "$name.prof" > "$name.json" 2>&1
}
names='[.routines[].name] | sort'

profile default --
expect_jq "default: no_instrument_function opts quiet out" default.json "$names" '["helper","main","noisy","util"]'
expect_jq "default: helper called by quiet counts from <external>" default.json \
    '[arc("<external>"; "helper").s_callarc, arc("noisy"; "helper").s_callarc]' '[1, 1]'

profile exfn -- -fcprof-exclude-function='help*,util'
expect_jq "-fcprof-exclude-function=help*,util" exfn.json "$names" '["main","noisy"]'
profile exfn_env CPROF_EXCLUDE_FUNCTIONS='help*,util' --
expect_jq "CPROF_EXCLUDE_FUNCTIONS=help*,util" exfn_env.json "$names" '["main","noisy"]'
profile exfile -- -fcprof-exclude-file='lib/*'
expect_jq "-fcprof-exclude-file=lib/*" exfile.json "$names" '["helper","main","noisy"]'
profile infile CPROF_INCLUDE_FILES=util.c --
expect_jq "CPROF_INCLUDE_FILES=util.c (matches lib/util.c by its last component)" infile.json "$names" '["util"]'
expect_jq "only util profiled: entered from <external>" infile.json \
    '[.arcs[] | [.caller, .callee, .s_callarc]]' '[["<external>","util",1]]'
profile infn -- -fcprof-include-function=main,noisy -fcprof-exclude-function=main
expect_jq "include main,noisy then exclude main" infn.json "$names" '["noisy"]'

profile libcalls -- -fcprof-libcalls
expect_jq "-fcprof-libcalls: printf and sqrt as leaf routines under <library>" libcalls.json \
    '[.routines[] | select(.file == "<library>") | [.name, .line, .s_caller]]' '[["printf",0,1],["sqrt",0,1]]'
expect_jq "-fcprof-libcalls: arcs from main" libcalls.json \
    '[arc("main"; "printf").s_callarc, arc("main"; "sqrt").s_callarc]' '[1, 1]'
profile fortify -- -fcprof-libcalls -D_FORTIFY_SOURCE=2
if [ "$plain_cc" = gcc ]; then
    expect_jq "-fcprof-libcalls with _FORTIFY_SOURCE: printf (an extern inline wrapper) still a leaf" fortify.json \
        '[.routines[] | select(.file == "<library>") | [.name, .s_caller]]' '[["printf",1],["sqrt",1]]'
else
    # glibc fortifies printf for clang with a macro: the call is __printf_chk's, a name
    # reserved to the implementation, which is no leaf of the program's.
    expect_jq "-fcprof-libcalls with _FORTIFY_SOURCE: printf is glibc's macro for __printf_chk under $plain_cc, no leaf" \
        fortify.json '[.routines[] | select(.file == "<library>") | [.name, .s_caller]]' '[["sqrt",1]]'
fi
profile libcalls_env CPROF_LIBCALLS=1 --
expect_jq "CPROF_LIBCALLS=1" libcalls_env.json '[.routines[] | select(.file == "<library>") | .name]' '["printf","sqrt"]'
finish
