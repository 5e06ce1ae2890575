#!/bin/bash
# tests/report/consistency.sh FILE...: checks that the numbers of cprof-report never
# contradict each other (issue 18, docs/report.md "Wall and worker time").  FILE is a
# profile (cprof.out) or a `cprof-report --json` document.  For every routine:
#   1. self <= inclusive, in worker time and in wall time, and in team time;
#   2. worker inclusive <= elapsed x workers, and every arc's outer time too (an estimated
#      time, from a sample of the calls: docs/semantics.md, "Sampled timing", within 5
#      times its error, or its own size where the error is unknown: an estimate is no
#      measure of the run, and can exceed it by chance);
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
#   7. a time not measured is null, never 0 (docs/report.md, "Times not measured"): every
#      time of a counted routine, of the arcs into it, and of a CPROF_MODE=count run
#      (clock "none") that ran; the wall times of a routine entered only concurrently;
#      and every other routine's that ran has its times;
#   8. the calling contexts' worker times (docs/report.md, "Call paths"), where the
#      profile has them: each context's self <= inclusive, its inclusive its self plus
#      its children's (so a child never exceeds its parent), the contexts without a
#      time (a counted routine's, a recursive call's) without children; all the self
#      times added up (each stretch of a worker's time once) at most elapsed x
#      workers, at least the flat profile's worker self added up, and at most that
#      plus the <task> contexts' own time (a task run outside any activation is no
#      routine's), within the rounding slack (the lower bound is left out past
#      CPROF_PATHS_MAX: a region's body there has no context).  With sampled timing
#      (docs/semantics.md, "Sampled timing") the bound by elapsed x workers and the
#      comparison with the flat profile get the estimated contexts' times as slack (the
#      first as in 2): where the estimates of the calls
#      made in a context exceed its measured time, its self time is 0, not below, and
#      its routine's is clamped per worker, not per context, so the two sums can part
#      by up to what was estimated;
# and, for a profile (cprof-report run on it), its other outputs:
#   9. --csv flat: a time not measured (7) is an empty cell, never 0; the text flat
#      profile shows "-" for a counted routine's times;
#  10. --folded: one line "stack N" (N > 0) per context with a self time, their N the
#      contexts' self times (8), added up exactly (at most elapsed x workers, with 8's
#      slack for estimates); no counted routine in a stack;
#  11. --hatchet: each node's time <= its time (inc), which is its time plus its
#      children's (a child never above its parent); the roots' time (inc) added up is
#      --folded's total; every routine's frame has its name (no "[counted]" in it),
#      file, line and counted mark;
#  12. --csv paths: every share <= 100 and the roots' added up too (rounding aside; with
#      estimated times, 100 plus the estimated contexts' times' share, as in 8);
#      self <= inclusive, a child's inclusive <= its parent's (by id and parent); a
#      context without a time has empty cells;
#  13. --html: the flame graph's data (its page's paths table): a child's inclusive
#      time <= its parent's, and, on a page not cut, the roots' added up --folded's
#      total.
#  14. every call site's calls and times split by case (case_calls, case_t:
#      docs/report-json.md) add up to its s and c figures, S-S being s, and its outer
#      times by case to at least its s and c outer times (each case's is clamped at 0
#      alone); with calling contexts, each site's calls per case are its contexts'.
#  15. a profile with calling contexts: the context a call is in is its arc's caller's
#      (the routine or user region whose context is its parent, through a region's or
#      task's body): a call's arc and its context never name two callers.  Calls of a
#      counted routine (no context of its own) and under <other> are left out.
#  16. where a worker ran (docs/placement.md): a place or count the profile does not know
#      (a core, package or NUMA node without a topology, the machine's counts, the
#      kernel's migrations of a worker without a counter, a flag's figure it has none
#      of) is null, never -1: no such figure of the document is below 0.
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
def est_slack($t): if .time_estimated then (if .time_error_ns == null then $t else 5 * .time_error_ns end) else 0 end;
(.routines[] | . as $r | "\(.name) (\(.file))" as $n |
  (if .self_worker_t > .inclusive_worker_t + 3 * $nw then
     "\($n): worker self \(.self_worker_t) > worker inclusive \(.inclusive_worker_t)" else empty end),
  (if .self_wall_t > .inclusive_wall_t + 2 * $nw then
     "\($n): wall self \(.self_wall_t) > wall inclusive \(.inclusive_wall_t)" else empty end),
  (if (.team_self_worker_t // 0) > (.team_inclusive_worker_t // 0) + 2 * $nw then
     "\($n): team self \(.team_self_worker_t) > team inclusive \(.team_inclusive_worker_t)" else empty end),
  (if .inclusive_worker_t > $cap + est_slack(.inclusive_worker_t) then
     "\($n): worker inclusive \(.inclusive_worker_t) > elapsed x workers \($cap)" else empty end)),
(.arcs[] | select($new) |
  select(.s_callarc_outer_t + .c_callarc_outer_t > $cap + est_slack(.s_callarc_outer_t + .c_callarc_outer_t)) |
  "arc \(.caller) -> \(.callee): outer time \(.s_callarc_outer_t + .c_callarc_outer_t) > elapsed x workers \($cap)"),
(. as $doc | .routines[] | select($new) | select(.s_caller + (.c_caller | add // 0) > 0) |
  select(.inclusive_worker_t != null) | . as $r |
  "\(.name) (\(.file))" as $n | ($doc | arcs_into($r)) as $in | slack($in) as $tol |
  ([$in[] | .s_callarc_outer_t + .c_callarc_outer_t] | add // 0) as $worker |
  ([$in[] | .s_callarc_outer_t] | add // 0) as $wall |
  (if .inclusive_worker_t - (.team_inclusive_worker_t // 0) > $worker + $tol then
     "\($n): worker inclusive \(.inclusive_worker_t) less team time \(.team_inclusive_worker_t // 0) > \($worker), the outer time of the arcs into it" else empty end),
  (if .inclusive_wall_t > $wall + $tol then
     "\($n): wall inclusive \(.inclusive_wall_t) > \($wall), the sequential outer time of the arcs into it" else empty end)),
(.arcs[] | . as $a | .sites[] | select(.case_calls) |
  "site \(.file):\(.line) of \($a.caller) -> \($a.callee)" as $n |
  (if .case_calls[0] != .s_callarc or (.case_calls[1:] | add) != .c_callarc then
     "\($n): calls by case \(.case_calls) do not add up to s \(.s_callarc), c \(.c_callarc)" else empty end),
  (if (.case_t[0] // 0) != (.s_callarc_t // 0) or ([.case_t[1:][] // 0] | add) != (.c_callarc_t // 0) then
     "\($n): times by case \(.case_t) do not add up to s \(.s_callarc_t), c \(.c_callarc_t)" else empty end),
  (if ([.case_outer_t[] // 0] | add) < (.s_callarc_outer_t // 0) + (.c_callarc_outer_t // 0) then
     "\($n): outer times by case \(.case_outer_t) do not add up to \(.s_callarc_outer_t + .c_callarc_outer_t)" else empty end)),
(select(.paths) | . as $doc |
  def key($site; $name; $file): "\($site):\($name)@\($file)";
  ([.arcs[] | . as $a |
    if .caller == "<external>" then {k: key("outside"; .callee; .callee_file), s: .s_callarc, c: .c_callarc, st: (.s_callarc_t // 0), ct: (.c_callarc_t // 0), rows: $nw}
    else (.sites[] | {k: key("\(.file):\(.line)"; $a.callee; $a.callee_file), s: .s_callarc, c: .c_callarc, st: (.s_callarc_t // 0), ct: (.c_callarc_t // 0), cases: .case_calls, rows: $nw}) end]
   | group_by(.k) | map({k: .[0].k, s: (map(.s) | add), c: (map(.c) | add), st: (map(.st) | add), ct: (map(.ct) | add),
                        cases: (if all(.[]; .cases) then map(.cases) | transpose | map(add) else null end)})) as $arcs |
  ([.paths[] | select(.routine | IN("<other>", "<parallel>", "<task>") | not) |
    {k: key(if .site then "\(.site.file):\(.site.line)" else "outside" end; .routine; .file),
     s: .calls[0], c: (.calls[1] + .calls[2] + .calls[3]), st: (.time[0] // 0), ct: ((.time // [0, 0, 0, 0]) | .[1] + .[2] + .[3]), cases: .calls}]
   | group_by(.k) | map({k: .[0].k, n: length, s: (map(.s) | add), c: (map(.c) | add), st: (map(.st) | add), ct: (map(.ct) | add),
                        cases: (map(.cases) | transpose | map(add))})) as $paths |
  ($paths | map({(.k): .}) | add // {}) as $pk |
  ($arcs[] | . as $a | ($pk[.k] // {n: 0, s: 0, c: 0, st: 0, ct: 0, cases: [0, 0, 0, 0]}) as $p | ($nw * (1 + $p.n)) as $tol |
    (if [$p.s, $p.c] != [$a.s, $a.c] then
       "call paths: calls \(.k) \([$p.s, $p.c]) != the arcs' \([$a.s, $a.c])" else empty end),
    (if $a.cases and $p.cases != $a.cases then
       "call paths: calls by case \(.k) \($p.cases) != the sites' \($a.cases)" else empty end),
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
    {t: ([$m[] | ($n.worker_outer_time // [])[.] // 0] | add // 0), rows: ($m | length)} as $x |
    select($x.t > 0) |
    ([up($n) | select(.routine | IN("<other>", "<parallel>", "<task>") | not) | "\(.routine)@\(.file)"] | unique[]) as $k |
    {k: $k, t: $x.t, rows: $x.rows}]
   | group_by(.k) | map({(.[0].k): {t: (map(.t) | add), rows: (map(.rows) | add)}}) | add // {}) as $teams |
  (.routines[] | ($teams["\(.name)@\(.file)"] // {t: 0, rows: 0}) as $p |
    select((.team_inclusive_worker_t // 0) - $p.t > $nw + $p.rows) |
    "\(.name) (\(.file)): team time \(.team_inclusive_worker_t // 0) > \($p.t), its <parallel> contexts' time on the members of their teams")),
(.clock == "none") as $untimed |
([.routines[] | select(.counted) | [.name, .file]]) as $counted |
(.routines[] | select(.s_caller + (.c_caller | add // 0) > 0) | "\(.name) (\(.file))" as $n |
  (.counted or $untimed) as $nm |
  ((.c_caller | add // 0) > 0 and .s_caller == 0) as $conc |
  ([.self_worker_t, .inclusive_worker_t, .s_self_t, .s_caller_t] | map(. == null) | unique) as $nulls |
  (if $nulls != [$nm] then
     "\($n): its times are \(if $nm then "not all null, though not measured (\(if .counted then "counted" else "CPROF_MODE=count" end))" else "null, though measured" end)" else empty end),
  (if [.self_wall_t, .inclusive_wall_t] | map(. == null) | unique != [$nm or $conc] then
     "\($n): its wall times are \(if $nm or $conc then "not null, though not measured" else "null, though measured" end)" else empty end)),
(.arcs[] | select(.s_callarc + .c_callarc > 0) | [.callee, .callee_file] as $k |
  (($counted | index([$k])) != null or $untimed) as $nm |
  select([[.s_callarc, .s_callarc_t], [.c_callarc, .c_callarc_t]] | map(select(.[0] > 0) | .[1] == null) |
         if $nm then all | not else any end) |
  "arc \(.caller) -> \(.callee): its times are \(if $nm then "not null, though not measured" else "null, though measured" end)"),
(select(.paths) | select(any(.paths[]; .self_worker_t != null)) |
  (.paths | map({(.id | tostring): .}) | add) as $byid |
  (reduce .paths[] as $x ({}; if $x.parent == null then . else .[$x.parent | tostring] += [$x.id] end)) as $kids |
  (.paths[] | . as $x | "context \(.id) (\(.routine))" as $n | ($kids[.id | tostring] // []) as $k |
    if .self_worker_t == null then
      (if ($k | length) > 0 then "\($n): no time of its own, yet \($k | length) children" else empty end)
    else
      ([$k[] | $byid[tostring].inclusive_worker_t // 0] | add // 0) as $below |
      (if .self_worker_t > .inclusive_worker_t then "\($n): self \(.self_worker_t) > inclusive \(.inclusive_worker_t)" else empty end),
      (if .self_worker_t + $below != .inclusive_worker_t then
         "\($n): inclusive \(.inclusive_worker_t) != self \(.self_worker_t) + its children's \($below)" else empty end),
      ($k[] | $byid[tostring] | select((.inclusive_worker_t // 0) > $x.inclusive_worker_t) |
         "context \(.id) (\(.routine)): inclusive \(.inclusive_worker_t) > its parent's \($x.inclusive_worker_t)")
    end),
  ($nw * ((.paths | length) + (.routines | length)) + 2) as $tol |
  ([.paths[].self_worker_t // 0] | add) as $all |
  ([.paths[] | select(.routine == "<task>") | .self_worker_t // 0] | add // 0) as $task |
  ([.routines[].self_worker_t // 0] | add // 0) as $flat |
  ([.paths[] | select(.time_estimated) | .time // [] | add // 0] | add // 0) as $est |
  (if $all > $cap + $tol + $est then "call paths: self times add up to \($all) > elapsed x workers \($cap)" else empty end),
  (if $all + $tol + $est < $flat and (any(.paths[]; .routine == "<other>") | not) then
     "call paths: self times add up to \($all) < the flat profile's \($flat)" else empty end),
  (if $all - $task > $flat + $tol + $est then
     "call paths: self times add up to \($all), above the flat profile's \($flat) by more than the <task> contexts' \($task)" else empty end)),
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
  "call paths: the call of \(.routine) at \(.site.file):\(.site.line) is in \($o.routine)'s context, its arc's caller is \($c | join(" or "))"),
([(.machine // {} | .[]), (.workers[] | .pu, .core),
  (.placement // {} | (.machines[]?.pus[]? | .core, .package, .node),
     (.workers[]? | .main_pu, .core, .package, .node, .kernel_migrations, (.pus[] | .core, .package, .node)),
     (.sharing[]? | .pu, .core), (.flags[]? | .pu, .core, .count, .pct_run))]
  | map(select(. != null and . < 0)) | length) as $neg |
  if $neg > 0 then "placement: \($neg) places or counts below 0 (one not known is null, never -1)" else empty end
EOF

# Checks 9 to 13: the profile's other outputs, against its --json document.  Arguments:
# the files of the document, --csv flat, -b (the text), --csv paths, --folded and its
# exit status, --hatchet and --html.
read -r -d '' OUTPUTS <<'PY'
import csv, io, json, sys
doc, flat_csv, text, paths_csv, folded, folded_rc, hatchet, html = sys.argv[1:9]
d = json.load(open(doc))
out = []
try:
    def rows(name):
        return list(csv.DictReader(io.StringIO(open(name, newline="").read())))
    # 9: a time not measured is an empty cell, and "-" in the text.
    routines = {(r["name"], r["file"]): r for r in d["routines"]}
    for row in rows(flat_csv):
        r = routines.get((row["name"], row["file"]))
        if r is None:
            continue
        for k, j in (("self_worker_ns", "self_worker_t"), ("inclusive_worker_ns", "inclusive_worker_t"),
                     ("self_wall_ns", "self_wall_t"), ("inclusive_wall_ns", "inclusive_wall_t")):
            if (row[k] == "") != (r[j] is None):
                out.append("--csv flat: %s's %s is %r, the document's %s %s" % (row["name"], k, row[k], j, r[j]))
            elif row[k] != "" and int(row[k]) != r[j]:
                out.append("--csv flat: %s's %s %s != the document's %s %s" % (row["name"], k, row[k], j, r[j]))
    lines = open(text).read().split("\n")
    if "Flat profile" in lines:
        at = lines.index("Flat profile") + 3
        while at < len(lines) and lines[at].strip():
            cells = lines[at].split()
            if lines[at].endswith(" [counted]") and cells[1] != "-":
                out.append("text flat profile: a counted routine's worker self is %s, not -: %s" % (cells[1], lines[at].strip()))
            at += 1
    paths = d.get("paths") or []
    byid = {p["id"]: p for p in paths}
    timed = [p for p in paths if p.get("self_worker_t") is not None]
    total = sum(p["self_worker_t"] for p in timed)
    nw = max(1, len(d["workers"]))
    cap = d["elapsed_ns"] * nw
    slack = nw * (len(paths) + len(d["routines"])) + 2
    # Estimated contexts' times (sampled timing) may exceed the run: as in 8, slack.
    est = sum(sum(t or 0 for t in p.get("time") or []) for p in paths if p.get("time_estimated"))
    est_pct = 100.0 * est / cap if cap > 0 else 0.0
    flat = sum(r["self_worker_t"] or 0 for r in d["routines"])
    other = any(p["routine"] == "<other>" for p in paths)
    counted = {r["name"] for r in d["routines"] if r.get("counted")}
    # 10: --folded, a line per context with a self time; or, without times, no line, and
    # an error where there are contexts.
    flines = [l for l in open(folded).read().split("\n") if l]
    if paths and not timed:
        if folded_rc != "1" or flines:
            out.append("--folded: exit %s and %d lines for contexts without times" % (folded_rc, len(flines)))
    elif folded_rc != "0":
        out.append("--folded: exit %s" % folded_rc)
    fsum = 0
    for l in flines:
        stack, _, n = l.rpartition(" ")
        if not n.isdigit() or int(n) <= 0 or not stack:
            out.append("--folded: not 'stack N' with N > 0: %r" % l)
            continue
        fsum += int(n)
        if set(stack.split(";")) & counted:
            out.append("--folded: a counted routine in a stack: %r" % l)
    if fsum > cap + slack + est:
        out.append("--folded: its lines add up to %d > elapsed x workers %d" % (fsum, cap))
    if flines and fsum + slack < flat and not other:
        out.append("--folded: its lines add up to %d < the flat profile's self times %d" % (fsum, flat))
    want = sum(1 for p in timed if p["self_worker_t"] > 0)
    if timed and (fsum != total or len(flines) != want):
        out.append("--folded: %d lines adding up to %d, the contexts' self times %d in %d contexts"
                   % (len(flines), fsum, total, want))
    # 11: --hatchet: each node's time within its time (inc), which holds its children's.
    h = json.load(open(hatchet))
    def node(n, parent):
        m, f = n["metrics"], n["frame"]
        t, inc = m.get("time"), m.get("time (inc)")
        below = [node(c, inc) for c in n.get("children", [])]
        if "[counted]" in f.get("name", "") or not f.get("name"):
            out.append("--hatchet: a frame named %r" % f.get("name"))
        if f.get("type") == "function" and not all(k in f for k in ("file", "line", "counted")):
            out.append("--hatchet: frame %r without file, line and counted" % f.get("name"))
        if t is not None and inc is not None:
            if t > inc or t + sum(x or 0 for x in below) != inc:
                out.append("--hatchet: %s: time %s, time (inc) %s, its children's %s" % (f["name"], t, inc, below))
            if parent is not None and inc > parent:
                out.append("--hatchet: %s: time (inc) %s above its parent's %s" % (f["name"], inc, parent))
        elif below and timed:
            out.append("--hatchet: %s has no time, yet children" % f["name"])
        return inc
    roots = sum(node(n, None) or 0 for n in h)
    if roots != fsum:
        out.append("--hatchet: the roots' time (inc) adds up to %d, --folded's lines to %d" % (roots, fsum))
    # 12: --csv paths.
    prow = rows(paths_csv)
    byrow = {r["id"]: r for r in prow}
    share = 0.0
    for r in prow:
        p = byid.get(int(r["id"]))
        empty = r.get("self_worker_ns", "") == ""
        if p is None or empty != (p.get("self_worker_t") is None):
            out.append("--csv paths: row %s: self %r, the document's %s" % (r["id"], r.get("self_worker_ns"), p and p.get("self_worker_t")))
            continue
        if empty:
            if r["inclusive_worker_ns"] != "" or r["pct_time"] != "":
                out.append("--csv paths: row %s has no self time, yet an inclusive one or a share" % r["id"])
            continue
        s, inc, pct = int(r["self_worker_ns"]), int(r["inclusive_worker_ns"]), float(r["pct_time"])
        if s > inc or pct > 100 + est_pct or [s, inc] != [p["self_worker_t"], p["inclusive_worker_t"]]:
            out.append("--csv paths: row %s: self %d, inclusive %d, %%time %s (the document's %s, %s)"
                       % (r["id"], s, inc, pct, p["self_worker_t"], p["inclusive_worker_t"]))
        up = byrow.get(r["parent"], {}).get("inclusive_worker_ns", "")
        if r["parent"] == "":
            share += pct
        elif up != "" and inc > int(up):
            out.append("--csv paths: row %s: inclusive %d above its parent %s's %s" % (r["id"], inc, r["parent"], up))
    if share > 100 + est_pct + 0.0001 * len(prow):
        out.append("--csv paths: the roots' %%time adds up to %.4f" % share)
    # 13: the --html page's flame graph data: the sections it draws from (a page cut to the
    # heaviest routines has some of the rows).
    page = open(html).read()
    def embedded(name):
        mark = '<script type="application/json" id="%s">\n' % name
        start = page.index(mark) + len(mark)
        return json.loads(page[start:page.index("</script>", start)])
    S, cut = embedded("cprof-sections"), "cut" in embedded("cprof-profile")
    t = S.get("paths")
    if t:
        col = {c["key"]: i for i, c in enumerate(t["columns"]) if c["key"]}
        inc = {r[col["id"]][1]: (r[col["parent"]][1], r[col["inclusive_worker_ns"]][1]) for r in t["rows"] if r}
        top = 0
        for i, (parent, v) in inc.items():
            if v == "":
                continue
            if parent == "":
                top += int(v)
            elif parent in inc and inc[parent][1] != "" and int(v) > int(inc[parent][1]):
                out.append("--html: the flame graph's context %s is wider than its parent %s (%s > %s)"
                           % (i, parent, v, inc[parent][1]))
        if not cut and top != fsum:
            out.append("--html: the flame graph's roots add up to %d, --folded's lines to %d" % (top, fsum))
finally:
    print("\n".join(out))
PY

# The flat profile as printed (--csv flat, in file $1): the %time column adds up to at
# most 100 (each share rounded to 4 decimals).
shares() {
    tr -d '\r' < "$1" | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pct_time") c = i; next }
        { s += $c; n++ }
        END { if (s > 100 + 0.0001 * n) printf "flat profile: %%time adds up to %.4f\n", s }'
}

# The outputs of profile $1 (checks 9 to 13), its --json document in $2.
outputs() {
    local o=$work/out k
    printf '%s\n' "$2" > "$o.json"
    for k in "--csv flat:flat.csv" "-b:text" "--csv paths:paths.csv" "--hatchet:hatchet" \
             "--html:html"; do
        # shellcheck disable=SC2086
        if ! "$report" ${k%%:*} "$1" > "$o.${k#*:}" 2> "$o.err"; then
            echo "cprof-report ${k%%:*} failed: $(head -n 1 "$o.err")"
            return
        fi
    done
    # Without times, --folded fails (checked against the document).
    "$report" --folded "$1" > "$o.folded" 2> "$o.err"
    k=$?
    shares "$o.flat.csv"
    python3 -c "$OUTPUTS" "$o.json" "$o.flat.csv" "$o.text" "$o.paths.csv" "$o.folded" "$k" \
        "$o.hatchet" "$o.html" 2>&1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/cprof-consistency.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
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
        flat=$(outputs "$f" "$doc")
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
