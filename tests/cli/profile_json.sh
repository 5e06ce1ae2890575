#!/usr/bin/env bash
# The runtime's JSON writer (runtime/core/json.c): strings escaped exactly (a quote, a
# backslash, a control character) and a byte that is not UTF-8 replaced by U+FFFD, so
# that the profile of a source with such a name stays JSON; reals stay reals.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

name=$(printf 'a"b\\c\xff\x01.c')
printf '#include <stdio.h>\nstatic int f(int x) { for (int i = 0; i < 2; i++) x += i; return x; }\nint main(void) { printf("%%d\\n", f(1)); return 0; }\n' > "$name"
"$bin/cprof-cc" -O2 "$name" -o prog > cc.err 2>&1 || nok "build a source named a\"b\\\\c<FF><01>.c" "$(indent cc.err)"
CPROF_OUT=$tmp/p.out ./prog > /dev/null
check "the profile is JSON" "$(head -c 200 p.out)" -- eval 'jq -e . p.out > /dev/null'
check "the file name written escaped, its stray byte as \\ufffd" "$(grep -o '"file":"[^,]*' p.out | head -1)" -- \
    grep -qF '"file":"a\"b\\c\ufffd\u0001.c"' p.out
check "cprof-report reads it: both routines in that file" -- \
    eval "[ \"\$('$bin/cprof-report' --json p.out | jq -c '[.routines[] | .file] | unique | length')\" = 1 ]"
check "call_cost_ns and count_cost_ns are reals" "$(head -c 300 p.out)" -- \
    eval "jq -e '(.call_cost_ns | type) == \"number\" and (.count_cost_ns | type) == \"number\"' p.out > /dev/null && grep -qE '\"call_cost_ns\":[0-9]+(\\.[0-9]+|e[-+]?[0-9]+|\\.[0-9]+e[-+]?[0-9]+)[,}]' p.out"
finish
