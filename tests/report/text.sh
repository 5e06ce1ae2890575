# Tests of the text report and its options; sourced by run.sh (uses check, run, $fx,
# $exp, $tmp).  The expected texts (expected/*.txt) were checked by hand against the
# fixtures, whose numbers are derived in docs/report.md ("The test fixtures").

# text EXPECTED ARGS...: the report is EXPECTED byte for byte.
text() {
    local want=$1; shift
    run "$@"
    [ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && cmp -s "$want" "$tmp/out" ||
        { diff "$want" "$tmp/out" | head -20 >&2; return 1; }
}
for f in seq loop cycle nested tasks teams; do
    check "text report of $f.json" text "$exp/$f.txt" "$fx/$f.json"
done
check "text report -b of basic.json + other.json" text "$exp/basic-other.txt" -b --force "$fx/basic.json" "$fx/other.json"

# The six sections, in order, each with its explanation unless -b.
sections() {
    run "$@" "$fx/loop.json" &&
    [ "$(grep -xE 'Summary|Flat profile|Concurrency cases|Call arcs|Call graph|Per-thread concurrency|Concurrent callee time per worker' "$tmp/out" | tr '\n' ,)" = \
      "Summary,Flat profile,Concurrency cases,Call arcs,Call graph,Per-thread concurrency,Concurrent callee time per worker," ]
}
check "sections in order" sections
check "sections in order with -b" sections -b
brief() {
    run "$fx/loop.json" && grep -q '^%time       the routine' "$tmp/out" &&
    run -b "$fx/loop.json" && ! grep -q '^%time       the routine' "$tmp/out" && ! grep -q '^Times are' "$tmp/out"
}
check "-b leaves out the explanations" brief
cmp_brief_long() { run -b "$fx/loop.json"; cp "$tmp/out" "$tmp/b"; run --brief "$fx/loop.json"; cmp -s "$tmp/b" "$tmp/out"; }
check "--brief is -b" cmp_brief_long

# CSV: RFC 4180 (CRLF, header row), raw integers in ns.
csv() {  # csv SECTION FILE...: the CSV in $tmp/csv, without CRs; fails unless every line ends in CRLF
    run --csv "$@" && [ -s "$tmp/out" ] && ! grep -qv $'\r$' "$tmp/out" && tr -d '\r' <"$tmp/out" >"$tmp/csv"
}
same_width() { awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad }' "$tmp/csv"; }
for s in summary flat cases arcs callgraph threads spread; do
    check "--csv $s: CRLF lines, header, rectangular" eval 'csv '"$s"' "$fx/nested.json" && same_width'
done
csv_value() {  # csv_value SECTION FILE KEYCOL KEY COL [OPTION...]: the value of column COL in the row whose KEYCOL is KEY
    csv "$1" "${@:6}" "$2" && awk -F, -v kc="$3" -v k="$4" -v c="$5" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col[kc] == k { print $col[c]; exit }' "$tmp/csv"
}
check "--csv flat: body self_worker_ns" test "$(csv_value flat "$fx/loop.json" name body self_worker_ns)" = 18000000
check "--csv flat: work inclusive_worker_ns, inclusive_wall_ns" test "$(csv_value flat "$fx/loop.json" name work inclusive_worker_ns),$(csv_value flat "$fx/loop.json" name work inclusive_wall_ns)" = 13000000,13000000
check "--csv flat: body c_calls" test "$(csv_value flat "$fx/loop.json" name body c_calls)" = 40
check "--csv summary: elapsed_ns" test "$(csv_value summary "$fx/loop.json" key elapsed_ns value)" = 15000000
check "--csv summary: overhead_ns (42 calls x 20 ns)" test "$(csv_value summary "$fx/loop.json" key overhead_ns value)" = 840
check "--csv threads: worker 2 c_ns" test "$(csv_value threads "$fx/loop.json" worker 2 c_ns)" = 12000000
check "--csv cases: work S-C max" test "$(csv cases "$fx/loop.json" && awk -F, '$1 == "work" && $3 == "S-C" { print $11 }' "$tmp/csv")" = 12000000
check "--csv callgraph: cycle 1 as a whole has 1+3 calls" test "$(csv callgraph "$fx/cycle.json" && awk -F, '$2 == "primary" && $10 == "<cycle 1 as a whole>" { print $7 "+" $9 }' "$tmp/csv")" = "1+3"
# Per-worker statistics are over the workers that made such calls (teams.json: narrow's
# 8 calls of uneven ran on workers 0 and 1 of 4, 3 and 9 ms).
cases_row() {  # cases_row FILE NAME CASE: workers,min_ns,mean_ns,max_ns,imbalance
    csv cases "$1" && awk -F, -v n="$2" -v c="$3" '$1 == n && $3 == c { print $8 "," $9 "," $10 "," $11 "," $12 }' "$tmp/csv"
}
check "--csv cases: S-C over the 2 workers that made calls" \
    test "$(cases_row "$fx/teams.json" narrow S-C)" = "2,3000000,6000000,9000000,1.5000"
check "--csv cases: C entries over the 2 workers that ran it" \
    test "$(cases_row "$fx/teams.json" uneven "C entries")" = "2,3000000,6000000,9000000,1.5000"
check "--csv cases: all 4 workers when all made calls" \
    test "$(cases_row "$fx/teams.json" wide S-C)" = "4,2000000,2000000,2000000,1.0000"
check "--csv cases: one worker did everything: workers 1, imbalance 1" \
    test "$(cases_row "$fx/tasks.json" par S-C)" = "1,8000000,8000000,8000000,1.0000"
check "--csv cases: no calls, no statistics" \
    test "$(cases_row "$fx/teams.json" narrow C-S)" = ",,,,"
spread_rows() {  # spread_rows FILE NAME: worker:pct_vs_mean of the routine's rows
    csv spread "$1" && awk -F, -v n="$2" '$1 == n { printf "%s:%s ", $3, $7 }' "$tmp/csv"
}
check "--csv spread: rows only for the workers with calls" \
    test "$(spread_rows "$fx/teams.json" narrow)" = "0:-50.0000 1:50.0000 "
check "--csv spread: a worker that did everything is at the mean" \
    test "$(spread_rows "$fx/tasks.json" par)" = "0:0.0000 "
threads_vs_mean() {  # threads_vs_mean ARGS...: worker:c_entries:pct_vs_mean per worker
    csv threads "$@" && awk -F, 'NR > 1 { printf "%s:%s:%s ", $1, $6, $9 }' "$tmp/csv"
}
check "--csv threads: vs mean over the workers with concurrent entries" \
    test "$(threads_vs_mean --routine uneven "$fx/teams.json")" = "0:4:-50.0000 1:4:50.0000 2:0: 3:0: "
check "--csv threads: every worker counted when all have entries" \
    test "$(threads_vs_mean "$fx/teams.json")" = "0:5:0.0000 1:5:120.0000 2:1:-60.0000 3:1:-60.0000 "
check "--csv arcs: fib -> fib has two site rows" test "$(csv arcs "$fx/tasks.json" && grep -c '^site,' "$tmp/csv")" = 2

# --sort
order() {  # order ARGS...: the names of the flat profile, in order
    csv flat "$@" && awk -F, 'NR > 1 { printf "%s ", $10 }' "$tmp/csv"
}
check "--sort self (default)" test "$(order "$fx/seq.json")" = "a b main c "
check "--sort self" test "$(order --sort self "$fx/seq.json")" = "a b main c "
check "--sort inclusive" test "$(order --sort inclusive "$fx/seq.json")" = "main a b c "
check "--sort calls" test "$(order --sort calls "$fx/seq.json")" = "c a b main "
check "--sort name" test "$(order --sort name "$fx/seq.json")" = "a b c main "

# --threshold: loop.json's %time are body 62.07, work 34.48, main 3.45 (call graph:
# work 96.55, body 62.07, main 48.28).
threshold() {
    run --threshold "$1" "$fx/loop.json" || return 1
    [ "$(sed -n '/^Flat profile/,/^Concurrency/p' "$tmp/out" | grep -c '  \(body\|work\|main\)$')" = "$2" ] &&
    sed -n '/^Flat profile/,/^Concurrency/p' "$tmp/out" | grep -qx "$3 entries below $1% hidden" &&
    sed -n '/^Call graph/,/^Per-thread/p' "$tmp/out" | grep -qx "$4 entries below $1% hidden"
}
check "--threshold 10: 1 flat entry hidden, none in the call graph" threshold 10 2 1 0
check "--threshold 50: 2 flat entries hidden, 1 in the call graph" threshold 50 1 2 1
check "--threshold 0: nothing hidden" threshold 0 3 0 0
no_note() { run "$fx/loop.json" && ! grep -q 'hidden$' "$tmp/out"; }
check "no threshold: no hidden-entries line" no_note

# --routine: every section keeps only entries involving the routine.
routine() {
    run -b --routine body "$fx/loop.json" || return 1
    local flat arcs graph spread
    flat=$(sed -n '/^Flat profile/,/^Concurrency/p' "$tmp/out" | grep -cE '  (body|work|main)$')
    arcs=$(sed -n '/^Call arcs/,/^Call graph/p' "$tmp/out" | grep -c ' -> ')
    graph=$(sed -n '/^Call graph/,/^Per-thread/p' "$tmp/out" | grep -cE '^ +\[[0-9]+\]')
    [ "$flat" = 1 ] && [ "$arcs" = 1 ] && [ "$graph" = 2 ] &&
        sed -n '/^Call arcs/,/^Call graph/p' "$tmp/out" | grep -q 'work -> body' &&
        grep -qE '^restricted to routine +body$' "$tmp/out" &&
        sed -n '/^Concurrency cases/,/^Call arcs/p' "$tmp/out" | grep -q '^body ' &&
        ! sed -n '/^Concurrency cases/,/^Call arcs/p' "$tmp/out" | grep -q '^work '
}
check "--routine body: flat, cases, arcs, call graph restricted" routine
routine_threads() {
    csv threads --routine main "$fx/loop.json" && [ "$(awk -F, 'NR > 1 { s += $7 } END { print s }' "$tmp/csv")" = 0 ] &&
    csv threads --routine body "$fx/loop.json" && [ "$(awk -F, 'NR > 1 { s += $7 } END { print s }' "$tmp/csv")" = 18000000 ]
}
check "--routine: per-thread numbers restricted" routine_threads

# Numbers agree between sections.
arcs_add_up() {  # the arcs into each routine add up to its entries (JSON)
    run --json "$1" && jq -e '
      [.routines[] | select(.s_caller + (.c_caller | add // 0) > 0)] as $r
      | [$r[] | . as $x | ([$ARGS.named.arcs[] | select(.callee == $x.name and .callee_file == $x.file)
                            | .s_callarc + .c_callarc] | add) == ($x.s_caller + ($x.c_caller | add // 0))]
      | all' --argjson arcs "$(jq .arcs "$tmp/out")" "$tmp/out" >/dev/null
}
pct_100() {  # the flat profile's %time adds up to 100 within rounding
    run -b "$1" && sed -n '/^Flat profile/,/^Concurrency/p' "$tmp/out" |
        awk '$1 ~ /^[0-9]+\.[0-9][0-9]$/ { s += $1 } END { exit !(s > 99.95 && s < 100.05) }'
}
graph_calls() {  # the call graph's "called" of a routine = its flat profile calls
    csv flat "$1" && awk -F, 'NR > 1 { print $10, $6 + $7 }' "$tmp/csv" | sort >"$tmp/a" &&
    csv callgraph "$1" && awk -F, '$2 == "primary" && $10 !~ /^<cycle/ { print $10, $7 + $9 }' "$tmp/csv" | sort >"$tmp/b" &&
    [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"
}
cases_match_arcs() {  # a routine's concurrent entries (cases) = concurrent arcs into it
    csv cases "$1" && awk -F, '$3 == "C entries" && $5 > 0 { print $1, $5 }' "$tmp/csv" | sort >"$tmp/a" &&
    csv arcs "$1" && awk -F, '$1 == "arc" { c[$10] += $5 } END { for (k in c) if (c[k]) print k, c[k] }' "$tmp/csv" | sort >"$tmp/b" &&
    cmp -s "$tmp/a" "$tmp/b"
}
for f in seq loop cycle nested tasks teams; do
    check "$f.json: arcs into a routine add up to its entries" arcs_add_up "$fx/$f.json"
    check "$f.json: flat %time adds up to 100" pct_100 "$fx/$f.json"
    check "$f.json: call graph calls = flat profile calls" graph_calls "$fx/$f.json"
    check "$f.json: concurrent entries = concurrent arcs in" cases_match_arcs "$fx/$f.json"
done

# A merged report of two identical runs doubles every count and time.
doubled_csv() {  # doubled_csv SECTION FILE COLUMN...: these columns double, the rest stay
    local s=$1 f=$2; shift 2
    csv "$s" "$f" && cp "$tmp/csv" "$tmp/once" && csv "$s" "$f" "$f" && cp "$tmp/csv" "$tmp/twice" &&
    awk -F, -v cols="$*" '
        BEGIN { n = split(cols, c, " ") }
        NR == FNR { if (FNR == 1) for (i = 1; i <= NF; i++) at[$i] = i; else once[FNR] = $0; next }
        FNR == 1 { next }
        { split(once[FNR], o, ","); for (i = 1; i <= n; i++) { j = at[c[i]]; if (o[j] != "" && $j != 2 * o[j]) bad = 1 } }
        END { exit bad || FNR < 2 }' "$tmp/once" "$tmp/twice"
}
for f in loop cycle nested tasks teams; do
    check "$f.json twice: flat doubles" doubled_csv flat "$fx/$f.json" self_worker_ns inclusive_worker_ns self_wall_ns inclusive_wall_ns s_calls c_calls
    check "$f.json twice: arcs double" doubled_csv arcs "$fx/$f.json" s_calls s_wall_ns s_outer_wall_ns c_calls c_worker_ns c_outer_worker_ns
    check "$f.json twice: cases double" doubled_csv cases "$fx/$f.json" calls time_ns outer_ns min_ns max_ns
    check "$f.json twice: threads double" doubled_csv threads "$fx/$f.json" c_entries c_ns
    check "$f.json twice: call graph doubles" doubled_csv callgraph "$fx/$f.json" self_worker_ns children_worker_ns wall_ns calls calls_total self_calls
done
text_doubled() {  # the text flat profile's calls columns double
    run -b "$fx/loop.json" && sed -n '/^Flat/,/^Concurrency/p' "$tmp/out" | awk 'NF == 10 && $1 ~ /^[0-9.]+$/ { print $10, 2 * $6, 2 * $7 }' >"$tmp/a" &&
    run -b "$fx/loop.json" "$fx/loop.json" && sed -n '/^Flat/,/^Concurrency/p' "$tmp/out" | awk 'NF == 10 && $1 ~ /^[0-9.]+$/ { print $10, $6, $7 }' >"$tmp/b" &&
    [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && grep -qE '^profile files +2$' "$tmp/out"
}
check "loop.json twice: text flat profile calls double" text_doubled

# A profile with no routine at all (a program whose profiled code never ran) is a
# report, not an error; it once failed with "no routine named '(null)'".
empty_profile() {
    jq -c '.routines = [] | .sites = [] | .workers = []' "$fx/basic.json" > "$tmp/empty.json" &&
    run -b "$tmp/empty.json" && [ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
    grep -qE '^calls profiled +0$' "$tmp/out" && grep -q '^Call graph' "$tmp/out"
}
check "an empty profile: the report, exit 0, nothing on stderr" empty_profile

# --threshold applies to the column the list is sorted by (seq.json: self a 4.5, b 2,
# main 2, c 1.5 ms, all 10 ms; inclusive main 10, a 6, b 2, c 1.5 ms; calls c 3, a 2,
# b 1, main 1 of 7).  Sorted by inclusive, 25 % keeps main (100 %) and a (60 %), though
# main's self is 20 %; sorted by calls, 40 % keeps c alone (3/7 = 42.9 %).
flat_names() { run --csv flat "$@" "$fx/seq.json" && tr -d '\r' <"$tmp/out" | tail -n +2 | cut -d, -f10 | tr '\n' ' '; }
check "--sort inclusive --threshold 25: main and a" eval '[ "$(flat_names --sort inclusive --threshold 25)" = "main a " ]'
check "--sort calls --threshold 40: c" eval '[ "$(flat_names --sort calls --threshold 40)" = "c " ]'
check "--sort self --threshold 25: a" eval '[ "$(flat_names --threshold 25)" = "a " ]'
check "--sort inclusive --threshold 25: 2 entries hidden" \
    eval 'run --sort inclusive --threshold 25 "$fx/seq.json" && grep -qx "2 entries below 25% hidden" "$tmp/out"'

# --dot: loop.json is main -> work (1 sequential call, 13 ms) -> body (40 concurrent
# calls, 18 ms), main entered once from outside (14 ms); self times body 18, work 10,
# main 1 of 29 ms.
dot_has() {  # dot_has LINE...: each LINE is a line of the --dot output of loop.json
    run --dot "$fx/loop.json" && [ "$rc" = 0 ] || return 1
    local l; for l in "$@"; do grep -qxF -- "$l" "$tmp/out" || { echo "missing: $l" >&2; return 1; }; done
}
check "--dot: one node per routine, sized by inclusive and coloured by self time" dot_has \
    '  r0 [label="body\nworker self 18.000 ms (62.1%)\nworker incl 18.000 ms\n40 calls", fontsize=22.4, fillcolor="#ff6161"];' \
    '  r1 [label="main\nworker self 1.000 ms (3.4%)\nworker incl 14.000 ms\n1 call", fontsize=19.7, fillcolor="#fff6f6"];' \
    '  r2 [label="work\nworker self 10.000 ms (34.5%)\nworker incl 13.000 ms\n1 call", fontsize=19.0, fillcolor="#ffa7a7"];'
check "--dot: a sequential arc is solid, a concurrent one dashed, each with calls and time" dot_has \
    '  external -> r1 [label="1 seq.\n14.000 ms", penwidth=2.93];' \
    '  r1 -> r2 [label="1 seq.\n13.000 ms", penwidth=2.79];' \
    '  r2 -> r0 [label="40 conc.\n18.000 ms", penwidth=3.48, style=dashed, color="#1f5fbf", fontcolor="#1f5fbf"];'
check "--dot --routine body: body and its caller work only" \
    eval 'run --dot --routine body "$fx/loop.json" && [ "$(grep -c "^  r[0-9]* \[" "$tmp/out")" = 2 ] &&
          grep -q "^  r2 -> r0 " "$tmp/out" && ! grep -q "^  r1 " "$tmp/out"'
check "--dot with --csv: usage" usage --dot --csv flat "$fx/loop.json"
if command -v dot >/dev/null; then
    for f in seq loop cycle nested tasks teams basic compensate count; do
        check "--dot of $f.json: dot -Tsvg accepts it" \
            eval 'run --dot "$fx/$f.json" && [ "$rc" = 0 ] && dot -Tsvg "$tmp/out" >"$tmp/svg" 2>"$tmp/dot.err" &&
                  [ ! -s "$tmp/dot.err" ] && grep -q "<svg" "$tmp/svg"'
    done
else  # Graphviz is a test dependency (the Makefile's package list): missing, it fails
    check "--dot: Graphviz's dot is installed (apt-get install graphviz)" false
fi
