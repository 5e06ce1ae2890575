#!/bin/bash
# tests/report/consistency.sh FILE...: checks that the numbers of cprof-report never
# contradict each other (issue 18, docs/report.md "Wall and worker time").  FILE is a
# profile (cprof.out) or a `cprof-report --json` document.  For every routine:
#   1. self <= inclusive, in worker time and in wall time, and in team time;
#   2. worker inclusive <= elapsed x workers, and every arc's outer time too;
#   3. the flat profile's %time column adds up to at most 100 (profiles only: the
#      printed --csv flat);
#   4. its worker inclusive, less its team time, <= the outer times of the arcs into it,
#      added up, and its wall inclusive <= their sequential (s) outer times: a child
#      never takes more time than its callers spent calling it (team time is no call:
#      6 accounts for it);
#   5. a profile with calling contexts (.paths): summed by call site and callee, the
#      contexts' calls per case are the arcs' sites' calls exactly, and their times
#      within the rounding slack; summed by routine, the roots from outside are the
#      arcs from <external>.  Counted routines have no contexts and are left out;
#   6. a profile with calling contexts: its team time is at most the time of the
#      <parallel> contexts below it on the workers that ran them but not their parent
#      context (the members of a team other than its opener), added up, within the
#      rounding slack (docs/semantics.md, "Team time": equal unless the routine's own
#      activations ran in those bodies, or recursion nested a body in another of the
#      same construct on one worker, which its context counts twice).  For a profile whose routines rows have
#      team time (an older writer's have none), or a --json document where some
#      routine has team time (a document does not tell which);
#   7. a profile with calling contexts: the context a call is in is its arc's caller's
#      (the routine or user region whose context is its parent, through a region's or
#      task's body): a call's arc and its context never name two callers.  Calls of a
#      counted routine (no context of its own) and under <other> are left out.
# A profile of an older writer (18-column routine rows, 14-column call rows) has no
# record of recursion: its outer times are the paper's (docs/profile-format.md), so the
# arcs' checks (2 for arcs, 4) are left out for it.
# Times are rounded to ns per profile row, so sums are compared with 1 ns per row
# (per worker and arc) of slack.  Prints one line "FILE: what" per violation; exit
# status 1 if there was one (or a file could not be read), 0 otherwise.
#   CPROF_BIN=DIR: cprof-report is DIR/cprof-report (default build/bin).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
report=${CPROF_BIN:-$root/build/bin}/cprof-report
status=0

# The jq program: one string per violation.
read -r -d '' CHECKS <<'EOF'
(.workers | length) as $w | (if $w > 0 then $w else 1 end) as $nw |
(.elapsed_ns * $nw) as $cap |
def arcs_into($r): [.arcs[] | select(.callee == $r.name and .callee_file == $r.file)];
def slack($a): 1 + $nw * (1 + ([$a[] | ([.sites | length, 1] | max)] | add // 0));
(.routines[] | . as $r | "\(.name) (\(.file))" as $n |
  (if .self_worker_t > .inclusive_worker_t + 3 * $nw then
     "\($n): worker self \(.self_worker_t) > worker inclusive \(.inclusive_worker_t)" else empty end),
  (if .self_wall_t > .inclusive_wall_t + 2 * $nw then
     "\($n): wall self \(.self_wall_t) > wall inclusive \(.inclusive_wall_t)" else empty end),
  (if (.team_self_worker_t // 0) > (.team_inclusive_worker_t // 0) + 2 * $nw then
     "\($n): team self \(.team_self_worker_t) > team inclusive \(.team_inclusive_worker_t)" else empty end),
  (if .inclusive_worker_t > $cap then
     "\($n): worker inclusive \(.inclusive_worker_t) > elapsed x workers \($cap)" else empty end)),
(.arcs[] | select($new) | select(.s_callarc_outer_t + .c_callarc_outer_t > $cap) |
  "arc \(.caller) -> \(.callee): outer time \(.s_callarc_outer_t + .c_callarc_outer_t) > elapsed x workers \($cap)"),
(. as $doc | .routines[] | select($new) | select(.s_caller + (.c_caller | add // 0) > 0) | . as $r |
  "\(.name) (\(.file))" as $n | ($doc | arcs_into($r)) as $in | slack($in) as $tol |
  ([$in[] | .s_callarc_outer_t + .c_callarc_outer_t] | add // 0) as $worker |
  ([$in[] | .s_callarc_outer_t] | add // 0) as $wall |
  (if .inclusive_worker_t - (.team_inclusive_worker_t // 0) > $worker + $tol then
     "\($n): worker inclusive \(.inclusive_worker_t) less team time \(.team_inclusive_worker_t // 0) > \($worker), the outer time of the arcs into it" else empty end),
  (if .inclusive_wall_t > $wall + $tol then
     "\($n): wall inclusive \(.inclusive_wall_t) > \($wall), the sequential outer time of the arcs into it" else empty end)),
(select(.paths) | . as $doc |
  def key($site; $name; $file): "\($site):\($name)@\($file)";
  ([.arcs[] | . as $a |
    if .caller == "<external>" then {k: key("outside"; .callee; .callee_file), s: .s_callarc, c: .c_callarc, st: .s_callarc_t, ct: .c_callarc_t, rows: $nw}
    else (.sites[] | {k: key("\(.file):\(.line)"; $a.callee; $a.callee_file), s: .s_callarc, c: .c_callarc, st: .s_callarc_t, ct: .c_callarc_t, rows: $nw}) end]
   | group_by(.k) | map({k: .[0].k, s: (map(.s) | add), c: (map(.c) | add), st: (map(.st) | add), ct: (map(.ct) | add)})) as $arcs |
  ([.paths[] | select(.routine | IN("<other>", "<parallel>", "<task>") | not) |
    {k: key(if .site then "\(.site.file):\(.site.line)" else "outside" end; .routine; .file),
     s: .calls[0], c: (.calls[1] + .calls[2] + .calls[3]), st: .time[0], ct: (.time[1] + .time[2] + .time[3])}]
   | group_by(.k) | map({k: .[0].k, n: length, s: (map(.s) | add), c: (map(.c) | add), st: (map(.st) | add), ct: (map(.ct) | add)})) as $paths |
  ($paths | map({(.k): .}) | add // {}) as $pk |
  ($arcs[] | . as $a | ($pk[.k] // {n: 0, s: 0, c: 0, st: 0, ct: 0}) as $p | ($nw * (1 + $p.n)) as $tol |
    (if [$p.s, $p.c] != [$a.s, $a.c] then
       "call paths: calls \(.k) \([$p.s, $p.c]) != the arcs' \([$a.s, $a.c])" else empty end),
    (if (($p.st - $a.st) | fabs) > $tol or (($p.ct - $a.ct) | fabs) > $tol then
       "call paths: time \(.k) \([$p.st, $p.ct]) != the arcs' \([$a.st, $a.ct])" else empty end)),
  ($arcs | map({(.k): 1}) | add // {}) as $ak |
  ($paths[] | select($ak[.k] | not) | select(.s + .c > 0) |
    "call paths: \(.k) has \(.s + .c) calls in contexts and no arc"),
  select($team or any(.routines[]; (.team_inclusive_worker_t // 0) > 0)) |
  (.paths | map({(.id | tostring): .}) | add // {}) as $byid |
  def up($n): if $n.parent == null then empty else $byid[$n.parent | tostring] | ., up(.) end;
  ([.paths[] | select(.routine == "<parallel>") | . as $n |
    (if .parent == null then null else $byid[.parent | tostring] end) as $p |
    [range(0; .worker_calls | length) | select($n.worker_calls[.] > 0 and $p != null and $p.worker_calls[.] == 0)] as $m |
    {t: ([$m[] | $n.worker_outer_time[.]] | add // 0), rows: ($m | length)} as $x |
    select($x.t > 0) |
    ([up($n) | select(.routine | IN("<other>", "<parallel>", "<task>") | not) | "\(.routine)@\(.file)"] | unique[]) as $k |
    {k: $k, t: $x.t, rows: $x.rows}]
   | group_by(.k) | map({(.[0].k): {t: (map(.t) | add), rows: (map(.rows) | add)}}) | add // {}) as $teams |
  (.routines[] | ($teams["\(.name)@\(.file)"] // {t: 0, rows: 0}) as $p |
    select((.team_inclusive_worker_t // 0) - $p.t > $nw + $p.rows) |
    "\(.name) (\(.file)): team time \(.team_inclusive_worker_t // 0) > \($p.t), its <parallel> contexts' time on the members of their teams")),
(select(.paths) |
  ([.routines[] | select(.counted) | "\(.name)@\(.file)"]) as $counted |
  ([.arcs[] | . as $a | .sites[] | {k: "\(.file):\(.line):\($a.callee)@\($a.callee_file)",
     v: "\($a.caller)@\($a.caller_file)"}] | group_by(.k) | map({(.[0].k): map(.v)}) | add // {}) as $callers |
  (.paths | map({(.id | tostring): .}) | add // {}) as $byid |
  def owner($n): if $n == null or ($n.routine | IN("<parallel>", "<task>") | not) then $n
                 elif $n.parent == null then null else owner($byid[$n.parent | tostring]) end;
  .paths[] | select(.site != null and .parent != null and (.routine | IN("<other>", "<parallel>", "<task>") | not)) |
  owner($byid[.parent | tostring]) as $o | select($o != null and $o.routine != "<other>") |
  ($callers["\(.site.file):\(.site.line):\(.routine)@\(.file)"] // []) as $c |
  select(($c | length) > 0 and ($c | index("\($o.routine)@\($o.file)")) == null and
         ([$c[] | IN($counted[])] | any | not)) |
  "call paths: the call of \(.routine) at \(.site.file):\(.site.line) is in \($o.routine)'s context, its arc's caller is \($c | join(" or "))")
EOF

# The flat profile as printed (--csv flat): the %time column adds up to at most 100
# (each share rounded to 4 decimals).
shares() {
    "$report" --csv flat "$1" | tr -d '\r' | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pct_time") c = i; next }
        { s += $c; n++ }
        END { if (s > 100 + 0.0001 * n) printf "flat profile: %%time adds up to %.4f\n", s }'
}

for f in "$@"; do
    new=true
    team=false
    if jq -e '.format == "cprof"' "$f" > /dev/null 2>&1; then
        doc=$(cat "$f")
        flat=
    elif ! doc=$("$report" --json "$f" 2>&1); then
        echo "$f: cprof-report --json failed: $doc"
        status=1
        continue
    else
        flat=$(shares "$f")
        jq -e '[.workers[].routines[] | length == 18] | any' "$f" > /dev/null && new=false
        jq -e '.columns.routines | index("team_time")' "$f" > /dev/null && team=true
    fi
    if ! out=$(jq -r --argjson new "$new" --argjson team "$team" "$CHECKS" <<< "$doc" 2>&1); then
        echo "$f: not a cprof-report document ($out)"
        status=1
        continue
    fi
    out=$(printf '%s\n%s' "$out" "$flat" | sed '/^$/d')
    if [ -n "$out" ]; then
        sed "s|^|$f: |" <<< "$out"
        status=1
    fi
done
exit $status
