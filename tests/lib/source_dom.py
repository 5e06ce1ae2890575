#!/usr/bin/env python3
"""source_dom.py DOM|--text REPORT: the figures of cprof-report --html's source view
(reports/views/page.js) in a DOM Chromium dumped, or of cprof-report --source's text, one
line each in one form, "LINE|KIND|NAME|FIGURE|...", sorted: a routine's entries (s, c)
and its incl, self and %time; a call's calls by case and its time and %time; a
construct's executions and busy, barrier and end wait times (units left out).  The
two forms of one profile give the same lines (tests/cli/html.sh); with --text the
file's annotated lines are those of REPORT's first file.  --hover: each call's
hover text instead, "LINE|NAME|TITLE".
"""
import html.parser
import re
import sys


class Dom(html.parser.HTMLParser):
    """The source table's rows: per figure span its line, kind, name, title and the
    texts of its data-col spans."""

    def __init__(self):
        super().__init__()
        self.figs, self.line, self.fig, self.col, self.depth = [], None, None, None, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and "data-line" in a:
            self.line = a["data-line"]
        if tag == "span" and "fig" in a.get("class", "").split():
            self.fig = {"line": self.line, "kind": a["data-kind"], "name": a["data-name"],
                        "title": a.get("title", ""), "cols": {}, "text": ""}
            self.figs.append(self.fig)
            self.depth = 0
        elif tag == "span" and self.fig is not None:
            self.depth += 1
            self.col = a.get("data-col")

    def handle_endtag(self, tag):
        if tag == "span" and self.fig is not None:
            if self.depth == 0:
                self.fig = None
            else:
                self.depth -= 1
                self.col = None

    def handle_data(self, data):
        if self.fig is not None:
            self.fig["text"] += data
            if self.col:
                self.fig["cols"][self.col] = self.fig["cols"].get(self.col, "") + data


def num(s):
    return re.sub(r"( ms| executions| s| c|%)$", "", s.strip())


def from_dom(path, hover):
    d = Dom()
    d.feed(open(path, encoding="utf-8").read())
    out = []
    for f in d.figs:
        c = {k: num(v) for k, v in f["cols"].items()}
        if hover:
            if f["kind"] == "call":
                out.append("%s|%s|%s" % (f["line"], f["name"], f["title"].replace("\n", "\\n")))
            continue
        label = f["text"].split(":")[0] if f["kind"] == "routine" else \
            f["text"][2:].split("  ")[0].strip() if f["kind"] == "call" else f["name"]
        if f["kind"] == "routine":
            vals = [c["s_calls"], c["c_calls"], c.get("time_ns", ""), c.get("self_ns", ""), c.get("pct_time", "")]
        elif f["kind"] == "call":
            vals = [c["ss_calls"], c["sc_calls"], c["cs_calls"], c["cc_calls"], c.get("time_ns", ""),
                    c.get("pct_time", "")]
        else:
            vals = [c["calls"], c["time_ns"], c["barrier_wait_ns"], c["end_wait_ns"]]
        out.append("|".join([f["line"], f["kind"], label] + vals))
    return out


# A time is "V ms", or "-" where it was not measured; a share is left out then.
T = r"([\d.]+|-)(?: ms)?"
ROUTINE = re.compile(r"routine (.*): entries (\d+) s \+ (\d+) c(?:; incl " + T + ", self " + T + ", "
                     r"wall (?:[\d.]+ ms|-)(?: \(estimated\))?(?:; ([\d.]+)% of the run)?|; not timed)$")
CALL = re.compile(r"calls (.*): S-S (\d+), S-C (\d+), C-S (\d+), C-C (\d+)(?:; time " + T +
                  r"(?: \(estimated\))?(?:; ([\d.]+)% of the run)?|; not timed)$")
CONSTRUCT = re.compile(r"(\w+): executions (\d+)(?:, team [\d-]+)?; busy " + T + ", barrier wait " +
                       T + ", end wait " + T)


def from_text(path):
    out, line, files = [], None, 0
    for raw in open(path, encoding="utf-8"):
        raw = raw.rstrip("\n")
        if raw.startswith("==> "):
            files += 1
        if files != 1:
            continue
        m = re.match(r"^ *(\d+)  ", raw)
        if m:
            line = m.group(1)
            continue
        if not raw.startswith("        ^ "):
            continue
        a = raw[10:]
        for kind, rx in (("routine", ROUTINE), ("call", CALL), ("construct", CONSTRUCT)):
            m = rx.match(a)
            if m:
                out.append("|".join([line, kind] + [g or "" for g in m.groups()]))
                break
        else:
            out.append("%s|?|%s" % (line, a))
    return out


if __name__ == "__main__":
    if sys.argv[1] == "--text":
        rows = from_text(sys.argv[2])
    else:
        rows = from_dom(sys.argv[-1], sys.argv[1] == "--hover")
    print("\n".join(sorted(rows)))
