# Sampled timing's marks (docs/report.md, "Estimated times"; docs/semantics.md,
# "Sampled timing"): sourced by run.sh (uses check, run, text, $fx, $exp, $tmp).
# fixtures/sampled-a.json and sampled-b.json are modes/regions-74.json with the header's
# "timing" and hand-written "sampled" rows (fixtures/sampled.jq says how); the errors
# below were worked out by hand from those rows: a row's squared error is
# calls^2 s^2 / timed (1 - timed / calls), s^2 = (timed_sq - timed_time^2 / timed) /
# (timed - 1), and a routine's, arc's or context's error the square root of its rows'
# squared errors added up.  In sampled-a, s^2 is 2 for leaf's rows but worker 1's first
# (50): their squared errors 8, 8 (from setup, 4 calls, 2 timed), 15, 15, 375, 15 (from
# step, 5 calls, 2 timed) add up to 436, error 20.88 ns; step's rows (from solve) 375,
# 20, 750, 135: 1280, 35.78 ns; step's self time adds leaf's calls from step (420):
# 1700, 41.23 ns; solve's self has step's 1280, setup's self leaf's 16 (4.00 ns).
# sampled-b adds, to leaf, 16 x 4 / 3 x 1/4 = 5.33 (setup) and 2.5 (step): 443.83,
# 21.07 ns; to setup's self 5.33: 21.33, 4.62 ns; one of step's rows has 1 of 5 calls
# timed, no spread to go by: step's error, and solve's self time's, are unknown.
sa=$fx/sampled-a.json sb=$fx/sampled-b.json

check "sampled: text report -b of sampled-a.json" text "$exp/sampled-a.txt" -b "$sa"
check "sampled: text report -b of sampled-a.json + sampled-b.json" text "$exp/sampled-ab.txt" -b "$sa" "$sb"

# jqv NAME FILTER WANT FILE...: --json of FILE..., FILTER (compact) is WANT.
jqv() {
    local name=$1 filter=$2 want=$3; shift 3
    run --json "$@"
    local got
    got=$(jq -c "$JQ_DEFS $filter" "$tmp/out" 2>&1)
    check "$name" "got:  $got" "want: $want" -- test "$got" = "$want"
}
jqv "sampled --json: the document's timing" '.timing' \
    '{"files_sampled":1,"files_uncorrected":1,"period":4,"periods_differ":false,"min_activations":1,"short_ns":200,"call_cost_ns":17.63,"routines_estimated":4,"errors_unknown":0}' "$sa"
jqv "sampled --json: leaf, step, solve, setup: errors of inclusive, self, wall, wall self (ns)" \
    '[r("leaf", "step", "solve", "setup") | [.name, .time_estimated, .time_error_ns, .self_time_error_ns, .wall_time_error_ns, .wall_self_time_error_ns]]' \
    '[["leaf",true,21,21,4,4],["setup",true,0,4,0,4],["solve",true,0,36,0,36],["step",true,36,41,0,0]]' "$sa"
jqv "sampled --json: routines with no estimate have no time_estimated, no error" \
    '[.routines[] | select(has("time_estimated") or has("time_error_ns")) | .name] | sort' \
    '["leaf","setup","solve","step"]' "$sa"
jqv "sampled --json: arcs' errors (setup -> leaf 4, solve -> step 36, step -> leaf 20), no other arc marked" \
    '[.arcs[] | select(.time_estimated) | [.caller, .callee, .time_error_ns]]' \
    '[["setup","leaf",4],["solve","step",36],["step","leaf",20]]' "$sa"
# Contexts: step's (both workers' rows of one path: 375 + 750) 33.54 ns, self with its
# leaf's 375 + 15: 38.92; the <parallel> above it has step's in its self only.
jqv "sampled --json: step's two contexts (regions.c:23) and the <parallel> above them" \
    '[.paths[] | select(.time_estimated and (.site.line == 23 or .site.line == 21)) | [.routine, .time_error_ns, .self_time_error_ns]]' \
    '[["<parallel>",0,34],["step",34,39],["<parallel>",0,12],["step",12,14]]' "$sa"
jqv "sampled --json, two files summed: errors in quadrature, unknown ones null" \
    '[.timing.files_sampled, .timing.errors_unknown, (r("leaf", "setup", "step", "solve") | [.name, .time_error_ns, .self_time_error_ns])]' \
    '[2,2,["leaf",21,21],["setup",0,5],["solve",0,null],["step",null,null]]' "$sa" "$sb"
jqv "sampled --json: a file summed with itself: every squared error doubled (leaf 29.53, step 50.60)" \
    '[r("leaf", "step") | [.name, .time_error_ns, .self_time_error_ns]]' \
    '[["leaf",30,30],["step",51,58]]' "$sa" "$sa"

# csv_col SECTION KEYCOL KEY COL FILE...: column COL of the row whose KEYCOL is KEY.
csv_col() {
    local s=$1 kc=$2 k=$3 c=$4; shift 4
    run --csv "$s" "$@" && tr -d '\r' < "$tmp/out" | awk -F, -v kc="$kc" -v k="$k" -v c="$c" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col[kc] == k { print $col[c]; exit }'
}
check "sampled --csv flat: self_worker_error_ns and inclusive_worker_error_ns (leaf 21/21, step 41/36, solve 36/0, main 0/0)" \
    test "$(for n in leaf step solve main; do csv_col flat name $n self_worker_error_ns "$sa"; csv_col flat name $n inclusive_worker_error_ns "$sa"; done | paste -sd,)" = 21,21,41,36,36,0,0,0
check "sampled --csv flat, summed: leaf's error 21, step's unknown: an empty cell" \
    test "$(csv_col flat name leaf self_worker_error_ns "$sa" "$sb"),$(csv_col flat name step self_worker_error_ns "$sa" "$sb")" = "21,"
check "sampled --csv arcs: time_error_ns of step -> leaf is 20" \
    test "$(run --csv arcs "$sa" && tr -d '\r' < "$tmp/out" | awk -F, '$1 == "arc" && $8 == "step" && $10 == "leaf" { print $NF }')" = 20
check "sampled --csv paths: self_error_ns, inclusive_error_ns of step's two contexts (14, 12; 39, 34)" \
    test "$(run --csv paths "$sa" && tr -d '\r' < "$tmp/out" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["site"] == "regions.c:23" { print $col["self_error_ns"] "," $col["inclusive_error_ns"] }' | paste -sd' ')" = "14,12 39,34"
check "sampled --folded: estimated self times' last frame marked ~, totals unchanged" \
    eval 'run --folded "$sa" && grep -qx "main;phases;solve;<parallel>;step~ 1742" "$tmp/out" &&
          [ "$(grep -c "~ " "$tmp/out")" = 8 ] &&
          [ "$(awk "{ s += \$NF } END { print s }" "$tmp/out")" = "$("$report" --folded "$here/modes/regions-74.json" | awk "{ s += \$NF } END { print s }")" ]'
check "sampled --hatchet: an estimated node's errors beside its times" \
    eval 'run --hatchet "$sa" && [ "$(jq -c "[.. | objects | select(.frame.name? == \"step\") | .metrics | [.\"time error\", .\"time (inc) error\"] | map(round)]" "$tmp/out")" = "[[14,12],[39,34]]" ]'
check "sampled --paths: marks and the legend" \
    eval 'run -b --paths "$sa" && grep -q "^ 0.01  0.002~   0.002~ .*<parallel> > step$" "$tmp/out" &&
          grep -q "^~  an estimate: the calls were timed on a sample (1 in 4)" "$tmp/out"'
check "sampled --callers leaf: each step with the errors of leaf's contexts through it" \
    eval 'run -b --callers leaf "$sa" && grep -q "^ 0.00  0.000~  0.000~ *19 *20 *2 *leaf$" "$tmp/out"'

# Without estimates, every output is as before: "timing" with mode "every", or mode
# "sampled" and no sampled row, changes nothing (but the summary's count of 0).  Both
# files pass through jq, which rounds the start times.
jq . "$here/modes/regions-74.json" > "$tmp/plain.json"
jq '.sections += [{"name": "timing", "required": false}] | .timing = {"mode": "every", "period": 1, "min_activations": 0, "short_ns": 0, "call_cost_ns": 17.6}
    | .workers |= map(.sampled = [])' "$here/modes/regions-74.json" > "$tmp/every.json"
same_out() {
    local m
    for m in "" --json "--csv flat" "--csv arcs" "--csv paths" --paths --folded --hatchet --html "--csv callgraph"; do
        # shellcheck disable=SC2086
        "$report" $m "$tmp/plain.json" > "$tmp/before" 2>&1
        # shellcheck disable=SC2086
        "$report" $m "$tmp/every.json" > "$tmp/after" 2>&1
        cmp -s "$tmp/before" "$tmp/after" || { echo "differs: $m" >&2; return 1; }
    done
}
check "sampled: a profile timed on every call (mode every) prints as one without timing" same_out

# Bad sampled rows: one line, exit 1 (bad is run.sh's).
badrows() {  # badrows NAME JQ MESSAGE
    jq "$2" "$sa" > "$tmp/bad.json"
    check "sampled, bad input: $1" bad "$tmp/bad.json" "$3"
}
badrows "timed above calls" '.workers[0].sampled[0][5] = 9' \
    'invalid profile: workers[0].sampled[0]: case 0 is not 0 to 3, or timed 9 is not 1 to calls 4 less exact 0'
badrows "timed above calls less exact" '.workers[0].sampled[0][8] = 3' \
    'invalid profile: workers[0].sampled[0]: case 0 is not 0 to 3, or timed 2 is not 1 to calls 4 less exact 3'
badrows "case 4" '.workers[0].sampled[0][3] = 4' \
    'invalid profile: workers[0].sampled[0]: case 4 is not 0 to 3, or timed 2 is not 1 to calls 4 less exact 0'
badrows "a path that is not the callee's" '.workers[0].sampled[0][2] = 1' \
    'invalid profile: workers[0].sampled[0]: path 1 does not reach its callee'
badrows "a row of 7 numbers" '.workers[0].sampled[0] |= .[0:7]' \
    'invalid profile: workers[0].sampled[0] is not an array of 10 numbers'
badrows "a negative sum of squares" '.workers[0].sampled[0][7] = -1' \
    'invalid profile: workers[0].sampled[0]: "timed_sq" is negative or not finite'
badrows "rows under mode every" '.timing.mode = "every"' \
    'invalid profile: workers[0] has "sampled" rows, but "timing" is not {"mode": "sampled"...}'
badrows "a mode not known" '.timing.mode = "some"' \
    'invalid profile: "timing": mode "some" is neither "sampled" nor "every"'
badrows "rows without the section" '.sections |= map(select(.name != "timing")) | del(.timing)' \
    'invalid profile: workers[0] has "sampled" without the "timing" section'

check "sampled: consistency.sh holds on sampled-a, sampled-b, and both summed" \
    "$(indent "$tmp/cons")" -- eval 'consistent "$sa" "$sb" && run --json "$sa" "$sb" && cp "$tmp/out" "$tmp/ab.json" && consistent "$tmp/ab.json"'
check "sampled: consistency.sh holds where an estimate exceeds its caller's measured time (sampled-over.json)" \
    "$(indent "$tmp/cons")" -- consistent "$fx/sampled-over.json"

# The HTML page: the flat profile's cells carry the marks, its error columns the
# errors in % (chromium draws the page; skipped without it).
browser=$(command -v chromium || command -v chromium-browser)
if [ -z "$browser" ]; then
    skip "sampled --html: the page's flat profile shows leaf's marks and errors" "chromium is not installed (make deps)"
else
    html_marks() {
        "$report" --html "$sa" > "$tmp/sampled.html" &&
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chromium" \
            --dump-dom "file://$tmp/sampled.html" 2> /dev/null | tr '\n' ' ' > "$tmp/dom.html" &&
        grep -o '<tr data-name="leaf"[^>]*>.*' "$tmp/dom.html" | sed 's#</tr>.*##' > "$tmp/leaf.html" &&
        grep -q 'data-col="self_worker_ns">0.000~<' "$tmp/leaf.html" &&
        grep -q 'data-col="self_worker_error_ns">4.71<' "$tmp/leaf.html" &&
        grep -q 'data-col="inclusive_worker_error_ns">4.71<' "$tmp/leaf.html" &&
        grep -q 'an estimate: the calls were timed on a sample (1 in 4)' "$tmp/dom.html"
    }
    check "sampled --html: the page's flat profile shows leaf's marks and errors" "$(indent "$tmp/leaf.html" 2)" -- html_marks
fi

# The other outputs that print times.
check "sampled --dot: estimated times marked, the legend in the graph's label" \
    eval 'run --dot "$sa" && grep -q "step\\\\nworker self 0.002 ms~ (0.0%)\\\\nworker incl 0.002 ms~" "$tmp/out" &&
          grep -q "; ~: an estimate (calls timed on a sample)" "$tmp/out" && [ "$(grep -c "ms~\"" "$tmp/out")" = 3 ]'
check "sampled --csv lines: estimated is yes for the lines of leaf, step, setup, solve and their sampled calls, no for main's and the region's" \
    test "$(run --csv lines "$sa" && tr -d '\r' < "$tmp/out" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["line"] ~ /^(9|16|18|20|21|23|24|63)$/ { print $col["line"] $col["kind"] "=" $col["estimated"] }' | paste -sd' ')" \
    = "9routine=yes 16routine=yes 16call=no 18call=yes 20routine=yes 20call=no 21construct=no 23routine=yes 23call=yes 24call=yes 63routine=no"
check "sampled --source: an estimated line says (estimated), and why" \
    eval 'run -b --source "$sa" && grep -q "calls step: S-S 0, S-C 20, C-S 0, C-C 0; time 0.002 ms (estimated)" "$tmp/out" &&
          grep -q "^A time marked (estimated) may also hold times estimated from a sample" "$tmp/out"'
check "sampled --diff: the after side's estimated times marked, in the text and in --json" \
    eval 'run -b --diff "$here/modes/regions-74.json" "$sa" && grep -q "^0.000   0.002   0.002~  0.000 .* step$" "$tmp/out" &&
          run --diff --json "$here/modes/regions-74.json" "$sa" &&
          [ "$(jq -c "[.routines[] | select(.after.time_estimated) | .name]" "$tmp/out")" = "[\"leaf\",\"setup\",\"solve\",\"step\"]" ] &&
          [ "$(jq -c "[.routines[] | select(.before.time_estimated)] | length" "$tmp/out")" = 0 ]'
# An MPI job's ranks, work's calls from main sampled on rank 0's worker 0: 2 calls, both
# timed (error 0).
for k in 0 1 2; do
    jq --argjson rows "$([ $k = 0 ] && echo '{"0": [[1,0,0,0,1,1,8000000,64e12,0,0]]}' || echo '{}')" \
        -f "$fx/sampled.jq" "$fx/job-$k.json" > "$tmp/sjob-$k.json"
done
check "sampled, an MPI job: rank imbalance marks work's times and main's self, the per-rank table says why it has none" \
    eval 'run -b "$tmp"/sjob-{0,1,2}.json && grep -q "^    3    8.000~    11.000~   17.000~ .* work$" "$tmp/out" &&
          grep -q "^    3    9.000     12.333    19.000 .*1.000~     1.000~    1.000~ .* main$" "$tmp/out" &&
          grep -q "^worker self holds the estimated times marked ~ in the flat profile" "$tmp/out" &&
          run --json "$tmp"/sjob-{0,1,2}.json && [ "$(jq -c "[.routines[] | select(.time_estimated) | [.name, .time_error_ns]]" "$tmp/out")" = "[[\"main\",0],[\"work\",0]]" ]'
check "sampled: consistency.sh holds where an estimate exceeds elapsed x workers, within 5 errors (sampled-cap.json)" \
    "$(indent "$tmp/cons")" -- consistent "$fx/sampled-cap.json"
# The slack is the estimates' only: a measured time above elapsed x workers is refused.
jq '.elapsed_ns = 5000000' "$fx/sampled-cap.json" > "$tmp/short.json"
check "sampled: consistency.sh still refuses main's measured inclusive time above elapsed x workers" \
    "$(indent "$tmp/cons")" -- eval '! consistent "$tmp/short.json" &&
        grep -q "main (regions.c): worker inclusive 15967501 > elapsed x workers 10000000" "$tmp/cons" &&
        ! grep -q "^[^ ]*: leaf (regions.c): worker inclusive" "$tmp/cons"'
# Sampled, but no row sampled: the summary says so, nothing is marked.
jq '.workers |= map(.sampled = [])' "$sa" > "$tmp/none.json"
check "sampled, no row sampled: the summary's count is 0, no mark, no error column, no legend" \
    eval 'run -b "$tmp/none.json" && grep -qx "times estimated: routines  0" "$tmp/out" &&
          ! grep -q "~\|err%\|timed calls" "$tmp/out" &&
          run --json "$tmp/none.json" && [ "$(jq -c "[.timing.routines_estimated, ([.. | objects | select(.time_estimated)] | length)]" "$tmp/out")" = "[0,0]" ]'
# Two files sampled with different periods: the first file's, and that they differ.
jq '.timing.period = 16' "$sb" > "$tmp/b16.json"
check "sampled, two periods: the first file's said, and that the others differ" \
    eval 'run -b "$sa" "$tmp/b16.json" && grep -qx "  timed calls: 1 in          4" "$tmp/out" &&
          grep -q "(1 in 4 in the first file; others differ" "$tmp/out" &&
          grep -q "^~  an estimate: the calls were timed on a sample (1 in 4 in the first file)" "$tmp/out" &&
          run --json "$sa" "$tmp/b16.json" && [ "$(jq -c "[.timing.period, .timing.periods_differ]" "$tmp/out")" = "[4,true]" ]'

# The overhead estimate (docs/report.md) counts an untimed call at the cost the runtime
# measured for one (the header's timing.untimed_ns), not a timed call's: sampled-a's
# rows have 27 untimed calls (calls - exact - timed), each 17.6265 - 5.6265 = 12 ns
# cheaper: 1304 ns less 324.  Without untimed_ns (older files), or with one not below
# the call's cost, every call at call_cost_ns as before.
jq '.timing.untimed_ns = 5.6265' "$sa" > "$tmp/sa-untimed.json"
jq '.timing.untimed_ns = 30' "$sa" > "$tmp/sa-untimed-high.json"
check "sampled: the overhead estimate counts untimed calls at untimed_ns (1304 - 27 x 12 = 980 ns), else at call_cost_ns" \
    test "$(for f in "$sa" "$tmp/sa-untimed.json" "$tmp/sa-untimed-high.json"; do
               csv_col summary key overhead_ns value "$f"; done | paste -sd,)" = 1304,980,1304

# A sampled file without a measured untimed_ns (sampled-a and -b: written as an older
# cprof did) is said: its estimates may lack the correction.  One with it is not.
check "sampled: a file without timing.untimed_ns is said in the summary; one with it is not" \
    bash -c "'$report' '$sa' | tr '\n' ' ' | grep -q 'In 1 of the 1 sampled files the cost of an untimed call was not measured' &&
             ! '$report' '$tmp/sa-untimed.json' | grep -q 'cost of an untimed call was not'"
jqv "sampled --json: files_uncorrected counts the files without untimed_ns (sa, sa + measured)" \
    '.timing | [.files_sampled, .files_uncorrected]' '[2,1]' "$sa" "$tmp/sa-untimed.json"
