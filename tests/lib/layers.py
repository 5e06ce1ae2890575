#!/usr/bin/env python3
"""layers.py ROOT OBJDIR: the folders' rules of docs/architecture.md ("Rules of the
folders") held by ROOT's sources, by their #include lines and by the symbols their
objects (OBJDIR/PATH.o for ROOT/PATH.c, nm) define and use.

Prints one line per check, "ok NAME" or "not ok NAME" followed by indented lines that
say which file breaks it; exits 1 if one failed, 2 if it could not run.
  * each file includes only what its folder's rule allows, and a private header only
    from its own folder;
  * each object calls (references a symbol defined in) only the objects its folder's
    rule allows;
  * no circle between files: an edge is an #include (of a header: the types and
    declarations it holds) or a call (an object's reference to a symbol another
    defines); each circle is printed once with the edges that make it.
"""
import os
import re
import subprocess
import sys


def fail(msg):
    print("layers.py: " + msg, file=sys.stderr)
    sys.exit(2)


def rules_of(doc):
    """The rows of the table under "Rules of the folders": {scope: {column: [paths]}}."""
    rules, head, inside = {}, None, False
    for line in open(doc, encoding="utf-8"):
        if line.startswith("## "):
            inside = line.strip() == "## Rules of the folders"
            continue
        if not inside or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if head is None:
            head = cells
            continue
        if set("".join(cells)) <= set("- "):
            continue
        row = {h: re.findall(r"`([^`]+)`", c) for h, c in zip(head, cells)}
        scope = row[head[0]]
        if len(scope) != 1:
            fail(f"{doc}: a rule's first cell names one folder or file: {line.strip()}")
        rules[scope[0]] = row
    for want in ("may include", "may call", "private"):
        if head is None or want not in head:
            fail(f"{doc}: no table with a column '{want}' under '## Rules of the folders'")
    return rules


def within(path, scope):
    return path == scope or (scope.endswith("/") and path.startswith(scope))


def rule_for(path, rules):
    """The most specific rule whose scope holds path (a file before its folder)."""
    best = None
    for scope in rules:
        if within(path, scope) and (best is None or len(scope) > len(best)):
            best = scope
    return best


def main():
    if len(sys.argv) != 3:
        fail("usage: layers.py ROOT OBJDIR")
    root, objdir = sys.argv[1], sys.argv[2]
    rules = rules_of(os.path.join(root, "docs/architecture.md"))
    private = {p for r in rules.values() for p in r["private"]}

    files = []
    for scope in rules:
        top = os.path.join(root, scope)
        if os.path.isfile(top):
            files.append(scope)
            continue
        if not os.path.isdir(top):
            fail(f"docs/architecture.md's rule names {scope}, which is not in {root}")
        for name in sorted(os.listdir(top)):
            if name.endswith((".c", ".h")) and rule_for(scope + name, rules) == scope:
                files.append(scope + name)

    # #include "..." lines, resolved against the including file's folder.
    includes = {}
    for f in files:
        text = open(os.path.join(root, f), encoding="utf-8").read()
        for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            target = os.path.normpath(os.path.join(os.path.dirname(f), m.group(1)))
            includes.setdefault(f, []).append(target)

    # Symbols: who defines each, who uses which.
    defined, used = {}, {}
    for f in files:
        if not f.endswith(".c"):
            continue
        obj = os.path.join(objdir, f[:-2] + ".o")
        if not os.path.isfile(obj):
            fail(f"no object {obj} (make)")
        out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                used.setdefault(f, set()).add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDRBVWC" and parts[1].isupper():
                if parts[2] in defined and defined[parts[2]] != f:
                    fail(f"{parts[2]} is defined in {defined[parts[2]]} and {f}")
                defined[parts[2]] = f
    calls = {f: sorted({(defined[s], s) for s in syms if s in defined and defined[s] != f})
             for f, syms in used.items()}

    failed = False

    def report(name, bad):
        nonlocal failed
        if bad:
            failed = True
            print(f"not ok {name}")
            for b in bad:
                print("    " + b)
        else:
            print(f"ok {name}")

    bad = []
    for f in files:
        rule = rules[rule_for(f, rules)]
        for t in includes.get(f, []):
            scope_t = rule_for(t, rules)
            if t in private and not within(f, os.path.dirname(t) + "/"):
                bad.append(f"{f} includes {t}, private to {os.path.dirname(t)}/")
            elif not any(within(t, s) for s in rule["may include"]):
                bad.append(f"{f} includes {t}: {rule_for(f, rules)} may include only "
                           + ", ".join(rule["may include"]))
            elif scope_t is not None and not os.path.exists(os.path.join(root, t)):
                bad.append(f"{f} includes {t}, which does not exist")
    report("each file includes only what its folder's rule allows", bad)

    bad = []
    for f in files:
        rule = rules[rule_for(f, rules)]
        for g, sym in calls.get(f, []):
            if not any(within(g, s) for s in rule["may call"]):
                bad.append(f"{f} calls {sym} of {g}: {rule_for(f, rules)} may call only "
                           + ", ".join(rule["may call"]))
    report("each object calls only what its folder's rule allows (nm)", bad)

    # One node per file; edges from includes and calls.
    edges, why = {}, {}
    for f in files:
        for t in includes.get(f, []):
            if rule_for(t, rules) is not None:
                edges.setdefault(f, set()).add(t)
                why.setdefault((f, t), f"{f} includes {t}")
        for g, sym in calls.get(f, []):
            edges.setdefault(f, set()).add(g)
            why.setdefault((f, g), f"{f} calls {sym} of {g}")
    # Tarjan's strongly connected components: each one of more than a node is a circle.
    index, low, stack, on, comps = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    for v in files:
        if v not in index:
            visit(v)
    bad = []
    for comp in comps:
        if len(comp) < 2:
            continue
        inside = sorted((a, b) for a in comp for b in edges.get(a, ()) if b in comp)
        bad.append("circle of " + " ".join(comp) + ":")
        bad += ["    " + why[e] for e in inside]
    report("no circle between the files (#include and nm)", bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
