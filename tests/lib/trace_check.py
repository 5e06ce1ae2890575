#!/usr/bin/env python3
"""trace_check.py FILE: checks a Chrome Trace Event Format document (cprof-report
--trace) against the format: the document's shape, each event's required fields for
its phase, complete events ("X") nested on each thread (two on one thread either do not
overlap or one holds the other), counters in time order.  With --cprof, also what
cprof's export promises: each thread's complete events written in the order they ended
(an exit's time-stamp never before the one before it), every thread named, a thread's
tid its OS thread id (never 0, which viewers may take for the process), no complete
event with args (speedscope appends them to the frame's name: a routine would be split
by call site), and the counter "workers busy" at each change the number of threads
inside a complete event.
Prints one line per problem (at most 20) and exits 1 if there is any."""
import json, sys
from collections import defaultdict

PHASES = {"B", "E", "X", "i", "I", "C", "M", "b", "e", "n", "s", "t", "f", "P", "O", "N", "D"}
METADATA = {"process_name", "process_labels", "process_sort_index", "thread_name",
            "thread_sort_index"}


def ns(x):
    return round(x * 1000)


def check(doc, cprof):
    errs = []
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        return ["no traceEvents array"]
    if isinstance(doc, dict) and doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        errs.append("displayTimeUnit is neither ms nor ns")
    spans = defaultdict(list)
    ends = {}
    named = set()
    tids = set()
    last_counter = None
    busy = []
    for i, e in enumerate(events):
        where = "event %d" % i
        if not isinstance(e, dict):
            errs.append(where + ": not an object")
            continue
        ph = e.get("ph")
        if ph not in PHASES:
            errs.append(where + ": unknown phase %r" % (ph,))
            continue
        for k in ("pid", "tid"):
            if not isinstance(e.get(k), int):
                errs.append(where + ": %s is not an integer" % k)
        if not isinstance(e.get("name"), str):
            errs.append(where + ": no name")
        if ph == "M":
            if e.get("name") not in METADATA or not isinstance(e.get("args"), dict):
                errs.append(where + ": metadata without a known name and args")
            elif e["name"] == "thread_name":
                named.add((e.get("pid"), e.get("tid")))
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or isinstance(ts, bool) or ts < 0:
            errs.append(where + ": ts is not a number >= 0")
            continue
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, float)) or dur < 0:
                errs.append(where + ": a complete event without dur >= 0")
                continue
            key = (e["pid"], e["tid"])
            tids.add(key)
            spans[key].append((ns(ts), ns(ts) + ns(dur), i))
            if cprof and "args" in e:
                errs.append(where + ": a complete event with args (speedscope adds them to its name)")
            if cprof and e["tid"] == 0:
                errs.append(where + ": tid 0, not the thread's OS thread id")
            if cprof:
                end = ns(ts) + ns(dur)
                if key in ends and end < ends[key]:
                    errs.append(where + ": ends at %d ns, before the event written before it"
                                " on its thread (%d ns)" % (end, ends[key]))
                ends[key] = end
        elif ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or \
                    not all(isinstance(v, (int, float)) for v in args.values()):
                errs.append(where + ": a counter without numeric args")
            if last_counter is not None and ts < last_counter:
                errs.append(where + ": a counter value before the one written before it")
            last_counter = ts
            if e.get("name") == "workers busy" and isinstance(args, dict):
                busy.append((ns(ts), args.get("busy")))
    for key, s in spans.items():
        s.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for a, b, i in s:
            while stack and stack[-1][1] <= a:
                stack.pop()
            if stack and b > stack[-1][1]:
                errs.append("event %d (%d-%d ns) overlaps event %d (%d-%d ns) on pid %s tid %s"
                            " without nesting" % (i, a, b, stack[-1][2], stack[-1][0],
                                                  stack[-1][1], key[0], key[1]))
            stack.append((a, b, i))
    if cprof:
        edges = defaultdict(int)
        for s in spans.values():
            end = -1
            for a, b, i in s:               # sorted: the outermost ones, in time order
                if a >= end:
                    edges[a] += 1
                    edges[b] -= 1
                    end = b
        want, n = [], 0
        for t in sorted(edges):
            if edges[t]:
                n += edges[t]
                if not want or want[-1][1] != n:
                    want.append((t, n))
        if busy != want:
            errs.append("the counter \"workers busy\" is not the number of threads inside a"
                        " complete event: %s, expected %s" % (busy[:8], want[:8]))
        for key in sorted(tids - named):
            errs.append("thread %s of pid %s has no thread_name" % (key[1], key[0]))
    return errs


def main():
    args = sys.argv[1:]
    cprof = "--cprof" in args
    files = [a for a in args if a != "--cprof"]
    if len(files) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        with open(files[0]) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("%s: not JSON: %s" % (files[0], e))
        return 1
    errs = check(doc, cprof)
    for e in errs[:20]:
        print("%s: %s" % (files[0], e))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
