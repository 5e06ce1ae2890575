#!/usr/bin/env bash
# cprof-report --html (docs/html.md): one self-contained page that loads nothing, whose
# embedded profile is the --json document byte for byte and whose tables are the text
# report's cells; bad input and a failed write as for the other outputs.  Then, with
# Debian's chromium (skipped without it), that the page's script ran and drew the exact
# figures: the flat profile as the text report prints it, the counts of a program
# derived by hand, the call path tree, the workers' cells, and a screenshot.
. "$(dirname "$0")/../lib/cli.sh"
cd "$tmp"

# main calls work 3 times (S-S); work's parallel loop calls inner 8 times a call (S-C,
# 24 concurrent entries of inner), each inner calls leaf (C-S, 24 of leaf).  With 2
# threads and the static schedule, each worker runs 4 iterations a call: calling
# contexts main > work > inner > leaf on the initial thread and (region of work) >
# inner > leaf on the other, 12 calls each.
cat > html.c <<'C'
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { return x * 2; }     /* noinline: timed */
__attribute__((noinline)) int inner(int x) { return leaf(x) + 1; }
int work(int n)
{
    int s = 0;
#pragma omp parallel for schedule(static) reduction(+:s)
    for (int i = 0; i < n; i++)
        s += inner(i);
    return s;
}
int main(void)
{
    int s = 0;
    for (int k = 0; k < 3; k++)
        s += work(8);
    printf("%d\n", s);
    return 0;
}
C
"$bin/cprof-cc" -fopenmp -O2 html.c -o prog > cc.err 2>&1 && CPROF_OUT=p.out ./prog > prog.txt 2>&1
check "the program builds and writes a profile" "$(indent cc.err)" "$(indent prog.txt)" -- test -s p.out
"$bin/cprof-report" --html p.out > page.html 2> html.err; st=$?
check "--html: exit 0, a page, nothing on stderr" "status $st" "$(indent html.err)" -- \
    test $st = 0 -a -s page.html -a ! -s html.err
"$bin/cprof-report" --json p.out > p.json

# ---- the page without a browser ----
check "one document: <!DOCTYPE html> first, </html> last, one <html> and one <body>" \
    "$(head -c 100 page.html)" -- bash -c '[ "$(head -n 1 page.html)" = "<!DOCTYPE html>" ] &&
        [ "$(tail -n 1 page.html)" = "</html>" ] && [ "$(grep -c "<html" page.html)" = 1 ] &&
        [ "$(grep -c "<body" page.html)" = 1 ] && [ "$(grep -c "</html>" page.html)" = 1 ]'
# Nothing fetched: no address, no src=, no <link>, no CSS import or url().
check "self-contained: no http(s)://, src=, <link, @import or url(" \
    "$(grep -noiE 'https?://|src=|<link|@import|url\(' page.html | head -3)" -- \
    bash -c '! grep -qiE "https?://|src=|<link|@import|url\(" page.html'
# embedded ID [PAGE]: the JSON document of <script type="application/json" id="ID">
# in PAGE (page.html).
embedded() {
    sed -n "/^<script type=\"application\/json\" id=\"$1\">\$/,/^<\/script>\$/p" "${2:-page.html}" | sed '1d;$d'
}
# page_of NAME: NAME.c built by cprof-cc and run, its page NAME.html, the page's
# documents NAME-sections.json and NAME-profile.json.
page_of() {
    "$bin/cprof-cc" -O1 "$1.c" -o "$1" > /dev/null 2>&1 && CPROF_OUT="$1.out" "./$1" > /dev/null
    "$bin/cprof-report" --html "$1.out" > "$1.html"
    embedded cprof-sections "$1.html" > "$1-sections.json"
    embedded cprof-profile "$1.html" > "$1-profile.json"
}
embedded cprof-profile > embedded.json
embedded cprof-sections > sections.json
check "the embedded profile parses with jq and is jq-equal to --json" \
    "$(head -c 200 embedded.json)" -- bash -c 'jq -e . embedded.json > /dev/null &&
        [ "$(jq -S . embedded.json)" = "$(jq -S . p.json)" ]'
# Escaping '<' as \u003c is the only change (it keeps "</script>" out of the page).
sed 's/\\u003c/</g' embedded.json > unescaped.json
check "the embedded profile is --json byte for byte, '<' written \\u003c" \
    "$(diff unescaped.json p.json | head -5)" -- cmp -s unescaped.json p.json
# Every section's cells are the CSV's values (--csv SECTION, header and CR left out).
for s in summary flat cases arcs callgraph threads spread; do
    "$bin/cprof-report" --csv $s p.out | tr -d '\r' | sed 1d > want.csv
    jq -r --arg s $s '.[$s] as $t | $t.rows[] | select(. != null) |
        [range(0; $t.columns | length) as $i | select($t.columns[$i].key != null) | .[$i][1]] |
        join(",")' sections.json > got.csv 2> jq.err
    check "the page's $s table holds --csv $s's values" "$(indent jq.err)" "$(diff got.csv want.csv | head -5)" -- \
        bash -c '[ -s want.csv ] && cmp -s got.csv want.csv'
done
"$bin/cprof-report" --csv paths p.out | tr -d '\r' | sed 1d > want.csv
jq -r '.paths as $t | $t.rows[] | [range(0; $t.columns | length) as $i |
    select($t.columns[$i].key != null) | .[$i][1]] | join(",")' sections.json > got.csv
check "the page's call paths hold --csv paths's values" "$(diff got.csv want.csv | head -5)" -- \
    bash -c '[ -s want.csv ] && cmp -s got.csv want.csv'
# An MPI job's page has its ranks' sections, and every other one: a section this
# profile lacks once ended the list (the flat profile went missing after "ranks").
fx=$root/tests/report/fixtures
"$bin/cprof-report" --html "$fx/job-0.json" "$fx/job-1.json" "$fx/job-2.json" > job.html
sed -n '/^<script type="application\/json" id="cprof-sections">$/,/^<\/script>$/p' job.html |
    sed '1d;$d' > job-sections.json
expect_jq "an MPI job's page: its ranks' sections and all the others" job-sections.json \
    'keys | map(select(. == "ranks" or . == "rank_imbalance" or . == "flat" or . == "callgraph"))' \
    '["callgraph", "flat", "rank_imbalance", "ranks"]'
# A large profile: the page keeps the 300 heaviest routines, their rows in every table
# and the calls between them, and says so; the document is what the script reads.
{
    echo '#include <stdio.h>'
    for i in $(seq 0 399); do echo "void r$i(volatile int *x) { for (int k = 0; k < $i; k++) *x += k; }"; done
    echo 'int main(void) { volatile int x = 0;'
    for i in $(seq 0 399); do echo "r$i(&x);"; done
    echo 'printf("%d\n", x > 0); return 0; }'
} > many.c
page_of many
"$bin/cprof-report" --csv flat many.out | tr -d '\r' | sed 1d | head -300 > want.csv
jq -r '.flat as $t | $t.rows[] | select(. != null) |
    [range(0; $t.columns | length) as $i | select($t.columns[$i].key != null) | .[$i][1]] |
    join(",")' many-sections.json > got.csv
check "401 routines: the page's flat profile is --csv flat's first 300 rows" "$(diff got.csv want.csv | head -3)" -- \
    bash -c '[ $(wc -l < got.csv) = 300 ] && cmp -s got.csv want.csv'
expect_jq "401 routines: the profile document says what was cut, and holds those 300" many-profile.json \
    '[.cut, (.routines | length), (.arcs == null)]' '[{"routines_shown": 300, "routines": 401, "arcs_left_out": []}, 300, true]'
# main, which makes 400 calls, is the heaviest by self time: every arc is into or out
# of a kept routine, and all 401 are on the page (its entry and its 400 calls).
expect_jq "401 routines: every table that lost rows says so; the arcs into and out of kept routines" many-sections.json \
    '[(.flat.notes[-1] | test("300 heaviest of 401 routines")), (.arcs.rows | map(select(. != null)) | length)]' \
    '[true, 401]'
# Cut by weight (issue 29): main, heavy itself, makes 52 calls (50 light routines, A,
# B); A makes 6 x 350 calls of light routines, 2,100 contexts under main > A; B, a tenth of
# the run, comes after them in the tree's order.  The page keeps main's 52 arcs, the
# 2,000 heaviest contexts (B's among them) with those above them, and every table that
# lost rows says what it left out.
{
    echo '#include <stdio.h>'
    echo 'volatile long sink;'
    for i in $(seq 0 349); do echo "void c$i(void) { for (int k = 0; k < 20; k++) sink += k; }"; done
    for i in $(seq 0 49); do echo "void t$i(void) { for (int k = 0; k < 1; k++) sink += k; }"; done
    echo 'void A(void) { for (long k = 0; k < 60000000; k++) sink += k;'
    for j in 1 2 3 4 5 6; do for i in $(seq 0 349); do echo "c$i();"; done; done
    echo '}'
    echo 'void B(void) { for (long k = 0; k < 6000000; k++) sink += k; }'
    echo 'int main(void) { for (long k = 0; k < 30000000; k++) sink += k;'
    for i in $(seq 0 49); do echo "t$i();"; done
    echo 'A(); B(); printf("%d\n", sink > 0); return 0; }'
} > weights.c
page_of weights
expect_jq "403 routines: main's 52 arcs out on the page, none left out" weights-sections.json \
    '[.arcs as $t | $t.rows[] | select(. != null and .[0][1] == "arc" and .[10][1] == "main")] | length' 52
expect_jq "403 routines: the page's document says no routine's arcs were left out" weights-profile.json \
    '.cut.arcs_left_out' '[]'
"$bin/cprof-report" --csv paths weights.out | tr -d '\r' | sed 1d > weights-paths.csv
jq -r '.paths.rows[] | select(. != null) | [.[6][1], .[0][1]] | join(",")' weights-sections.json > page-paths.txt
awk -F, '{ print $7 "," $1 }' weights-paths.csv > all-paths.txt
kept_min=$(cut -d, -f2 page-paths.txt | sort -g | head -1)
left_max=$(awk -F, 'NR == FNR { on[$1]; next } !($1 in on) { print $2 }' page-paths.txt all-paths.txt | sort -g | tail -1)
check "2,153 contexts: the page has 2,000, main > A and main > B (a tenth of the run) among them" \
    "$(wc -l < page-paths.txt) on the page; B: $(grep ',main > B$' weights-paths.csv)" -- \
    bash -c '[ $(wc -l < page-paths.txt) = 2000 ] && [ $(wc -l < all-paths.txt) = 2153 ] &&
             jq -e "[.paths.rows[] | select(. != null) | .[9][1]] | index(\"main > B\") and index(\"main > A\")" weights-sections.json > /dev/null'
check "2,153 contexts: none left out is heavier than one kept (%time, --csv paths's values)" \
    "lightest kept $kept_min, heaviest left out $left_max" -- \
    awk -v k="$kept_min" -v l="$left_max" 'BEGIN { exit !(k != "" && l != "" && l + 0 <= k + 0) }'
check "2,153 contexts: every context on the page has its parent there" -- \
    jq -e '[.paths.rows[] | select(. != null) | [.[6][1], .[7][1]]] | (map(.[0]) | map({(.): 1}) | add) as $on |
           all(.[]; .[1] == "" or $on[.[1]])' weights-sections.json
# Every table with fewer rows than --csv gives says so under it.
unsaid=
for s in $(jq -r 'keys[]' weights-sections.json); do
    "$bin/cprof-report" --csv "$s" weights.out > s.csv 2> /dev/null || continue
    csv_rows=$(($(tr -d '\r' < s.csv | wc -l) - 1))
    page_rows=$(jq --arg s "$s" '[.[$s].rows[] | select(. != null)] | length' weights-sections.json)
    if [ "$page_rows" -lt "$csv_rows" ] &&
       ! jq -e --arg s "$s" '.[$s].notes | any(startswith("(this page shows"))' weights-sections.json > /dev/null; then
        unsaid="$unsaid $s ($page_rows of $csv_rows rows)"
    fi
done
check "403 routines: every table that lost rows says what it left out" "silent:$unsaid" -- test -z "$unsaid"
# A run with resources: their three tables, as --csv gives them.
CPROF_RESOURCES=cpu,faults:1 CPROF_OUT=res.out ./prog > /dev/null 2>&1
"$bin/cprof-report" --html res.out > res.html
sed -n '/^<script type="application\/json" id="cprof-sections">$/,/^<\/script>$/p' res.html |
    sed '1d;$d' > res-sections.json
for s in resources resource-routines resource-paths; do
    if ! jq -e '.resources[0].available' res.out > /dev/null 2>&1; then
        skip "a run with resources: the page's $s table" "perf_event_open refused here"
        continue
    fi
    "$bin/cprof-report" --csv $s res.out | tr -d '\r' | sed 1d > want.csv
    jq -r --arg s $s '.[$s] as $t | $t.rows[] | select(. != null) |
        [range(0; $t.columns | length) as $i | select($t.columns[$i].key != null) | .[$i][1]] |
        join(",")' res-sections.json > got.csv 2> jq.err
    check "a run with resources: the page's $s table holds --csv $s's values" "$(indent jq.err)" \
        "$(diff got.csv want.csv | head -5)" -- bash -c '[ -s want.csv ] && cmp -s got.csv want.csv'
done

# The source view's data (docs/html.md, "The source view"): the source lines' tables,
# as --csv gives them; the texts only with --embed-sources.
embedded cprof-sources > sources.json
for s in lines line-workers; do
    "$bin/cprof-report" --csv $s p.out | tr -d '\r' | sed 1d > want.csv
    jq -r --arg s "${s/-/_}" '.[$s] as $t | $t.rows[] | select(. != null) |
        [range(0; $t.columns | length) as $i | select($t.columns[$i].key != null) | .[$i][1]] |
        join(",")' sections.json > got.csv 2> jq.err
    check "the page's $s table holds --csv $s's values" "$(indent jq.err)" "$(diff got.csv want.csv | head -5)" -- \
        bash -c '[ -s want.csv ] && cmp -s got.csv want.csv'
done
expect_jq "without --embed-sources: no source text in the page, and it says so" sources.json \
    '[.embedded, (.files | length)]' '[false, 0]'
check "without --embed-sources: not a line of html.c in the page" -- \
    bash -c '! grep -q "reduction(+:s)" page.html'
"$bin/cprof-report" --html --embed-sources p.out > embed.html 2> err.txt; st=$?
sed -n '/^<script type="application\/json" id="cprof-sources">$/,/^<\/script>$/p' embed.html |
    sed '1d;$d' > embed-sources.json
jq -c '[.embedded, (.files | map(.file)), .files[0].status, .files[0].found]' embed-sources.json > got.txt
jq -r '.files[0].text[]' embed-sources.json > got-text.txt
check "--embed-sources: html.c embedded, found unchanged where it was compiled, its text line for line" \
    "$(cat got.txt)" "$(diff got-text.txt html.c | head -3)" -- \
    bash -c '[ "$(cat got.txt)" = "[true,[\"html.c\"],\"unchanged\",\"$PWD/html.c\"]" ] && cmp -s got-text.txt html.c'
check "--embed-sources: still self-contained, '<' in the sources written \\u003c" "status $st" "$(indent err.txt)" -- \
    bash -c "[ $st = 0 ] && ! grep -qiE 'https?://|src=|<link|@import|url\\(' embed.html &&
        grep -qF '#include \\u003cstdio.h>' embed.html"

# A name that would end the script element, were '<' not escaped.
jq '.routines[0].file = "x</script><b>.c"' p.out > odd.out
"$bin/cprof-report" --html odd.out > odd.html
check "a file named x</script><b>.c: written \\u003c/script>, the page still one document" \
    "$(grep -o '.\{20\}x.\{0,6\}/script.\{20\}' odd.html | head -2)" -- \
    bash -c '! grep -q "</script><b>" odd.html && grep -q "x\\\\u003c/script>\\\\u003cb>.c" odd.html &&
        [ "$(grep -c "^</script>\$" odd.html)" = 4 ]'

# ---- bad input, usage, and a write that fails ----
"$bin/cprof-report" --html missing.out > out.txt 2> err.txt; st=$?
check "a missing file: the load's one line, exit 1, nothing on stdout" "status $st" "$(indent err.txt)" -- \
    test $st = 1 -a "$(cat err.txt)" = "cprof-report: missing.out: cannot open: No such file or directory" -a ! -s out.txt
head -c 100 p.out > cut.out
"$bin/cprof-report" --html cut.out > out.txt 2> err.txt; st=$?
check "a truncated profile: one line naming it, exit 1, nothing on stdout" "status $st" "$(indent err.txt)" -- \
    bash -c "[ $st = 1 ] && [ \$(wc -l < err.txt) = 1 ] && grep -q '^cprof-report: cut.out: ' err.txt && [ ! -s out.txt ]"
for opt in --json --dot --paths --folded -b "--sort calls" "--threshold 5" "--routine main" "--csv flat" "--diff"; do
    # shellcheck disable=SC2086
    "$bin/cprof-report" --html $opt p.out p.out > out.txt 2> err.txt; st=$?
    check "--html $opt: a usage error, exit 2" "status $st" "$(indent err.txt 2)" -- \
        bash -c "[ $st = 2 ] && grep -q '^cprof-report: ' err.txt && [ ! -s out.txt ]"
done
"$bin/cprof-report" --html --compensate --force --keep-going p.out > comp.html 2> err.txt; st=$?
check "--html takes --compensate, --force and --keep-going" "status $st" "$(indent err.txt)" -- \
    bash -c "[ $st = 0 ] && grep -q '\"compensated\": true' comp.html"
if [ -w /dev/full ]; then
    "$bin/cprof-report" --html p.out > /dev/full 2> err.txt; st=$?
    check "--html to a full disk: 'cannot write the report', exit 1" "status $st" "$(indent err.txt)" -- \
        test $st = 1 -a "$(cat err.txt)" = "cprof-report: cannot write the report: No space left on device"
else
    skip "--html to a full disk" "no writable /dev/full"
fi

# ---- in a browser: the script ran and drew the exact figures ----
browser=$(command -v chromium || command -v chromium-browser)
browser_checks=(
    "chromium: the script ran to its end, nothing failed"
    "chromium: the flat profile's cells are the text report's, every routine"
    "chromium: the flat profile shows the hand-derived counts (work 3 s calls; inner 24 c calls; main S-S 3, work S-C 24, inner C-S 24)"
    "chromium: the path tree has exactly the 5 expected contexts (both workers under work's region), 24 calls of inner in all"
    "chromium: the path tree's rows are --csv paths's (id, parent, s and c calls)"
    "chromium: the workers' heat map shows inner's time on each worker as --json says"
    "chromium: main's callees, work called 3 times sequentially"
    "chromium: main's S/C matrix: 3 S-S calls, none in the other cases"
    "chromium: a flame graph, main's box and work's under it among at most one box per context"
    "chromium: a screenshot (PNG, 1280 px wide, drawn)"
    "chromium: a click on c calls sorts the flat profile by it, largest first, ties in the text report's order"
    "chromium: the source view without the texts: html.c's figures by line, each --source's"
    "chromium: the source view with --embed-sources: html.c line for line, shaded where it costs, its figures --source's"
    "chromium: hover on work's call of inner (line 9): S-C 24, and 12 calls on each worker"
    "chromium: a click on a call site (main -> work, html.c:16, in the arcs) opens the source view at that line"
    "chromium: a cut page (403 routines): main's Calls table lists its 52 callees"
)
if [ -z "$browser" ]; then
    for c in "${browser_checks[@]}"; do skip "$c" "chromium is not installed (make deps)"; done
    finish
    exit
fi
# Its own profile directory in $tmp; --no-sandbox because the tests may run as root,
# where chromium's sandbox refuses to start (the page is the test's own file).
chrome() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chromium" \
        --hide-scrollbars "$@" 2> chromium.err
}
# The page opens on the call graph's first routine, which the run's timing chooses (main,
# or work when its team's worker time is the larger, as under clang, whose libomp starts
# its threads in work's first region): main is clicked, its callers and callees shown.
on_main() {
    sed 's#^</body>$#<script>{ const p = document.getElementById("routine-pick"); p.value = [...p.options].find((o) => o.textContent === "main").value; p.dispatchEvent(new Event("change")); }</script>\n</body>#' "$1"
}
on_main page.html > main.html
# The DOM on one line (a tooltip's text may hold line breaks).
chrome --dump-dom "file://$tmp/main.html" | tr '\n' ' ' > dom.html
# table CLASS: the table of that class.
table() { grep -o "<table class=\"$1\">.*" dom.html | sed 's#</table>.*##'; }
# cells KEYS...: per row of the table on stdin, data-name then the texts of those columns.
cells() {
    sed 's#<tr #\n<tr #g' | grep '^<tr data-name=' | sed 's#<span class="bar"[^>]*></span>##g' |
        while IFS= read -r row; do
            local line k
            line=$(sed 's/^<tr data-name="\([^"]*\)".*/\1/' <<< "$row")
            for k in "$@"; do line="$line|$(grep -o "data-col=\"$k\"[^>]*>[^<]*" <<< "$row" | head -1 | sed 's/.*>//')"; done
            echo "$line"
        done
}
check "${browser_checks[0]}" "$(indent chromium.err 3)" "$(grep -o '<p class="note">This page could not[^<]*' dom.html)" -- \
    bash -c 'grep -q "<body data-rendered=\"yes\">" dom.html && ! grep -q "<p class=\"note\">This page could not" dom.html'

flat_keys=(pct_time self_worker_ns inclusive_worker_ns self_wall_ns inclusive_wall_ns s_calls c_calls
           self_worker_ns_per_call inclusive_worker_ns_per_call)
table flat-table | cells "${flat_keys[@]}" | sort > dom_flat.txt
# The text report's rows: name (the fields after the ninth) and the nine figures.
"$bin/cprof-report" -b p.out | awk '/^Flat profile$/ { f = 1 } f && /^%time/ { t = 1; next } t && /^$/ { exit } t' |
    awk '{ n = $10; for (i = 11; i <= NF; i++) n = n " " $i; printf "%s", n;
           for (i = 1; i <= 9; i++) printf "|%s", $i; print "" }' | sort > text_flat.txt
check "${browser_checks[1]}" "$(diff dom_flat.txt text_flat.txt | head -6)" -- \
    bash -c '[ "$(wc -l < text_flat.txt)" = 4 ] && cmp -s dom_flat.txt text_flat.txt'
table flat-table | cells s_calls c_calls ss_calls sc_calls cs_calls cc_calls | sort > counts.txt
printf '%s\n' 'inner|0|24|0|0|24|0' 'leaf|0|24|0|0|0|0' 'main|1|0|3|0|0|0' 'work|3|0|0|24|0|0' > want.txt
check "${browser_checks[2]}" "$(diff counts.txt want.txt)" -- cmp -s counts.txt want.txt

# The tree: per row its id, parent, full path (the step's title), s and c calls.
table path-tree | sed 's#<tr #\n<tr #g' | grep '^<tr data-id=' |
    sed 's/^<tr data-id="\([^"]*\)" data-parent="\([^"]*\)".*title="\([^"]*\)".*data-col="s_calls">\([^<]*\)<.*data-col="c_calls">\([^<]*\)<.*/\1,\2,\4,\5,\3/' \
    | sed 's/&gt;/>/g; s/&lt;/</g' > tree.txt
printf '%s\n' 'main' 'main > work' 'main > work > <parallel>' 'main > work > <parallel> > inner' \
    'main > work > <parallel> > inner > leaf' | sort > want.txt
inner=$(awk -F, '$5 ~ /inner$/ { s += $4 } END { print s + 0 }' tree.txt)
check "${browser_checks[3]}" "$(cut -d, -f5 tree.txt | sort | diff - want.txt)" "calls of inner: $inner" -- \
    bash -c '[ "$(cut -d, -f5 tree.txt | sort)" = "$(cat want.txt)" ] && [ '"$inner"' = 24 ]'
"$bin/cprof-report" --csv paths p.out | tr -d '\r' | sed 1d |
    awk -F, '{ print $7 "," $8 "," $4 "," $5 "," $10 }' > want.txt
check "${browser_checks[4]}" "$(diff tree.txt want.txt | head -5)" -- cmp -s tree.txt want.txt

# ms as the text report writes them: ns / 1000 rounded half up, 3 decimals.
ms() { local us=$((($1 + 500) / 1000)); printf '%d.%03d' $((us / 1000)) $((us % 1000)); }
want=$(jq -r '.routines[] | select(.name == "inner") | .c_caller_t[]' p.json | while read -r ns; do ms "$ns"; echo; done | paste -sd' ')
got=$(table heat-table | sed 's#<tr #\n<tr #g' | grep '^<tr data-name="inner"' |
      grep -o 'data-worker="[0-9]*"[^>]*>[^<]*' | sed 's/.*>//' | paste -sd' ')
check "${browser_checks[5]}" "page: $got" "json: $want" -- test -n "$got" -a "$got" = "$want"

callees=$(grep -o '<h4>Calls</h4>.*' dom.html | sed 's#</table>.*##' | cells s_calls c_calls)
check "${browser_checks[6]}" "$(grep -o '<div id="routine-body"><h3>[^<]*' dom.html)" "callees: $callees" -- \
    bash -c 'grep -q "<div id=\"routine-body\"><h3>main<" dom.html && [ "$(echo "'"$callees"'" | grep "^work|")" = "work|3|0" ]'
matrix=$(grep -o '<table class="matrix">.*' dom.html | sed 's#</table>.*##' |
         grep -o 'data-case="[A-Z-]*"[^>]*>[^<]*' | sed 's/data-case="\([A-Z-]*\)".*>/\1=/' | paste -sd' ')
check "${browser_checks[7]}" "matrix: $matrix" -- test "$matrix" = "S-S=3 S-C=0 C-S=0 C-C=0"
grep -o '<svg class="flame".*' dom.html | sed 's#</svg>.*##' > flame.svg
boxes=$(grep -o '<rect ' flame.svg | wc -l)
# A box is left out where it would be under half a pixel wide: leaf's are (0.000 ms).
check "${browser_checks[8]}" "boxes: $boxes" "$(grep -o '<title>[^<]*' flame.svg | head -3)" -- \
    bash -c "[ $boxes -ge 2 -a $boxes -le 6 ] && grep -q '<title>main ' flame.svg &&
        grep -q '<title>main &gt; work ' flame.svg"

chrome --screenshot="$tmp/page.png" --window-size=1280,1600 "file://$tmp/page.html" > /dev/null
# A page that failed to draw is mostly blank: a drawn one takes far more than 30 KB.
check "${browser_checks[9]}" "$(indent chromium.err 3)" "$(ls -l page.png 2>&1)" -- \
    bash -c '[ "$(head -c 8 page.png | od -An -c | tr -d " ")" = "211PNG\r\n032\n" ] &&
        [ "$(od -An -tu1 -j16 -N4 page.png | awk "{ print \$1 * 16777216 + \$2 * 65536 + \$3 * 256 + \$4 }")" = 1280 ] &&
        [ "$(stat -c %s page.png)" -gt 30000 ]'

# What a person's click does: a copy of the page that clicks the c calls heading.
sed 's#^</body>$#<script>document.querySelector(".flat-table th[title=\x27sort by c calls\x27]").click()</script></body>#' \
    page.html > sorted.html
chrome --dump-dom "file://$tmp/sorted.html" | tr '\n' ' ' > dom.html
got=$(table flat-table | cells c_calls | paste -sd' ')
# --csv flat's rows in the text report's order, sorted on c_calls (sort -s keeps ties).
want=$("$bin/cprof-report" --csv flat p.out | tr -d '\r' | sed 1d | sort -t, -k7,7nr -s |
       awk -F, '{ printf "%s%s|%s", (NR > 1 ? " " : ""), $10, $7 }')
check "${browser_checks[10]}" "page: $got" "want: $want" -- test -n "$want" -a "$got" = "$want"

# The source view: its figures against the text of --source (tests/lib/source_dom.py
# puts both in one form): 8 figures at 7 lines (leaf, inner and its call of leaf, work,
# its parallel loop and its call of inner, main and its call of work).
"$bin/cprof-report" --source p.out > source.txt
python3 "$root/tests/lib/source_dom.py" --text source.txt > want.txt
chrome --dump-dom "file://$tmp/page.html" > dom-plain.html
python3 "$root/tests/lib/source_dom.py" dom-plain.html > got.txt
check "${browser_checks[11]}" "$(diff got.txt want.txt | head -6)" -- \
    bash -c '[ "$(wc -l < want.txt)" = 8 ] && cmp -s got.txt want.txt &&
        [ "$(tr "\n" " " < dom-plain.html | grep -o "<table class=\"source-table\"><tbody>.*" | sed "s#</table>.*##" |
             grep -o "<tr data-line=" | wc -l)" = 7 ] && grep -q "id=\"source-status\">This page holds no source text" dom-plain.html'
chrome --dump-dom "file://$tmp/embed.html" > dom-embed.html
python3 "$root/tests/lib/source_dom.py" dom-embed.html > got.txt
tr '\n' ' ' < dom-embed.html | grep -o '<table class="source-table"><tbody>.*' | sed 's#</table>.*##' |
    sed 's#<tr #\n<tr #g' | grep '^<tr data-line=' > rows.txt
# Each row: its number, its code cell's text (entities decoded), shaded or not.
python3 -c 'import html, re, sys
for r in open(sys.argv[1]):
    m = re.match(r"<tr data-line=\"(\d+)\"[^>]*><td class=\"ln\">\d+</td><td class=\"code\" style=\"([^\"]*)\">([^<]*)</td>", r)
    print(m.group(1), "shaded" if m.group(2) else "plain", html.unescape(m.group(3)), sep="|")' rows.txt > code.txt
check "${browser_checks[12]}" "$(diff got.txt want.txt | head -4)" "$(diff <(cut -d'|' -f3- code.txt) html.c | head -4)" -- \
    bash -c 'cmp -s got.txt want.txt && cmp -s <(cut -d"|" -f3- code.txt) html.c &&
        [ "$(grep -c "|shaded|" code.txt)" = 7 ] && grep -q "^9|shaded|        s += inner(i);$" code.txt &&
        grep -q "^8|plain|" code.txt'
python3 "$root/tests/lib/source_dom.py" --hover dom-embed.html | grep '^9|inner|' > hover.txt
check "${browser_checks[13]}" "$(cat hover.txt)" -- \
    bash -c 'grep -q "S-C 24 (" hover.txt && grep -q "\\\\nworker 0: 12 calls, " hover.txt &&
        grep -q "\\\\nworker 1: 12 calls, " hover.txt'
on_main embed.html |
    sed 's#^</body>$#<script>[...document.querySelectorAll("\#routine-body a.src")].find((a) => a.textContent === "html.c:16").click()</script></body>#' \
    > clicked.html
chrome --dump-dom "file://$tmp/clicked.html" | tr '\n' ' ' > dom.html
check "${browser_checks[14]}" "$(grep -o '<tr data-line="16"[^>]*>' dom.html)" -- \
    bash -c 'grep -q "<tr data-line=\"16\" class=\"has hit\">" dom.html &&
        [ "$(grep -o "class=\"[a-z ]*hit\"" dom.html | wc -l)" = 1 ]'
# The cut page as a reader sees it: main (the first entry of the call graph) with every
# routine it called, not "(none)".
chrome --dump-dom "file://$tmp/weights.html" | tr '\n' ' ' > dom.html
callees=$(grep -o '<h4>Calls</h4>.*' dom.html | sed 's#</table>.*##' | cells s_calls | wc -l)
check "${browser_checks[15]}" "$(grep -o '<div id="routine-body"><h3>[^<]*' dom.html)" "callees: $callees" -- \
    bash -c 'grep -q "<div id=\"routine-body\"><h3>main<" dom.html && [ '"$callees"' = 52 ]'
finish
