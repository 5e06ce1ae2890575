#!/usr/bin/env python3
"""source_check.py REPORT PROFILE [OPTION...]: checks cprof-report --source (docs/source.md)
against cprof-report --json of the same profile, exactly:

 * every annotation of the text (a routine's, a call site's per callee, an OpenMP
   construct's) is the one derived here from --json's routines, arcs' sites (their
   calls and outer times by case) and regions, figure by figure as the text report
   formats them (ms with 3 decimals rounded half up, percentages with 2), and every
   routine, site and named construct of --json is annotated once, at its file and line;
 * a file found unchanged is printed line for line as it is on disk (no line lost,
   added or moved: the figures are beside the lines they are about);
 * --csv lines and --source --json's rows hold the same figures, in ns.

OPTION... go to every --source run (--source-dir, --source-map), but --compensate to
every run.  Prints one line per
difference, and "ok N annotations, M files" last if there was none; exit status 1 on a
difference.
"""
import csv
import io
import json
import re
import subprocess
import sys


def run(args):
    return subprocess.run(args, check=True, capture_output=True, text=True,
                          errors="surrogateescape").stdout


def ms(ns):
    """A time as the annotation prints it: "V ms", or "-" if it was not measured."""
    if ns is None:
        return "-"
    q, r = divmod(ns, 1000)
    q += r >= 1000 - r
    return "%d.%03d ms" % (q // 1000, q % 1000)


def pct(part, whole):
    """A share as the annotation prints it ("; P% of the run"), none if not measured."""
    if part is None:
        return ""
    return "; %s%% of the run" % _pct(part, whole)


def _pct(part, whole):
    return "%.2f" % (100.0 * part / whole if whole else 0.0)


def expected(doc):
    """(file, line) -> sorted annotations, derived from --json."""
    routines = doc["routines"]
    total = sum(r["self_worker_t"] or 0 for r in routines)
    names = {}
    for r in routines:
        names[r["name"]] = names.get(r["name"], 0) + 1
    counted = {(r["name"], r["file"]): r.get("counted", False) for r in routines}

    def label(name, file):
        return name + (" (%s)" % file if names[name] > 1 else "") + \
            (" [counted]" if counted[(name, file)] else "")

    clock = doc["clock"] != "none"

    def est(o):
        """(estimated): compensated, or a time that holds one estimated from a sample."""
        return " (estimated)" if doc["compensated"] or o.get("time_estimated") else ""
    out = {}

    def put(file, line, text):
        out.setdefault((file, line), []).append(text)

    for r in routines:
        if not r["line"]:
            continue
        timed = clock and not counted[(r["name"], r["file"])]
        text = "routine %s: entries %d s + %d c" % (label(r["name"], r["file"]), r["s_caller"],
                                                    sum(r["c_caller"]))
        if timed:
            text += "; incl %s, self %s, wall %s%s%s" % (
                ms(r["inclusive_worker_t"]), ms(r["self_worker_t"]), ms(r["inclusive_wall_t"]),
                est(r), pct(r["self_worker_t"], total))
        else:
            text += "; not timed"
        put(r["file"], r["line"], text)
    for a in doc["arcs"]:
        for s in a["sites"]:
            c = s["case_calls"]
            text = "calls %s: S-S %d, S-C %d, C-S %d, C-C %d" % (
                label(a["callee"], a["callee_file"]), c[0], c[1], c[2], c[3])
            if clock and not counted[(a["callee"], a["callee_file"])]:
                t = sum(s["case_outer_t"])
                text += "; time %s%s%s" % (ms(t), est(a), pct(t, total))
            else:
                text += "; not timed"
            put(s["file"], s["line"], text)
    for g in doc.get("regions", []):
        if g["file"] is None:
            continue
        text = "%s: executions %d" % (g["construct"], g["runs"])
        task = g["construct"] == "task"
        if not task:
            lo, hi = g["team_min"], g["team_max"]
            text += ", team %s" % (lo if lo == hi else "%d-%d" % (lo, hi))
        text += "; busy %s, barrier wait %s, end wait %s" % (
            ms(g["busy_t"]), ms(g["barrier_wait_t"]), ms(g["end_wait_t"]))
        if not task:
            text += ", imbalance %s, lost %s" % (
                "-" if g["imbalance"] is None else "%.2f" % g["imbalance"], ms(g["lost_t"]))
        text += "%s%s" % (est({}), pct(g["busy_t"], total))
        put(g["file"], g["line"], text)
    return out


NUMBERED = re.compile(r"^ *(\d+)  (.*)$")


def parse(text, problems):
    """(file, line) -> annotations as printed; file -> (status, where, {line: text})."""
    notes, files = {}, {}
    file = None
    line = None
    by_number = False
    for raw in text.split("\n"):
        if raw.startswith("==> ") and raw.endswith(" <=="):
            file = raw[4:-4]
            files[file] = ["?", None, {}]
            line, by_number = None, True
            continue
        if file is None:
            continue
        if raw.startswith("found as "):
            where, status = raw[9:].split(": ", 1)
            files[file][1] = where
            files[file][0] = ("unchanged" if status == "unchanged" else
                              "unchecked" if status.startswith(("the profile has no hash", "no hash to check")) else
                              "changed")
            by_number = files[file][0] == "changed"
            continue
        if raw.startswith(("compiled as ", "not found", "not a file", "note: ")):
            continue
        if raw.startswith("line ") and "past the file's end" in raw:
            by_number = True
            continue
        if raw.startswith("        ^ "):
            if line is None:
                problems.append("%s: an annotation before any line: %s" % (file, raw))
            else:
                notes.setdefault((file, line), []).append(raw[10:])
            continue
        m = NUMBERED.match(raw)
        if not m:
            file = None
            continue
        n, rest = int(m.group(1)), m.group(2)
        if by_number and rest.startswith("^ "):
            notes.setdefault((file, n), []).append(rest[2:])
        elif rest.startswith("[routine "):
            line = n
        else:
            line = n
            files[file][2][n] = rest
    return notes, files


def main():
    report, profile, opts = sys.argv[1], sys.argv[2], sys.argv[3:]
    load = [o for o in opts if o == "--compensate"]
    report = [report] + load
    opts = [o for o in opts if o not in load]
    problems = []
    doc = json.loads(run(report + ["--json", profile]))
    want = expected(doc)
    got, files = parse(run(report + ["--source"] + opts + [profile]), problems)
    for key in sorted(set(want) | set(got)):
        w, g = sorted(want.get(key, [])), sorted(got.get(key, []))
        if w != g:
            problems.append("%s:%d: --json says %s, --source printed %s" % (key[0], key[1], w, g))
    # A file found unchanged is printed as it is.
    for name, (status, where, lines) in files.items():
        if status not in ("unchanged", "unchecked"):
            continue
        with open(where, "rb") as f:
            disk = f.read().decode("utf-8", "surrogateescape").split("\n")
        if disk and disk[-1] == "":
            disk.pop()
        for n, text in lines.items():
            if n > len(disk) or disk[n - 1] != text:
                problems.append("%s: line %d printed %r, the file has %r" %
                                (name, n, text, disk[n - 1] if n <= len(disk) else None))
        if len(lines) != len(disk):
            problems.append("%s: %d lines printed, the file has %d" % (name, len(lines), len(disk)))
    # The rows for tools: --csv lines is --source --json's lines, and --json's figures.
    rows = list(csv.DictReader(io.StringIO(run(report + ["--csv", "lines"] + opts + [profile]))))
    tool = json.loads(run(report + ["--source", "--json"] + opts + [profile]))["lines"]
    if len(rows) != len(tool):
        problems.append("--csv lines has %d rows, --source --json %d" % (len(rows), len(tool)))
    for r, t in zip(rows, tool):
        for k, v in r.items():
            tv = t[k]
            tv = "" if tv is None else "%.4f" % tv if isinstance(tv, float) else str(tv)
            if v != tv:
                problems.append("%s:%s %s: --csv lines %s=%r, --source --json %r" %
                                (r["file"], r["line"], r["name"], k, v, tv))
    sites = {}
    for a in doc["arcs"]:
        for s in a["sites"]:
            sites[(s["file"], s["line"], a["caller"], a["caller_file"], a["callee"],
                   a["callee_file"])] = s
    calls = 0
    for r in rows:
        if r["kind"] != "call":
            continue
        calls += 1
        s = sites.get((r["file"], int(r["line"]), r["routine"], r["routine_file"], r["name"],
                       r["name_file"]))
        figures = [int(r[k]) for k in ("ss_calls", "sc_calls", "cs_calls", "cc_calls")] + \
            [int(r[k]) if r[k] else None for k in ("ss_ns", "sc_ns", "cs_ns", "cc_ns")]
        if s is None or figures != s["case_calls"] + s["case_outer_t"]:
            problems.append("--csv lines %s:%s %s -> %s: %s, --json's site %s" % (
                r["file"], r["line"], r["routine"], r["name"], figures,
                s and s["case_calls"] + s["case_outer_t"]))
    nsites = sum(len(a["sites"]) for a in doc["arcs"])
    if calls != nsites:
        problems.append("--csv lines has %d call rows, --json %d sites" % (calls, nsites))
    for p in problems:
        print(p)
    if not problems:
        print("ok %d annotations, %d files" % (sum(len(v) for v in got.values()), len(files)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
