# Tests of --compensate; sourced by run.sh (uses check, run, text, exact, csv, csv_value,
# $fx, $exp, $tmp).  compensate.json's numbers are derived in docs/report.md ("The test
# fixtures"); the expected outputs were checked by hand against that derivation.

check "--compensate: text report of compensate.json" text "$exp/compensate.txt" --compensate "$fx/compensate.json"
check "--compensate: --json of compensate.json" exact "$exp/compensate.json" --compensate "$fx/compensate.json"
# The same run with a cheaper call: each file's own cost applies to its own counts.
sed 's/"call_cost_ns": 20.0/"call_cost_ns": 10.0/' "$fx/compensate.json" >"$tmp/compensate10.json"
check "--compensate: --json of two files with different costs" \
    exact "$exp/compensate-merged.json" --compensate "$fx/compensate.json" "$tmp/compensate10.json"
comp_order_free() {
    run --json --compensate "$fx/compensate.json" "$tmp/compensate10.json" &&
        jq -S '{routines, arcs}' "$tmp/out" >"$tmp/ab" && [ -s "$tmp/ab" ] &&
    run --json --compensate "$tmp/compensate10.json" "$fx/compensate.json" &&
        jq -S '{routines, arcs}' "$tmp/out" | cmp -s "$tmp/ab" -
}
check "--compensate: routines and arcs do not depend on the order of files" comp_order_free

# Exact nanoseconds through --csv (the text report rounds to microseconds).
comp_csv() {  # comp_csv SECTION KEYCOL KEY COL [OPTION...]: csv_value of compensate.json
    csv_value "$1" "$fx/compensate.json" "${@:2}"
}
check "--compensate --csv flat: main self_worker_ns = 10000000 - 2 x 20" \
    eval 'csv_value flat "$fx/compensate.json" name main self_worker_ns | grep -qx 10000000 &&
          comp_csv flat name main self_worker_ns --compensate | grep -qx 9999960'
check "--compensate --csv flat: main inclusive_worker_ns = 100000000 - 1500002 x 20" \
    eval 'comp_csv flat name main inclusive_worker_ns --compensate | grep -qx 69999960'
check "--compensate --csv flat: quick self clamped at 0 (1700 - 110 x 20)" \
    eval 'comp_csv flat name quick self_worker_ns --compensate | grep -qx 0'
check "--compensate --csv summary: taken out of self times" \
    eval 'comp_csv summary key compensated value --compensate | grep -qx yes &&
          comp_csv summary key compensated_ns value --compensate | grep -qx 30001780'
check "--csv summary without --compensate: not compensated, no amount" \
    eval 'comp_csv summary key compensated value | grep -qx no &&
          ! grep -q "^compensated_ns," "$tmp/csv"'
check "--json without --compensate: \"compensated\": false" \
    eval 'run --json "$fx/seq.json" && [ "$(jq .compensated "$tmp/out")" = false ]'

# counts_same A B: two --json documents agree on everything but times and "compensated".
counts_same() {
    local f='del(.compensated) | walk(if type == "object" then with_entries(select(.key | test("_t$") | not)) else . end)'
    jq -S "$f" "$1" >"$tmp/ca" && [ -s "$tmp/ca" ] && jq -S "$f" "$2" | cmp -s "$tmp/ca" -
}
# times_within A B: every time of B is between 0 and the same time of A.
times_within() {
    jq -e -n --slurpfile a "$1" --slurpfile b "$2" '
        [$a[0] | paths(numbers) | select(map(strings) | last | test("_t$"))] as $ps
        | ($ps | length) > 0 and
          all($ps[]; . as $p | ($b[0] | getpath($p)) as $y | $y >= 0 and $y <= ($a[0] | getpath($p)))' >/dev/null
}
compensated_counts() {
    run --json "$@" && cp "$tmp/out" "$tmp/plain" && run --json --compensate "$@" &&
        [ "$(jq .compensated "$tmp/out")" = true ] &&
        counts_same "$tmp/plain" "$tmp/out" && times_within "$tmp/plain" "$tmp/out"
}
for f in seq loop cycle nested tasks teams basic compensate count; do
    check "--compensate on $f.json: counts unchanged, times between 0 and before" \
        compensated_counts "$fx/$f.json"
done
check "--compensate on basic.json + other.json: counts unchanged, times between 0 and before" \
    compensated_counts --force "$fx/basic.json" "$fx/other.json"

# A CPROF_MODE=count profile (a real one, of tests/cases/06_recursion) has every time 0
# and a non-zero call cost: compensation clamps everything at 0 and changes nothing.
count_unchanged() {
    run --json "$fx/count.json" && jq -e '.clock == "none" and .call_cost_ns > 0 and
        ([.routines[] | .s_nested, (.c_nested | add)] | add) > 0' "$tmp/out" >/dev/null &&
        jq 'del(.compensated)' "$tmp/out" >"$tmp/plain" &&
    run --json --compensate "$fx/count.json" && jq 'del(.compensated)' "$tmp/out" | cmp -s "$tmp/plain" - &&
    run "$fx/count.json" && grep -v '^times compensated' "$tmp/out" >"$tmp/plain" &&
    run --compensate "$fx/count.json" && grep -qE '^  taken out of self \(ms\) +0\.000$' "$tmp/out" &&
        grep -vE '^(times compensated|  taken out of self)' "$tmp/out" | cmp -s "$tmp/plain" -
}
check "--compensate on a CPROF_MODE=count profile changes nothing" count_unchanged
