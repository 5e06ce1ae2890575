#!/usr/bin/env python3
"""same_profile.py A.json B.json: whether two cprof-report --json documents of one
program, built by two compilers (gcc's build first), profile the same calls.

Compared exactly: every routine's entries and calls by case (S-S, S-C, C-S, C-C, the
per-worker arrays summed: which worker ran what is the runtime's choice), every arc's
and call site's sequential and concurrent calls, every calling context (its path of
routines, <parallel> and <task> steps with their sites) and its calls by case, and every
parallel region's and task construct's executions, runs, tasks opened and team sizes.
Not compared: times, and the constructs that end at a barrier (for, sections, single,
barrier): clang keeps the barrier of a worksharing construct that ends a parallel
region, where gcc leaves the wait to the region's closing one, and libomp's reductions
and copyin wait at barriers of their own (docs/cprof-cc.md, "Clang").
Prints the differences (at most 20) and exits 1 if there are any."""
import json
import sys


def total(v):
    return sum(v) if isinstance(v, list) else v


def facts(path):
    d = json.load(open(path))
    out = set()
    for r in d.get("routines", []):
        out.add(("routine", r["name"], r["file"], r["s_caller"], total(r["c_caller"]),
                 r["s_callee"], total(r["c_callee"]), total(r["cs_callee"]),
                 total(r["cc_callee"])))
    for a in d.get("arcs", []):
        out.add(("arc", a["caller"], a["caller_file"], a["callee"], a["callee_file"],
                 a["s_callarc"], a["c_callarc"]))
        for s in a.get("sites", []):
            out.add(("site", a["caller"], a["callee"], s.get("file"), s.get("line"),
                     json.dumps({k: v for k, v in s.items() if k.endswith("callarc")},
                                sort_keys=True)))
    paths = {p["id"]: p for p in d.get("paths", [])}

    def step(p):
        s = p.get("site")
        return p["routine"] + ("@%s:%s" % (s["file"], s["line"]) if s else "")

    def name(p):
        steps = []
        while p is not None:
            steps.append(step(p))
            p = paths.get(p["parent"]) if p["parent"] is not None else None
        return " > ".join(reversed(steps))

    for p in paths.values():
        out.add(("path", name(p), tuple(p["calls"])))
    for g in d.get("regions", []):
        if g["construct"] in ("parallel", "task"):
            out.add(("region", g["construct"], g["file"], g["line"], g["routine"], g["runs"],
                     g["executions"], g["opened"], g["team_min"], g["team_max"],
                     g["team_sum"]))
    return out


def main():
    a, b = facts(sys.argv[1]), facts(sys.argv[2])
    diffs = sorted(("only in the first (gcc's)", f) for f in a - b)
    diffs += sorted(("only in the second", f) for f in b - a)
    for where, f in diffs[:20]:
        print("%s: %s" % (where, " ".join(str(x) for x in f)))
    if len(diffs) > 20:
        print("... %d more" % (len(diffs) - 20))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
