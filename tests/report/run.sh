#!/bin/bash
# Tests of cprof-report (reports/): exact --json output for hand-checked fixtures,
# merging, and the handling of bad input.  Prints "ok - name" / "not ok - name" per
# check and a summary; exits non-zero if any check failed.
#   tests/report/run.sh            uses build/bin/cprof-report
#   CPROF_REPORT=path tests/report/run.sh
# The expected outputs (expected/*.json) were computed by hand from the fixtures; they
# are in the exact layout of --json (jansson, 2-space indent, key order of
# docs/report-json.md).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
report=${CPROF_REPORT:-$root/build/bin/cprof-report}
fx=$here/fixtures
exp=$here/expected

command -v jq >/dev/null || { echo "run.sh: jq is needed (apt-get install -y jq)" >&2; exit 2; }
[ -x "$report" ] || { echo "run.sh: no $report (make build/bin/cprof-report)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/lib/tap.sh"

# run ARGS...: run the tool; output in $tmp/out, $tmp/err, status in $rc.
run() {
    "$report" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# exact EXPECTED FILE...: --json output of FILE... is EXPECTED, byte for byte.
exact() {
    local want=$1; shift
    run --json "$@"
    [ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && cmp -s "$want" "$tmp/out" ||
        { diff "$want" "$tmp/out" | head -20 >&2; return 1; }
}

check "basic.json exact output" exact "$exp/basic.json" "$fx/basic.json"
check "other.json exact output" exact "$exp/other.json" "$fx/other.json"
# basic.json and other.json are profiles of two programs (sc, sc2): summed with --force.
check "basic.json + other.json exact output (--force)" exact "$exp/basic-other.json" --force "$fx/basic.json" "$fx/other.json"
refuse() {
    run --json "$fx/basic.json" "$fx/other.json"
    [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] &&
    [ "$(cat "$tmp/err")" = "cprof-report: $fx/other.json: a profile of /home/u/sc2, not of /home/u/sc like $fx/basic.json (--force sums them anyway)" ]
}
check "profiles of two programs: refused without --force" refuse
check "profiles of two programs: the text report refuses too" \
    eval 'run "$fx/basic.json" "$fx/other.json"; [ "$rc" = 1 ] && [ ! -s "$tmp/out" ]'
check "one program's two files: programs lists it once with 2 files" \
    eval 'run --json "$fx/basic.json" "$fx/basic.json" && [ "$(jq -c .programs "$tmp/out")" = '"'"'[{"program":"/home/u/sc","files":2}]'"'"' ]'


# Summing a file with itself doubles every count and time, and nothing else.
doubled() {
    run --json "$1" "$1" && cp "$tmp/out" "$tmp/twice" && run --json "$1" || return 1
    jq -S '
      def keep: IN("line", "max_depth", "version", "files", "id", "tid", "omp_thread",
                   "pu", "core", "pus", "cores", "packages", "start_unix_ns", "call_cost_ns");
      reduce (paths(numbers) | select(map(strings) | last | keep | not)) as $p
        (.; setpath($p; getpath($p) * 2))
      | .files = 2 | .programs[0].files = 2' "$tmp/out" >"$tmp/want" && [ -s "$tmp/want" ] &&
    jq -S . "$tmp/twice" | cmp -s "$tmp/want" -
}
check "basic.json twice doubles counts and times" doubled "$fx/basic.json"
check "other.json twice doubles counts and times" doubled "$fx/other.json"

# The order of the files changes only what comes from the first file.
order_free() {
    run --json --force "$fx/basic.json" "$fx/other.json" && jq -S '{routines, arcs}' "$tmp/out" >"$tmp/ab" && [ -s "$tmp/ab" ] &&
    run --json --force "$fx/other.json" "$fx/basic.json" && jq -S '{routines, arcs}' "$tmp/out" | cmp -s "$tmp/ab" -
}
check "routines and arcs do not depend on the order of files" order_free

# bad NAME FILE [MESSAGE] [GOOD-FILE-FIRST]: exit 1, empty stdout, one line on stderr
# "cprof-report: FILE: ..." (exactly "cprof-report: FILE: MESSAGE" if MESSAGE is given).
bad() {
    local file=$1 msg=${2:-} first=${3:-}
    run --json $first "$file"
    [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] || return 1
    if [ -n "$msg" ]; then
        [ "$(cat "$tmp/err")" = "cprof-report: $file: $msg" ]
    else
        case $(cat "$tmp/err") in "cprof-report: $file: "?*) ;; *) return 1 ;; esac
    fi
}

# variant NAME JQ-FILTER: a copy of basic.json changed by the filter.
variant() {
    jq "$2" "$fx/basic.json" >"$tmp/$1.json"
    echo "$tmp/$1.json"
}

check "bad: missing file" bad "$tmp/missing.json" "cannot open: No such file or directory"
: >"$tmp/empty.json"
check "bad: empty file" bad "$tmp/empty.json" "empty file"
check "bad: directory" bad "$tmp" "cannot read: Is a directory"
head -c 700 "$fx/basic.json" >"$tmp/truncated.json"
check "bad: truncated" bad "$tmp/truncated.json"
case $(cat "$tmp/err") in *"not a cprof profile (truncated or corrupted JSON at line "*) r=0 ;; *) r=1 ;; esac
check "bad: truncated says where" test $r = 0
printf '\x7fELF\x02\x01\x01\0\0\0garbage\n' >"$tmp/garbage.json"
check "bad: garbage" bad "$tmp/garbage.json"
echo '[1, 2, 3]' >"$tmp/array.json"
check "bad: JSON but not an object" bad "$tmp/array.json" \
    "not a cprof profile (the JSON document is not an object)"
check "bad: wrong format" bad "$(variant format '.format = "gmon"')" \
    'not a cprof profile ("format" is not "cprof-profile")'
check "bad: wrong version" bad "$(variant version '.version = 7')" \
    "unsupported profile version 7 (this cprof-report reads versions 1 to 2)"
check "bad: version not an integer" bad "$(variant version-str '.version = "1"')"
check "bad: routine index out of range" bad "$(variant routine-idx '.workers[0].routines[1][0] = 7')" \
    "invalid profile: workers[0].routines[1]: column 0: index 7 out of range (7 routines)"
check "bad: call site index out of range" bad "$(variant site-idx '.workers[1].calls[0][0] = 8')"
check "bad: callee index out of range" bad "$(variant callee-idx '.workers[1].calls[0][1] = 99')"
check "bad: site caller out of range" bad "$(variant site-caller '.sites[2].caller = 7')" \
    "invalid profile: sites[2]: caller index 7 out of range (7 routines)"
check "bad: calls row with 13 columns" bad "$(variant short-row '.workers[0].calls[2] |= .[1:]')"
check "bad: calls row with 16 columns" bad "$(variant long-call '.workers[0].calls[0] += [0, 0]')" \
    "invalid profile: workers[0].calls[0] is not an array of 22 (or 14) integers"
check "bad: calls row with 23 columns" bad "$(variant longer-call '.workers[0].calls[0] += [0, 0, 0, 0, 0, 0, 0, 0, 0]')"
check "bad: calls row with 10 columns (older layout)" bad "$(variant old-call '.workers[0].calls[0] |= .[:10]')" \
    "invalid profile: workers[0].calls[0] is not an array of 22 (or 14) integers"
check "bad: routines row with 19 columns" bad "$(variant long-row '.workers[0].routines[0] += [0]')"
check "bad: routines row with 25 columns" bad "$(variant longer-row '.workers[0].routines[0] += [0, 0, 0, 0, 0, 0, 0]')"
check "bad: routines row with 12 columns (older layout)" bad "$(variant old-row '.workers[0].routines[0] |= .[:12]')" \
    "invalid profile: workers[0].routines[0] is not an array of 24 (or 18) integers"
check "bad: routines row with 10 columns (oldest layout)" bad "$(variant older-row '.workers[0].routines[0] |= .[:10]')"
check "bad: negative nested-call count" bad "$(variant negative-nested '.workers[0].calls[1][11] = -1')" \
    "invalid profile: workers[0].calls[1]: column 11 is negative"
check "bad: negative self time" bad "$(variant negative-self '.workers[1].routines[0][11] = -1')" \
    "invalid profile: workers[1].routines[0]: column 11 is negative"
check "bad: no call_cost_ns" bad "$(variant no-cost 'del(.call_cost_ns)')" \
    'invalid profile: the profile has no "call_cost_ns"'
check "bad: string call_cost_ns" bad "$(variant str-cost '.call_cost_ns = "19"')" \
    'invalid profile: the profile: "call_cost_ns" is not a number'
int_cost=$(variant int-cost '.call_cost_ns = 19')
check "an integer call_cost_ns is a number (19 is 19.0)" \
    eval 'run --json "$int_cost" && [ "$rc" = 0 ] && [ "$(jq .call_cost_ns "$tmp/out")" = 19 ]'
check "bad: negative call_cost_ns" bad "$(variant neg-cost '.call_cost_ns = -1.5')" \
    'invalid profile: the profile: "call_cost_ns" is below 0'
check "bad: negative count" bad "$(variant negative '.workers[0].calls[1][4] = -3')" \
    "invalid profile: workers[0].calls[1]: column 4 is negative"
check "bad: real where an integer must be" bad "$(variant real '.workers[1].routines[0][2] = 1.5')"
check "bad: string where an integer must be" bad "$(variant string '.routines[2].line = "1"')" \
    'invalid profile: routines[2]: "line" is not an integer'
check "bad: worker without id" bad "$(variant no-id 'del(.workers[1].id)')" \
    'invalid profile: workers[1] has no "id"'
check "bad: duplicate worker id" bad "$(variant dup-id '.workers[1].id = 1')" \
    "invalid profile: workers[1]: duplicate worker id 1"
check "bad: worker id beyond the workers" bad "$(variant big-id '.workers[1].id = 2')"
check "bad: unexpected key" bad "$(variant extra-key '.sites[0].weight = 1')" \
    'invalid profile: sites[0] has an unexpected key "weight"'
check "bad: missing table" bad "$(variant no-sites 'del(.sites)')"
check "bad: machine not an object" bad "$(variant machine '.machine = 2')"
check "bad: duplicate key" bad "$(printf '{"format": "cprof-profile", "format": "x"}' >"$tmp/dupkey.json"; echo "$tmp/dupkey.json")"
check "bad: second of two files" bad "$tmp/empty.json" "empty file" "$fx/basic.json"
check "bad: newline in a key stays on one line" bad "$(variant newline-key '.sites[0]["a\nb"] = 1')"
# (sed, not jq: jq may round integers this large)
sed 's/\[0, 1, 10000,/[0, 9223372036854775807, 10000,/' "$fx/basic.json" >"$tmp/overflow.json"
check "bad: counts overflow when summed" bad "$tmp/overflow.json" \
    "counts or times overflow 64 bits when summed" "$fx/basic.json"
# A sum the views make (a routine's sequential and concurrent calls, every routine's
# calls) past 2^63-1, from counts that each fit: printed as 2^63-1 and said in one
# warning line, exit 0, in every output; no warning where no sum passes it.
sed 's/\[2, 1, 300, 3, 1500,/[2, 9223372036854775807, 300, 3, 1500,/' "$fx/basic.json" >"$tmp/clamp.json"
clamped() {
    run "$@" "$tmp/clamp.json"
    [ "$rc" = 0 ] && grep -q 9223372036854775807 "$tmp/out" && [ "$(wc -l <"$tmp/err")" = 1 ] &&
        grep -q '^cprof-report: warning: a sum of counts or times passed 2^63-1' "$tmp/err"
}
for how in "" "--csv flat" "--csv callgraph" --dot --html; do
    check "a sum past 2^63-1 (leaf's calls): printed clamped and said in one line: ${how:-text}" clamped $how
done
check "no sum past 2^63-1: no warning" eval 'run "$fx/basic.json"; [ "$rc" = 0 ] && [ ! -s "$tmp/err" ]'
check "--json, whose figures each fit (leaf's s_caller 2^63-1 exact): no warning" \
    eval 'run --json "$tmp/clamp.json"; [ "$rc" = 0 ] && [ ! -s "$tmp/err" ]'

# The workers' rows are read from the text (reports/rows.c) where they are arrays of
# plain integers, and by jansson otherwise: what is read, and what a bad file is told,
# does not depend on which.
check "rows in any spacing: the same report" exact "$exp/basic.json" \
    "$(tr -d '\n' < "$fx/basic.json" | sed 's/, */ ,\n\t/g; s/\[/[ \r\n/g' > "$tmp/spaced.json"; echo "$tmp/spaced.json")"
check "tables keyed with an escape (read by jansson): the same report" exact "$exp/basic.json" \
    "$(sed 's/"routines": \[ \[/"rout\\u0069nes": [ [/; s/"calls": /"c\\u0061lls": /' "$fx/basic.json" > "$tmp/escaped.json"; echo "$tmp/escaped.json")"
sed 's/\[0, 1, 10000,/[0, 92233720368547758070, 10000,/' "$fx/basic.json" > "$tmp/big.json"
check "bad: an integer beyond 64 bits in a row: jansson's message, the file's line" bad "$tmp/big.json" \
    "not a cprof profile (truncated or corrupted JSON at line 43, column 44: too big integer near '92233720368547758070')"
check "bad: a row's real, after rows read from the text: its place" bad \
    "$(sed 's/\[1, 2, 0, 0, 3, 1700,/[1, 2, 0, 0, 3, 1700.5,/' "$fx/basic.json" > "$tmp/real.json"; echo "$tmp/real.json")" \
    "invalid profile: workers[0].calls[0]: column 5 is not an integer"

# --keep-going: each bad file is one warning line naming it, the others are summed, and
# the report counts the files left out.
keep_going() {
    run --json --keep-going "$fx/basic.json" "$tmp/empty.json" "$tmp/truncated.json" "$fx/other.json" "$fx/basic.json"
    [ "$rc" = 0 ] && [ "$(wc -l <"$tmp/err")" = 3 ] &&
    [ "$(sed -n 1p "$tmp/err")" = "cprof-report: warning: $tmp/empty.json: empty file (left out)" ] &&
    case $(sed -n 2p "$tmp/err") in "cprof-report: warning: $tmp/truncated.json: not a cprof profile (truncated"*"(left out)") ;; *) false ;; esac &&
    case $(sed -n 3p "$tmp/err") in "cprof-report: warning: $fx/other.json: a profile of /home/u/sc2, not of /home/u/sc"*) ;; *) false ;; esac &&
    jq 'del(.files_skipped)' "$tmp/out" >"$tmp/kept" && [ "$(jq .files_skipped "$tmp/out")" = 3 ] &&
    run --json "$fx/basic.json" "$fx/basic.json" && jq 'del(.files_skipped)' "$tmp/out" | cmp -s "$tmp/kept" -
}
check "--keep-going: bad files left out with one warning each, the rest summed" keep_going
check "--keep-going: the summary counts the files left out" \
    eval 'run --keep-going "$tmp/empty.json" "$fx/basic.json" && [ "$rc" = 0 ] &&
          grep -qxE "profile files +1" "$tmp/out" && grep -qxE "  left out \(bad\) +1" "$tmp/out"'
check "--keep-going: no usable file: exit 1 and says so" \
    eval 'run --keep-going "$tmp/empty.json" "$tmp/truncated.json"; [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] &&
          [ "$(tail -n 1 "$tmp/err")" = "cprof-report: $tmp/empty.json: none of the 2 profile files could be used" ]'
check "without --keep-going: the first bad file stops the report" \
    eval 'run --json "$fx/basic.json" "$tmp/empty.json" "$fx/basic.json"; [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] &&
          [ "$(cat "$tmp/err")" = "cprof-report: $tmp/empty.json: empty file" ]'

# Bad input gets the same treatment from the text report and from --csv.
badtext() {
    run "$@"
    [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
        grep -q '^cprof-report: ' "$tmp/err"
}
check "text report: missing file" badtext "$tmp/missing.json"
check "text report: empty file" badtext "$tmp/empty.json"
check "text report: truncated file" badtext "$tmp/truncated.json"
check "text report: garbage" badtext "$tmp/garbage.json"
check "text report: wrong version" badtext "$tmp/version.json"
check "--csv flat: garbage" badtext --csv flat "$tmp/garbage.json"
check "--routine naming no routine" badtext --routine nosuch "$fx/loop.json"
[ "$(cat "$tmp/err")" = "cprof-report: no routine named 'nosuch' in the profile" ]
check "--routine naming no routine: the message" test $? = 0

# Command line.
usage() { run "$@"; [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && grep -q '^usage: cprof-report' "$tmp/err"; }
help() { run --help; [ "$rc" = 0 ] && grep -q '^usage: cprof-report' "$tmp/out" && [ ! -s "$tmp/err" ]; }
check "--help" help
# No file: ./cprof.out, as gprof reads ./gmon.out.
default_file() {
    mkdir -p "$tmp/cwd" && cd "$tmp/cwd" || return 1
    rm -f cprof.out; run --json
    [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] &&
        [ "$(cat "$tmp/err")" = "cprof-report: cprof.out: cannot open: No such file or directory" ] &&
    cp "$fx/basic.json" cprof.out && run --json && [ "$rc" = 0 ] && cmp -s "$exp/basic.json" "$tmp/out"
    local r=$?; cd "$here"; return $r
}
check "no file: reads ./cprof.out" default_file
check "unknown option: usage" usage --jsn "$fx/basic.json"
check "option with an argument: usage" usage --json=yes "$fx/basic.json"
check "--json with a text option: usage" usage --json -b "$fx/basic.json"
check "--json with --compensate: no usage error" eval 'run --json --compensate "$fx/basic.json" && [ "$rc" = 0 ]'
check "unknown --csv section: usage" usage --csv flats "$fx/loop.json"
check "unknown --sort key: usage" usage --sort time "$fx/loop.json"
check "--threshold above 100: usage" usage --threshold 101 "$fx/loop.json"
check "--threshold not a number: usage" usage --threshold ten "$fx/loop.json"

# consistency.sh (issue 18): every profile of the fuzz corpus that cprof-report reads
# passes it; a report doctored to break one rule fails it, naming the rule.
consistent() { CPROF_BIN=$(dirname "$report") "$here/consistency.sh" "$@" > "$tmp/cons" 2>&1; }

. "$here/text.sh"
. "$here/compensate.sh"
. "$here/job.sh"
. "$here/regions.sh"
. "$here/modes.sh"
. "$here/sampled.sh"

for f in "$root"/tests/fuzz/corpus/*; do
    "$report" --json "$f" > /dev/null 2>&1 || continue
    check "consistency.sh passes on corpus/$(basename "$f")" consistent "$f"
done
"$report" --json "$root/tests/fuzz/corpus/v1-rec-real.json" > "$tmp/rec.json"
doctored() {  # doctored JQ_EDIT MESSAGE: the edited report fails, with MESSAGE
    jq "$1" "$tmp/rec.json" > "$tmp/doctored.json" &&
    ! consistent "$tmp/doctored.json" && grep -q -- "$2" "$tmp/cons" ||
        { cat "$tmp/cons" >&2; return 1; }
}
check "consistency.sh passes on the report of corpus/v1-rec-real.json" consistent "$tmp/rec.json"
check "consistency.sh fails: worker self above worker inclusive" doctored \
    '(.routines[] | select(.name == "fib")).self_worker_t += 1000000' 'fib (.*): worker self .* > worker inclusive'
check "consistency.sh fails: wall self above wall inclusive" doctored \
    '(.routines[] | select(.name == "main")).self_wall_t += 1000000' 'main (.*): wall self .* > wall inclusive'
check "consistency.sh fails: worker inclusive above elapsed x workers" doctored \
    '.elapsed_ns = 1000' 'worker inclusive .* > elapsed x workers'
check "consistency.sh fails: a child above the arcs into it" doctored \
    '(.arcs[] | select(.caller == "main" and .callee == "fib")).c_callarc_outer_t = 0' \
    'fib (.*): worker inclusive .* the outer time of the arcs into it'
check "consistency.sh fails: wall inclusive above the arcs' sequential time" doctored \
    '(.arcs[] | select(.caller == "main" and .callee == "fib")).s_callarc_outer_t = 0' \
    'fib (.*): wall inclusive .* the sequential outer time of the arcs into it'
check "consistency.sh fails: an arc's outer time above elapsed x workers" doctored \
    '(.arcs[] | select(.caller == "main" and .callee == "fib")).c_callarc_outer_t = 1e15' \
    'arc main -> fib: outer time'
check "consistency.sh fails: a site's calls by case that do not add up to its s and c calls" doctored \
    '(.arcs[] | select(.caller == "main" and .callee == "fib")).sites[0].case_calls[1] += 1' \
    'site .* of main -> fib: calls by case'

# The rules of times not measured and of the calling contexts' worker times (7, 8) on a
# profile that has them (a counted routine, a region opener, recursive tasks).
self_paths=$root/tests/fuzz/corpus/v2-self-paths.json
"$report" --json "$self_paths" > "$tmp/rec.json"
check "consistency.sh passes on corpus/v2-self-paths.json and on its report" \
    consistent "$self_paths" "$tmp/rec.json"
check "consistency.sh fails: a counted routine's time given as 0" doctored \
    '(.routines[] | select(.name == "leaf")).self_worker_t = 0' 'leaf (.*): its times are not all null'
check "consistency.sh fails: a measured time given as null" doctored \
    '(.routines[] | select(.name == "spin")).inclusive_worker_t = null' 'spin (.*): its times are null, though measured'
check "consistency.sh fails: an arc into a counted routine with a time of 0" doctored \
    '(.arcs[] | select(.callee == "leaf")).s_callarc_t = 0' 'arc spin -> leaf: its times are not null'
check "consistency.sh fails: a context above its parent" doctored \
    '(.paths[] | select(.routine == "<parallel>")).inclusive_worker_t *= 1000' \
    'inclusive .* > its parent'
check "consistency.sh fails: a context's inclusive time not its self plus its children's" doctored \
    '(.paths[] | select(.routine == "fib" and .folds_into == .id)).self_worker_t += 5' \
    'inclusive .* != self .* + its children'
check "consistency.sh fails: the contexts' self times above elapsed x workers" doctored \
    '.paths[0].self_worker_t += 1e12 | .paths[0].inclusive_worker_t += 1e12' \
    'call paths: self times add up to .* > elapsed x workers'
check "consistency.sh fails: the contexts' self times below the flat profile's" doctored \
    '(.routines[] | select(.name == "main")).self_worker_t *= 3' \
    "call paths: self times add up to .* < the flat profile's"

placement=$root/tests/fuzz/corpus/v2-placement.json
"$report" --json "$placement" > "$tmp/rec.json"
check "consistency.sh passes on corpus/v2-placement.json and on its report" \
    consistent "$placement" "$tmp/rec.json"
check "consistency.sh fails: a place not known given as -1" doctored \
    '.placement.workers[0].node = -1 | .workers[1].core = -1' 'placement: 2 places or counts below 0'

# The other outputs (9 to 13): a cprof-report that doctors one of them, whose profile
# must then fail, naming what broke.
mkdir -p "$tmp/fake"
cat > "$tmp/fake/cprof-report" <<EOF
#!/bin/bash
real=$report
EOF
cat >> "$tmp/fake/cprof-report" <<'EOF'
case "$DOCTOR $1" in
    "folded --folded") "$real" "$@"; echo "main;extra 1000" ;;
    "hatchet --hatchet") "$real" "$@" | jq '.[0].children[0].metrics."time (inc)" += 1000000000' ;;
    "paths --csv") "$real" "$@" | sed '2s/^[^,]*,/150.0000,/' ;;
    "flat --csv") if [ "$2" = flat ]; then "$real" "$@" | sed '/,leaf,/s/,,/,0,/'; else "$real" "$@"; fi ;;
    "text -b") "$real" "$@" | sed '/\[counted\]$/s/-/0.000/2' ;;
    "html --html") "$real" "$@" | python3 -c '
import json, sys
page = sys.stdin.read()
mark = "id=\"cprof-sections\">\n"
a = page.index(mark) + len(mark); b = page.index("</script>", a)
s = json.loads(page[a:b]); t = s["paths"]
c = [x["key"] for x in t["columns"]].index("inclusive_worker_ns")
r = [r for r in t["rows"] if r and r[[x["key"] for x in t["columns"]].index("parent")][1] != ""][0]
r[c][1] = str(int(r[c][1]) * 1000)
sys.stdout.write(page[:a] + json.dumps(s) + page[b:])' ;;
    *) exec "$real" "$@" ;;
esac
EOF
chmod +x "$tmp/fake/cprof-report"
doctored_output() {  # doctored_output WHAT MESSAGE: with WHAT doctored, the profile fails
    ! DOCTOR=$1 CPROF_BIN=$tmp/fake "$here/consistency.sh" "$self_paths" > "$tmp/cons" 2>&1 &&
        grep -q -- "$2" "$tmp/cons" || { cat "$tmp/cons" >&2; return 1; }
}
check "consistency.sh fails: --folded's lines not the contexts' self times" \
    doctored_output folded "--folded: .* lines adding up to"
check "consistency.sh fails: --hatchet's node above its parent" \
    doctored_output hatchet "--hatchet: .*above its parent"
check "consistency.sh fails: --csv paths with a share above 100" \
    doctored_output paths "--csv paths: row"
check "consistency.sh fails: --csv flat with a 0 for a counted routine's time" \
    doctored_output flat "--csv flat: leaf's"
check "consistency.sh fails: the text flat profile with 0.000 for a counted routine's time" \
    doctored_output text "text flat profile: a counted routine's worker self"
check "consistency.sh fails: the HTML flame graph with a box wider than its parent" \
    doctored_output html "--html: the flame graph's context"

finish
