// page.js: the script of cprof-report --html's page (reports/page.html, docs/html.md).
//
// The page carries two documents: P, the --json document (docs/report-json.md), and S,
// the text report's sections (and two tables of the page's own) as reports/table.c's
// cprof_table_json gives them: per cell its text, as the text report prints it, and
// its raw value, as --csv prints it.  Every figure shown is one of those texts, so the
// page cannot disagree with the other outputs; the script only lays them out, sorts
// rows by the raw values and sizes bars and boxes by them.
"use strict";
// Done, the body says data-rendered="yes" (the tests wait for it); failed, the page
// says why at the top rather than leaving a half-drawn report.
try {
  draw();
  document.body.setAttribute("data-rendered", "yes");
} catch (e) {
  const p = document.createElement("p");
  p.className = "note";
  p.textContent = "This page could not be drawn: " + e + ".  cprof-report (text) and " +
                  "cprof-report --json give the same figures.";
  document.querySelector("main").prepend(p);
}

function draw() {
  const P = JSON.parse(document.getElementById("cprof-profile").textContent);
  const S = JSON.parse(document.getElementById("cprof-sections").textContent);

  // ---- building blocks ----

  // el("td", {className: "l", title: "..."}, child...): children are nodes or text.
  function el(tag, props, ...kids) {
    const e = document.createElement(tag);
    for (const k in props || {}) {
      if (k.startsWith("data-")) e.setAttribute(k, props[k]);
      else e[k] = props[k];
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }
  // SVG's namespace, as the HTML parser gives it to an <svg> element: the page spells
  // no address at all, so that a search for one (tests/cli/html.sh) finds none.
  const SVG = (() => {
    const d = document.createElement("div");
    d.innerHTML = "<svg></svg>";
    return d.firstChild.namespaceURI;
  })();
  function svg(tag, attrs, ...kids) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }
  function $(id) { return document.getElementById(id); }
  // kids, those that are not null (an optional part left out), appended to e or
  // replacing its children.
  function put(e, ...kids) { e.append(...kids.filter((k) => k !== null)); }
  function fill(e, ...kids) { e.replaceChildren(...kids.filter((k) => k !== null)); }

  // A table of S: its columns found by CSV key or text heading.
  function col(t, name) {
    const i = t.columns.findIndex((c) => c.key === name || c.head === name);
    if (i < 0) throw new Error("no column " + name + " in " + t.title);
    return i;
  }
  const text = (row, i) => row[i][0];
  const raw = (row, i) => row[i][1];
  // Raw values are integers (ns, counts) or reals as --csv prints them; "" is none.
  const num = (s) => (s === "" || s === null ? -Infinity : Number(s));
  const key = (name, file) => name + "\u0000" + (file || "");

  // The routines that ran, in the flat profile's order (worker self, heaviest first).
  const flat = S.flat;
  const F = {name: col(flat, "name"), file: col(flat, "file")};
  const routines = flat.rows.filter(Boolean).map((row, index) => ({
    name: raw(row, F.name), file: raw(row, F.file), label: text(row, F.name), row: row, index: index,
  }));
  const byKey = new Map(routines.map((r) => [key(r.name, r.file), r]));
  const described = new Map(P.routines.map((r) => [key(r.name, r.file), r]));

  // How the text report names a routine: its label, or for <external> the name.
  const labelOf = (name, file) => (byKey.get(key(name, file)) || {label: name}).label;
  // A routine's name as a link to its callers and callees.
  function routineLink(name, file, label) {
    const r = byKey.get(key(name, file));
    if (!r) return document.createTextNode(label);
    const a = el("a", {className: "routine", href: "#routine", textContent: label,
                       title: "callers and callees of " + r.label});
    a.addEventListener("click", (ev) => { ev.preventDefault(); showRoutine(r, true); });
    return a;
  }
  // [counted] is in the text report's label already; inlinable only in a note there.
  function badges(r) {
    const d = described.get(key(r.name, r.file));
    return d && d.inlinable ? [el("span", {className: "badge", textContent: "inlinable",
      title: "timed, though gcc may inline it in a plain build: its facade also costs " +
             "what inlining saves (-fcprof-count-only=NAME counts it at its call sites)"})] : [];
  }

  // ---- source lines: the rows by file and line (S.lines), and links to them ----

  // The source texts embedded with --embed-sources (each file's status either way).
  const SRC = JSON.parse(document.getElementById("cprof-sources").textContent);
  const SL = S.lines;
  const LC = {file: col(SL, "file"), line: col(SL, "line"), kind: col(SL, "kind"), name: col(SL, "name"),
              nfile: col(SL, "name_file"), routine: col(SL, "routine"), rfile: col(SL, "routine_file"),
              calls: col(SL, "calls"), s: col(SL, "s_calls"), c: col(SL, "c_calls"), time: col(SL, "time_ns"),
              self: col(SL, "self_ns"), wall: col(SL, "wall_ns"), pct: col(SL, "pct_time"),
              timed: col(SL, "timed"), est: col(SL, "estimated"), team: col(SL, "team"),
              barrier: col(SL, "barrier_wait_ns"), end: col(SL, "end_wait_ns"), imbal: col(SL, "imbalance"),
              lost: col(SL, "lost_ns")};
  const lineRows = new Map();  // file -> Map(line -> its rows)
  for (const row of SL.rows.filter(Boolean)) {
    const f = raw(row, LC.file), n = Number(raw(row, LC.line));
    if (!lineRows.has(f)) lineRows.set(f, new Map());
    const m = lineRows.get(f);
    if (!m.has(n)) m.set(n, []);
    m.get(n).push(row);
  }
  let showSource = () => {};   // the source view's, once drawn
  // A link that opens file at line in the source view (the label alone where the
  // view has no rows of that file).
  function sourceLink(file, line, label) {
    if (!lineRows.has(file)) return document.createTextNode(label);
    const a = el("a", {className: "src", href: "#source", textContent: label,
                       title: "open " + file + " at line " + line + " in the source view"});
    a.addEventListener("click", (ev) => { ev.preventDefault(); showSource(file, line, true); });
    return a;
  }
  // A cell's "file:line" (a call site, a construct's place) as such a link.
  function placeLink(label) {
    const m = /^\s*(.*):(\d+)$/.exec(label);
    return m ? sourceLink(m[1], Number(m[2]), label) : document.createTextNode(label);
  }
  // The source of a routine (its definition's line), as a small link after its name.
  function routineSource(name, file) {
    const d = described.get(key(name, file));
    if (!d || !d.line || !lineRows.has(d.file)) return null;
    const a = sourceLink(d.file, d.line, "src");
    a.title = "open " + d.file + " at line " + d.line + ", where " + name + " is defined";
    return a;
  }

  // The text report's explanation and notes of table t, under its rendering.
  function notes(t) {
    return t.notes.map((n) => el("p", {className: "note", textContent: n}));
  }
  function explain(t) {
    if (!t.explain) return null;
    return el("details", {}, el("summary", {textContent: "What the columns mean (the text report's explanation)"}),
              el("pre", {textContent: t.explain}));
  }

  // Table t as the text report shows it: its text columns, rules as separators.
  // opts.names: its routine names are links; opts.header false: no header;
  // opts.rows: only those rows.
  function plainTable(t, opts) {
    opts = opts || {};
    const rows = opts.rows || t.rows;
    const shown = t.columns.map((c, i) => i).filter((i) => t.columns[i].head !== null);
    const name = opts.names ? col(t, "name") : -1;
    const fileCol = opts.names ? col(t, "file") : -1;
    const table = el("table", {className: "text-table"});
    if (opts.header !== false)
      table.append(el("thead", {}, el("tr", {}, ...shown.map((i) =>
        el("th", {className: t.columns[i].left ? "l" : "", textContent: t.columns[i].head})))));
    const body = el("tbody");
    for (const row of rows) {
      if (!row) {
        body.append(el("tr", {className: "rule"}, el("td", {colSpan: shown.length})));
        continue;
      }
      body.append(el("tr", {}, ...shown.map((i) => {
        const td = el("td", {className: t.columns[i].left ? "l" : ""});
        if (i === name && text(row, i).trim() !== "") {
          // The call graph indents its parents and children: not part of the link.
          const [, indent, label] = /^(\s*)(.*)$/.exec(text(row, i));
          td.append(indent, routineLink(raw(row, name), raw(row, fileCol), label));
        } else if (t.columns[i].head === "where" || t.columns[i].head === "site")
          td.append(placeLink(text(row, i)));
        else
          td.textContent = text(row, i);
        return td;
      })));
    }
    table.append(body);
    if (!rows.length) return el("p", {className: "empty", textContent: "(none)"});
    return el("div", {className: "scroll"}, table);
  }

  // ---- header and summary ----

  const sum = S.summary;
  const SM = {key: col(sum, "key"), value: col(sum, "value"), item: col(sum, "item")};
  const summaryRow = (k) => sum.rows.find((row) => row && raw(row, SM.key) === k);
  const sv = (k) => { const row = summaryRow(k); return row ? text(row, SM.value) : ""; };
  const plural = (n, what) => n + " " + what + (n === "1" ? "" : "s");
  $("program").textContent = sv("program") || sv("programs");
  document.title = "cprof: " + (P.program.split("/").pop() || P.program);
  $("when").textContent = "started " + sv("start_unix_ns") + ", pid " + sv("pid") + ", " +
    plural(sv("files"), "profile file") + ", clock " + sv("clock");
  function card(k, v, unit, d) {
    return el("div", {className: "card"}, el("div", {className: "k", textContent: k}),
              el("div", {className: "v"}, v, unit ? el("small", {textContent: unit}) : null),
              d ? el("div", {className: "d", textContent: d}) : null);
  }
  $("cards").append(
    card("elapsed", sv("elapsed_ns"), "ms"),
    card("workers", sv("workers"), "", plural(sv("cores"), "core") + ", " +
         plural(sv("pus"), "processing unit")),
    card("calls profiled", sv("calls"), "", sv("s_calls") + " sequential, " + sv("c_calls") + " concurrent"),
    card("overhead, estimated", sv("overhead_ns"), "ms", sv("overhead_pct") + "% of elapsed \u00d7 workers"),
    card("times compensated", sv("compensated"), "", summaryRow("compensated_ns")
      ? sv("compensated_ns") + " ms taken out of self times" : "--compensate takes the profiler's cost out"));
  // Units cprof-cc compiled without profiling: said first, their routines are in no
  // table of the page.
  if (P.unprofiled)
    document.querySelector("main").prepend(el("p", {className: "note", id: "unprofiled",
      textContent: sv("unprofiled_units") + ".  cprof-cc compiled them without profiling " +
        "(-fcprof-strict makes that an error): their routines are in no table below."}));
  // The cards above hold what most readers want; the notes stay in sight, every row of
  // the text report's summary is one click away, in two tables side by side (the run,
  // then its figures from the elapsed time on).
  const half = sum.rows.indexOf(summaryRow("elapsed_ns"));
  fill($("summary-body"), ...notes(sum), el("details", {},
    el("summary", {textContent: "Every row of the text report's summary"}),
    el("div", {className: "halves"},
       plainTable(sum, {header: false, rows: sum.rows.slice(0, half)}),
       plainTable(sum, {header: false, rows: sum.rows.slice(half)})), explain(sum)));
  // A large profile's page holds its heaviest routines only (html.c): say so first.
  if (P.cut)
    $("summary-body").prepend(el("p", {className: "note", id: "cut", textContent:
      "This page shows the " + P.cut.routines_shown + " heaviest of the profile's " +
      P.cut.routines + " routines (by worker self time), their rows in every table and the " +
      "heaviest arcs into and out of them; the summary and the per-worker tables are whole, " +
      "and each table says what it left out.  cprof-report's text, --csv and --json outputs " +
      "have everything."}));

  // ---- flat profile ----

  // Per routine, the calls it made by case (S.by_case), joined to the flat rows.
  const bc = S.by_case;
  const byCase = new Map(bc.rows.filter(Boolean).map((row) =>
    [key(raw(row, col(bc, "name")), raw(row, col(bc, "file"))), row]));
  const CASES = [["S-S", "ss", "s"], ["S-C", "sc", "c"], ["C-S", "cs", "c"], ["C-C", "cc", "c"]];

  function flatView() {
    // Columns: the text report's, with the four cases after the entries.
    const cols = [];
    for (let i = 0; i < flat.columns.length; i++) {
      const c = flat.columns[i];
      if (c.head === null) continue;
      const g = /^(worker|wall) /.test(c.head) ? "time (ms)" : /calls$/.test(c.head) ? "entries"
              : /\/call$/.test(c.head) ? "per call (\u00b5s)" : "";
      cols.push({head: c.head, key: c.key, left: c.left, group: g, at: i,
                 cls: c.head === "s calls" ? "s" : c.head === "c calls" ? "c" : ""});
      if (c.head === "c calls")
        for (const [cs, k, sc] of CASES)
          cols.push({head: cs, key: k + "_calls", group: "calls made, by case", cls: sc, bycase: k});
    }
    const cell = (r, c) => {
      if (!c.bycase) return r.row[c.at];
      const b = byCase.get(key(r.name, r.file));
      return b ? b[col(bc, c.key)] : ["", ""];
    };
    const table = el("table", {className: "flat-table"});
    const groups = el("tr");
    for (let i = 0; i < cols.length;) {
      let j = i;
      while (j < cols.length && cols[j].group === cols[i].group) j++;
      groups.append(el("th", {className: cols[i].group ? "group" : "", colSpan: j - i,
                              textContent: cols[i].group}));
      i = j;
    }
    const heads = el("tr");
    const body = el("tbody");
    let sorted = -1, up = false;
    cols.forEach((c, i) => {
      const th = el("th", {className: "sortable " + c.cls + (c.left ? " l" : ""), textContent: c.head,
                           title: "sort by " + c.head});
      th.addEventListener("click", () => {
        up = sorted === i ? !up : c.left;  // names A to Z first, numbers largest first
        sorted = i;
        heads.querySelectorAll("th").forEach((h) => h.classList.remove("sorted", "up"));
        th.classList.add("sorted");
        if (up) th.classList.add("up");
        sortRows();
      });
      heads.append(th);
    });
    table.append(el("thead", {}, groups, heads), body);
    const pct = col(flat, "pct_time");
    function sortRows() {
      let order = routines.slice();
      if (sorted >= 0) {
        const c = cols[sorted];
        order.sort((a, b) => {
          const x = cell(a, c), y = cell(b, c);
          const d = c.left ? x[0].localeCompare(y[0]) : num(x[1]) - num(y[1]);
          return (up ? d : -d) || a.index - b.index;
        });
      }
      body.replaceChildren(...order.map((r) => el("tr",
        {"data-name": r.name, "data-file": r.file},
        ...cols.map((c) => {
          const x = cell(r, c);
          const td = el("td", {className: c.left ? "l name" : "", "data-col": c.key});
          if (c.key === "name") {
            td.append(routineLink(r.name, r.file, x[0]), ...badges(r));
            const src = routineSource(r.name, r.file);
            if (src) td.append(" ", src);
          } else if (c.at === pct) {
            td.append(el("span", {className: "bar", style: "width:" + Math.max(0, Number(x[1])) * 0.6 + "px"}),
                      x[0]);
          } else {
            td.textContent = x[0];
          }
          const b = c.bycase && byCase.get(key(r.name, r.file));
          if (b) {
            td.title = c.head + " calls made by " + r.label + ": time " + b[col(bc, c.bycase + "_ns")][0] +
                       " ms, outer " + b[col(bc, c.bycase + "_outer_ns")][0] + " ms";
          }
          return td;
        }))));
    }
    sortRows();
    return el("div", {}, el("div", {className: "scroll"}, table), ...notes(flat), explain(flat),
              explainCases());
  }
  function explainCases() {
    return el("details", {}, el("summary", {textContent: "Calls made, by case: what the four cases mean"}),
              el("pre", {textContent: bc.explain + "\n" + S.cases.explain}));
  }
  if (routines.length) fill($("flat-body"), flatView());
  else fill($("flat-body"), el("p", {className: "empty", textContent: "No routine ran."}), ...notes(flat));

  // ---- callers and callees of one routine ----

  const arcs = S.arcs;
  const A = {row: col(arcs, "row"), caller: col(arcs, "caller"), cfile: col(arcs, "caller_file"),
             callee: col(arcs, "callee"), efile: col(arcs, "callee_file"), site: col(arcs, "site"),
             s: col(arcs, "s_calls"), c: col(arcs, "c_calls")};
  // Each arc with its site rows (the rows after it, as the text report lists them).
  const arcList = [];
  for (const row of arcs.rows) {
    if (!row) continue;
    if (raw(row, A.row) === "arc") arcList.push({row: row, sites: []});
    else arcList[arcList.length - 1].sites.push(row);
  }

  // On a cut page, the arcs into (side 0) and out of (1) a routine that it left out.
  const leftOut = new Map(((P.cut && P.cut.arcs_left_out) || []).map((x) => [key(x[0], x[1]), x]));
  // Its arcs (list) into or out of routine r, and a note for those left out.
  function arcsOf(r, side, list, end, efile, what) {
    const x = leftOut.get(key(r.name, r.file));
    const n = x ? x[side + 2] : 0;
    const note = n > 0 ? el("p", {className: "note", textContent: "(" + n + " arcs " +
      (side ? "out of" : "into") + " it are not on this page, each lighter than the page's: " +
      "cprof-report --csv arcs gives them all)"}) : null;
    return [list.length || !note ? arcTable(list, end, efile, what) : null, note];
  }

  // An arc table: the other end's name, then the arc's numbers and site(s).
  function arcTable(list, end, efile, what) {
    if (!list.length) return el("p", {className: "empty", textContent: "(none)"});
    const nums = arcs.columns.map((c, i) => i).filter((i) => arcs.columns[i].head !== null &&
      i !== col(arcs, "arc") && i !== A.site);
    const table = el("table", {}, el("thead", {}, el("tr", {}, el("th", {className: "l", textContent: what}),
      ...nums.map((i) => el("th", {className: /^s /.test(arcs.columns[i].head) ? "s" : /^c /.test(arcs.columns[i].head) ? "c" : "",
                                   textContent: arcs.columns[i].head})),
      el("th", {className: "l", textContent: "site"}))));
    const body = el("tbody");
    for (const a of list) {
      for (const row of [a.row].concat(a.sites)) {
        const first = row === a.row;
        body.append(el("tr", {"data-name": raw(a.row, end), "data-file": raw(a.row, efile)},
          el("td", {className: "l name"}, first ? routineLink(raw(row, end), raw(row, efile), labelOf(raw(row, end), raw(row, efile))) : ""),
          ...nums.map((i) => el("td", {textContent: text(row, i), "data-col": arcs.columns[i].key || ""})),
          el("td", {className: "l"}, placeLink(text(row, A.site)))));
      }
    }
    table.append(body);
    return el("div", {className: "scroll"}, table);
  }

  // Callers | routine | callees, one box each, an edge per kind of call with its count.
  function graph(r, into, out) {
    const ROW = 30, W = 880, BW = 190, BH = 22;
    const n = Math.max(into.length, out.length, 1);
    const H = n * ROW + 10;
    const g = svg("svg", {viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img",
                          "aria-label": "callers and callees of " + r.label});
    const mid = {x: (W - BW) / 2, y: H / 2 - BH / 2};
    const box = (x, y, name, file, label, cls) => {
      const t = svg("text", {x: x + BW / 2, y: y + 15, "text-anchor": "middle"},
                    label.length > 27 ? label.slice(0, 26) + "\u2026" : label);
      const node = svg("g", {}, svg("rect", {x: x, y: y, width: BW, height: BH, rx: 4, class: "box " + cls}),
                       svg("title", {}, label), t);
      const target = byKey.get(key(name, file));
      if (target && target !== r) {
        node.style.cursor = "pointer";
        node.addEventListener("click", () => showRoutine(target, false));
      }
      g.append(node);
    };
    const edges = (list, left) => list.forEach((a, k) => {
      const y = (H - list.length * ROW) / 2 + k * ROW + 4;
      const x = left ? 10 : W - BW - 10;
      const end = left ? A.caller : A.callee, efile = left ? A.cfile : A.efile;
      box(x, y, raw(a.row, end), raw(a.row, efile), labelOf(raw(a.row, end), raw(a.row, efile)), "");
      const kinds = [["s", A.s], ["c", A.c]].filter(([, i]) => num(raw(a.row, i)) > 0);
      kinds.forEach(([kind, i], j) => {
        const dy = (j - (kinds.length - 1) / 2) * 6;
        const x1 = left ? x + BW : mid.x + BW, y1 = (left ? y : mid.y) + BH / 2 + dy;
        const x2 = left ? mid.x : x, y2 = (left ? mid.y : y) + BH / 2 + dy;
        g.append(svg("path", {class: "edge-" + kind, "stroke-width": 1.6,
          d: "M" + x1 + "," + y1 + " C" + (x1 + x2) / 2 + "," + y1 + " " + (x1 + x2) / 2 + "," + y2 + " " + x2 + "," + y2}));
        const lx = left ? x1 + 8 : x2 - 8;
        g.append(svg("text", {x: lx, y: (left ? y1 : y2) - 3, class: "lab-" + kind,
                              "text-anchor": left ? "start" : "end"},
                     text(a.row, i) + (kind === "s" ? " S" : " C")));
      });
    });
    edges(into, true);
    edges(out, false);
    box(mid.x, mid.y, r.name, r.file, r.label, "this");
    return g;
  }

  const pick = $("routine-pick");
  routines.forEach((r, i) => pick.append(el("option", {value: i, textContent: r.label})));
  pick.addEventListener("change", () => showRoutine(routines[pick.value], false));

  function showRoutine(r, scroll) {
    pick.value = r.index;
    const d = described.get(key(r.name, r.file));
    const into = arcList.filter((a) => raw(a.row, A.callee) === r.name && raw(a.row, A.efile) === r.file);
    const out = arcList.filter((a) => raw(a.row, A.caller) === r.name && raw(a.row, A.cfile) === r.file);
    const figures = el("div", {className: "figures"});
    for (const c of flat.columns)
      if (c.head !== null && c.key !== "name")
        figures.append(el("span", {}, c.head + " ", el("b", {textContent: r.row[col(flat, c.key)][0]})));
    const b = byCase.get(key(r.name, r.file));
    const cases = el("table", {}, el("thead", {}, el("tr", {},
      ...["case", "unit", "calls", "time", "outer"].map((h, i) => el("th", {className: i < 2 ? "l" : "", textContent: h})))),
      el("tbody", {}, ...CASES.map(([cs, k, sc]) => el("tr", {"data-case": cs},
        el("td", {className: "l " + (sc === "s" ? "seq" : "conc"), textContent: cs}),
        el("td", {className: "l", textContent: sc === "s" ? "wall" : "worker"}),
        ...["_calls", "_ns", "_outer_ns"].map((f) => el("td", {textContent: b[col(bc, k + f)][0]}))))));
    // The same four counts as the paper's matrix: rows the routine's entry, columns its
    // call, each cell shaded by its share of the calls.
    const n = CASES.map(([cs, k]) => num(raw(b, col(bc, k + "_calls"))));
    const most = Math.max(1, ...n);
    const cell = (i) => el("td", {className: "heat", "data-case": CASES[i][0],
      title: CASES[i][0] + ": " + text(b, col(bc, CASES[i][1] + "_calls")) + " calls, " +
             text(b, col(bc, CASES[i][1] + "_ns")) + " ms",
      textContent: text(b, col(bc, CASES[i][1] + "_calls")),
      style: "background: rgba(29, 78, 216, " + (0.06 + 0.74 * Math.max(0, n[i]) / most).toFixed(3) + ");" +
             (n[i] / most > 0.55 ? "color: #fff;" : "")});
    const matrix = el("table", {className: "matrix"},
      el("thead", {}, el("tr", {}, el("th", {className: "l", textContent: "entered \\ its call"}),
        el("th", {textContent: "sequential"}), el("th", {textContent: "concurrent"}))),
      el("tbody", {},
        el("tr", {}, el("th", {className: "l", textContent: "sequentially"}), cell(0), cell(1)),
        el("tr", {}, el("th", {className: "l", textContent: "concurrently"}), cell(2), cell(3))));
    const workers = workerRow(r);
    fill($("routine-body"),
      el("h3", {}, r.label, el("span", {className: "where"},
        d ? sourceLink(d.file, d.line, d.file + ":" + d.line) : ""), ...badges(r)),
      figures,
      el("div", {className: "scroll"}, graph(r, into, out)),
      el("h4", {textContent: "Called by"}), ...arcsOf(r, 0, into, A.caller, A.cfile, "caller"),
      el("h4", {textContent: "Calls"}), ...arcsOf(r, 1, out, A.callee, A.efile, "callee"),
      el("h4", {textContent: "Calls it made, by case (summed over workers)"}),
      el("div", {className: "halves"}, cases, matrix),
      workers ? el("h4", {textContent: "Its concurrent entries per worker"}) : null, workers);
    if (scroll) $("routine").scrollIntoView();
  }

  // ---- workers: the heat map ----

  const we = S.worker_entries;
  const WE = {name: col(we, "name"), file: col(we, "file"), worker: col(we, "worker"),
              calls: col(we, "calls"), time: col(we, "time_ns")};
  const entries = new Map();  // routine key -> Map(worker -> row)
  for (const row of we.rows.filter(Boolean)) {
    const k = key(raw(row, WE.name), raw(row, WE.file));
    if (!entries.has(k)) entries.set(k, new Map());
    entries.get(k).set(Number(raw(row, WE.worker)), row);
  }
  // The C entries row of the concurrency cases: its workers and imbalance.
  const cs = S.cases;
  const CS = {name: col(cs, "name"), file: col(cs, "file"), kase: col(cs, "case"),
              workers: col(cs, "workers"), imbalance: col(cs, "imbalance")};
  const cEntries = new Map(cs.rows.filter((row) => row && raw(row, CS.kase) === "C entries")
    .map((row) => [key(raw(row, CS.name), raw(row, CS.file)), row]));
  const threads = S.threads;
  const TH = {worker: col(threads, "worker"), tid: col(threads, "tid"), omp: col(threads, "omp_thread"),
              core: col(threads, "core")};
  const heatRows = routines.filter((r) => entries.has(key(r.name, r.file)));
  let metric = "time";

  // One routine's row of the heat map (also under its callers and callees).
  function heatRow(r) {
    const per = entries.get(key(r.name, r.file));
    const m = metric === "time" ? WE.time : WE.calls;
    let max = 0;
    for (const row of per.values()) max = Math.max(max, num(raw(row, m)));
    const c = cEntries.get(key(r.name, r.file));
    const tr = el("tr", {"data-name": r.name, "data-file": r.file},
                  el("td", {className: "l name"}, routineLink(r.name, r.file, r.label)),
                  el("td", {textContent: c ? text(c, CS.workers) : ""}),
                  el("td", {textContent: c ? text(c, CS.imbalance) : "", "data-col": "imbalance"}));
    for (let w = 0; w < P.workers.length; w++) {
      const row = per.get(w);
      if (!row) {
        tr.append(el("td", {className: "nothing", textContent: "\u00b7", title: "worker " + w + ": no entry"}));
        continue;
      }
      const f = max > 0 ? num(raw(row, m)) / max : 0;
      tr.append(el("td", {className: "heat", "data-worker": w, textContent: text(row, m),
        style: "background: rgba(29, 78, 216, " + (0.08 + 0.72 * f).toFixed(3) + ");" +
               (f > 0.55 ? "color: #fff;" : ""),
        title: "worker " + w + ": " + text(row, WE.calls) + " entries, " + text(row, WE.time) + " ms"}));
    }
    return tr;
  }
  function heatHead() {
    return el("thead", {},
      el("tr", {}, el("th", {className: "group", colSpan: 3}),
         el("th", {className: "group", colSpan: P.workers.length,
                   textContent: metric === "time" ? "time of its entries on worker (ms)" : "entries on worker"})),
      el("tr", {}, el("th", {className: "l", textContent: "routine"}),
         el("th", {textContent: "workers", title: "how many workers entered it concurrently"}),
         el("th", {textContent: "imbalance", title: "max / mean of their times over those workers (1.00 is even)"}),
         ...P.workers.map((w, i) => {
           const row = threads.rows.find((x) => x && Number(raw(x, TH.worker)) === i);
           return el("th", {className: "c", textContent: String(i),
             title: "worker " + i + (row ? ": tid " + text(row, TH.tid) + ", OpenMP thread " +
                                           text(row, TH.omp) + ", core " + text(row, TH.core) : "")});
         })));
  }
  function workerRow(r) {
    if (!entries.has(key(r.name, r.file))) return null;
    return el("div", {className: "scroll"}, el("table", {}, heatHead(), el("tbody", {}, heatRow(r))));
  }
  function workersView() {
    const body = $("workers-body");
    if (!heatRows.length) {
      body.append(el("p", {className: "empty", textContent: "No routine was entered concurrently."}));
    } else {
      const table = el("table", {className: "heat-table"});
      const redraw = () => fill(table, heatHead(), el("tbody", {}, ...heatRows.map(heatRow)));
      const buttons = [["time", "time (ms)"], ["calls", "entries"]].map(([m, label]) => {
        const b = el("button", {textContent: label, className: m === metric ? "on" : ""});
        b.addEventListener("click", () => {
          metric = m;
          buttons.forEach((x) => x.classList.toggle("on", x === b));
          redraw();
          if (pick.value !== "") showRoutine(routines[pick.value], false);
        });
        return b;
      });
      redraw();
      put(body, el("div", {className: "controls"}, "Show each worker's", ...buttons,
                     el("span", {className: "legend"}, "less", el("i", {style: "background: linear-gradient(90deg, rgba(29,78,216,.08), rgba(29,78,216,.8))"}), "more, within the row")),
                  el("div", {className: "scroll"}, table), explain(we));
    }
    // Where each worker ran, and what to act on (docs/placement.md), when the profile says.
    const placement = ["placement", "placement-flags", "binding", "machine"].filter((n) => S[n])
      .map((n) => el("div", {className: "placement", id: "section-" + n}, el("h3", {textContent: S[n].title}),
                     plainTable(S[n]), ...notes(S[n]), explain(S[n])));
    put(body, el("h3", {textContent: threads.title}), plainTable(threads), explain(threads), ...placement,
                el("h3", {textContent: S.spread.title}), plainTable(S.spread, {names: true}), explain(S.spread));
  }
  workersView();

  // ---- call paths: the tree and the flame graph ----

  function pathsView() {
    const body = $("paths-body");
    const t = S.paths;
    if (!t) {
      body.append(el("p", {className: "empty", textContent:
        "This profile has no calling contexts (counted routines only, CPROF_MODE=count, " +
        "CPROF_PATHS=0, or a profile of an older cprof)."}));
      return;
    }
    const C = {id: col(t, "id"), parent: col(t, "parent"), path: col(t, "path"), site: col(t, "site"),
               s: col(t, "s_calls"), c: col(t, "c_calls"), incl: col(t, "inclusive_worker_ns")};
    const nodes = new Map(), roots = [];
    for (const row of t.rows.filter(Boolean)) {
      const n = {id: raw(row, C.id), row: row, kids: [], depth: 0};
      const parent = nodes.get(raw(row, C.parent));
      n.parent = parent;
      // A step's name: its path less its parent's (the root's path is its whole name).
      const path = text(row, C.path);
      n.step = parent && path.startsWith(text(parent.row, C.path) + " > ")
        ? path.slice(text(parent.row, C.path).length + 3) : path;
      if (parent) { n.depth = parent.depth + 1; parent.kids.push(n); } else roots.push(n);
      nodes.set(n.id, n);
    }
    // The tree: every context a row, children under their parent, rows in the text
    // report's order (heaviest first under each parent).
    const shown = t.columns.map((c, i) => i).filter((i) => t.columns[i].head !== null && i !== C.path);
    const table = el("table", {className: "path-tree"}, el("thead", {}, el("tr", {},
      el("th", {className: "l", textContent: "context"}),
      ...shown.map((i) => el("th", {className: (t.columns[i].left ? "l " : "") +
        (/^s /.test(t.columns[i].head) ? "s" : /^c /.test(t.columns[i].head) ? "c" : ""),
        textContent: t.columns[i].head})))));
    const tbody = el("tbody");
    const open = new Set();
    const rows = new Map();
    function add(n) {
      const twist = el("span", {className: "twist", textContent: n.kids.length ? "\u25b8" : ""});
      const tr = el("tr", {"data-id": n.id, "data-parent": n.parent ? n.parent.id : ""},
        el("td", {className: "tree", style: "padding-left:" + (6 + 16 * n.depth) + "px",
                  title: text(n.row, C.path)}, twist, el("span", {className: "step", textContent: n.step})),
        ...shown.map((i) => i === C.site
          ? el("td", {className: "l", "data-col": "site"}, placeLink(text(n.row, i)))
          : el("td", {className: t.columns[i].left ? "l" : "", "data-col": t.columns[i].key,
                      textContent: text(n.row, i)})));
      twist.addEventListener("click", () => { open.has(n) ? open.delete(n) : open.add(n); visible(); });
      rows.set(n, {tr: tr, twist: twist});
      tbody.append(tr);
      n.kids.forEach(add);
    }
    roots.forEach(add);
    function visible() {
      for (const [n, x] of rows) {
        let v = true;
        for (let p = n.parent; p; p = p.parent) v = v && open.has(p);
        x.tr.classList.toggle("hidden", !v);
        if (n.kids.length) x.twist.textContent = open.has(n) ? "\u25be" : "\u25b8";
      }
    }
    // Open at first: the three upper levels.
    for (const n of rows.keys()) if (n.depth < 3) open.add(n);
    visible();
    table.append(tbody);
    const all = (on) => () => { for (const n of rows.keys()) on ? open.add(n) : open.delete(n); visible(); };
    const b1 = el("button", {textContent: "open all"}), b2 = el("button", {textContent: "close all"});
    b1.addEventListener("click", all(true));
    b2.addEventListener("click", all(false));
    put(body, el("div", {className: "controls"}, b1, b2), el("div", {className: "scroll"}, table),
                ...notes(t), explain(t));

    // The flame graph (an icicle: roots on top).  A box's width is its context's
    // inclusive worker time, which holds its children's (a context without a time of
    // its own, a counted routine's, has no width: its time is its caller's).
    const weight = new Map();
    const weigh = (n) => {
      n.kids.forEach(weigh);
      weight.set(n, Math.max(0, num(raw(n.row, C.incl))));
    };
    roots.forEach(weigh);
    const W = 1200, RH = 20;
    const holder = el("div", {className: "scroll"});
    const crumbs = el("div", {className: "controls"});
    function draw(top) {
      const depth = (n) => n.kids.reduce((d, c) => Math.max(d, 1 + depth(c)), 0);
      const levels = 1 + top.reduce((d, n) => Math.max(d, depth(n)), 0);
      const g = svg("svg", {class: "flame", viewBox: "0 0 " + W + " " + levels * RH, width: W,
                            height: levels * RH, role: "img", "aria-label": "flame graph of the call paths"});
      const total = top.reduce((s, n) => s + weight.get(n), 0) || 1;
      const place = (n, x, level, scale) => {
        const w = weight.get(n) * scale;
        if (w < 0.5) return;
        const s = num(raw(n.row, C.s)) > 0, c = num(raw(n.row, C.c)) > 0;
        const box = svg("rect", {x: x, y: level * RH, width: w, height: RH - 1,
                                 class: s && c ? "sc" : c ? "c" : "s"},
          svg("title", {}, text(n.row, C.path) + "\n" + shown.map((i) =>
            t.columns[i].head + " " + text(n.row, i)).filter((l) => !/ $/.test(l)).join(", ")));
        box.addEventListener("click", () => draw([n]));
        g.append(box);
        const room = Math.floor((w - 6) / 6.5);
        if (room >= 3)
          g.append(svg("text", {x: x + 3, y: level * RH + 14},
                       n.step.length > room ? n.step.slice(0, room - 1) + "\u2026" : n.step));
        let cx = x;
        for (const k of n.kids) {
          place(k, cx, level + 1, scale);
          cx += weight.get(k) * scale;
        }
      };
      let x = 0;
      for (const n of top) {
        place(n, x, 0, W / total);
        x += weight.get(n) * W / total;
      }
      holder.replaceChildren(g);
      const reset = el("button", {textContent: "whole profile"});
      reset.addEventListener("click", () => draw(roots));
      crumbs.replaceChildren(top === roots ? "Click a box to zoom in on that context." : reset,
        el("span", {className: "legend"}, el("i", {style: "background:#fdba74"}), "sequential",
           el("i", {style: "background:#93c5fd"}), "concurrent", el("i", {style: "background:#c4b5fd"}), "both"));
    }
    draw(roots);
    body.append(el("h3", {textContent: "Flame graph"}),
                el("p", {className: "lead", textContent: "Each box a calling context, as wide as its " +
                  "inclusive worker time (each stretch of a worker's time in one context); what it " +
                  "called is below it.  Hover a box for its figures."}),
                crumbs, holder);
  }
  pathsView();

  // ---- the rest of the text report ----

  const about = {
    cases: "per routine that ran concurrently, its entries and the calls it made in each case, " +
           "with their spread over the workers",
    arcs: "every caller \u2192 callee with its sequential and concurrent calls and times, and its call sites",
    callgraph: "gprof's layout: each routine with its parents above and its children below",
  };
  // An MPI job's ranks and a run's resources beyond time, when the profile has them.
  about.ranks = "an MPI job: per rank its host, workers, elapsed time, calls and busy share";
  about.rank_imbalance = "an MPI job: per routine the spread of its time over the ranks, the slowest rank";
  about.resources = "CPU time, page faults, counters: each worker's exact totals (CPROF_RESOURCES)";
  about["resource-routines"] = "the samples of each resource charged to the routines, S/C split";
  about["resource-paths"] = "the samples of each resource charged to the call paths";
  about.regions = "each OpenMP parallel region and task: busy time, waits, imbalance, time lost";
  about["region-workers"] = "each parallel region and task on each worker: busy time and waits";
  const present = ["ranks", "rank_imbalance", "cases", "arcs", "callgraph", "regions",
                   "region-workers", "resources", "resource-routines",
                   "resource-paths"].filter((name) => S[name]);
  for (const name of present) {
    const t = S[name];
    const names = t.columns.some((c) => c.key === "name") && t.columns.some((c) => c.key === "file");
    put($("sections-body"), el("details", {className: "section", id: "section-" + name},
      el("summary", {}, t.title, el("span", {className: "about", textContent: ": " + about[name]})),
      plainTable(t, {names: names}), ...notes(t), explain(t)));
  }

  // ---- the source view ----

  // Row row's figures on one line, as the text report formats them, each in a span of
  // its column; the S/C split and the workers' figures on hover.
  const SLW = S.line_workers;
  const WC = {file: col(SLW, "file"), line: col(SLW, "line"), kind: col(SLW, "kind"), name: col(SLW, "name"),
              nfile: col(SLW, "name_file"), routine: col(SLW, "routine"), worker: col(SLW, "worker"),
              calls: col(SLW, "calls"), time: col(SLW, "time_ns")};
  const rowKey = (t, C, row) => [C.file, C.line, C.kind, C.name, C.nfile, C.routine].map((i) => raw(row, i)).join("\u0000");
  const workersOf = new Map();
  for (const row of SLW.rows.filter(Boolean)) {
    const k = rowKey(SLW, WC, row);
    if (!workersOf.has(k)) workersOf.set(k, []);
    workersOf.get(k).push(row);
  }
  function figure(row) {
    const kind = raw(row, LC.kind);
    // A figure not measured is "-" alone, without its unit (docs/report.md).
    const f = (i, after, cls) => el("span", {"data-col": SL.columns[i].key || SL.columns[i].head,
                                           className: cls || "",
                                           textContent: text(row, i) + (text(row, i) === "-" ? "" : after || "")});
    const ms = (r, i) => text(r, i) + (text(r, i) === "-" ? "" : " ms");
    const share = () => text(row, LC.pct) === "-" ? [] : ["; ", f(LC.pct, "%")];
    const timed = raw(row, LC.timed) === "yes", est = raw(row, LC.est) === "yes" ? " (estimated)" : "";
    const span = el("span", {className: "fig " + kind, "data-kind": kind, "data-name": raw(row, LC.name)});
    let hover;
    if (kind === "routine") {
      span.append(text(row, LC.name) + ": ", f(LC.s, " s", "seq"), " + ", f(LC.c, " c", "conc"), " entries");
      if (timed) span.append("; incl ", f(LC.time, " ms"), ", self ", f(LC.self, " ms"), est, ...share());
      hover = text(row, LC.name) + ": " + text(row, LC.s) + " sequential and " + text(row, LC.c) +
              " concurrent entries" + (timed ? "; worker incl " + ms(row, LC.time) + ", worker self " +
              ms(row, LC.self) + ", wall incl " + ms(row, LC.wall) + est : ", not timed");
    } else if (kind === "call") {
      span.append("\u2192 " + text(row, LC.name) + " ");
      for (const [cs, k, sc] of CASES)
        span.append(" " + cs + " ", f(col(SL, k + "_calls"), "", sc === "s" ? "seq" : "conc"));
      if (timed) span.append("; ", f(LC.time, " ms"), est, ...share());
      hover = "calls of " + text(row, LC.name) + " from " + text(row, LC.routine) + ": " +
              CASES.map(([cs, k]) => cs + " " + text(row, col(SL, k + "_calls")) +
                        (timed ? " (" + ms(row, col(SL, k + "_ns")) + ")" : "")).join(", ") +
              "; sequential (S-S) " + text(row, LC.s) + ", concurrent " + text(row, LC.c) +
              (timed ? "" : "; not timed");
    } else {
      span.append(text(row, LC.name) + ": ", f(LC.calls, " executions"));
      if (text(row, LC.team)) span.append(", team ", f(LC.team));
      span.append("; busy ", f(LC.time, " ms"), ", barrier ", f(LC.barrier, " ms"), ", end wait ",
                  f(LC.end, " ms"));
      if (text(row, LC.imbal)) span.append(", imbalance ", f(LC.imbal), ", lost ", f(LC.lost, " ms"));
      hover = text(row, LC.name) + " in " + text(row, LC.routine) + ": " + text(row, LC.calls) +
              " executions, busy " + ms(row, LC.time);
    }
    const per = workersOf.get(rowKey(SL, LC, row)) || [];
    span.title = hover + (per.length ? "\n" + per.map((w) => "worker " + text(w, WC.worker) + ": " +
      text(w, WC.calls) + (kind === "routine" ? " entries, " : kind === "call" ? " calls, " : " executions, ") +
      ms(w, WC.time)).join("\n") : "");
    return span;
  }
  function sourceView() {
    const body = $("source-body");
    const files = [...lineRows.keys()];
    if (!files.length) {
      body.append(el("p", {className: "empty", textContent: "No routine, call site or construct of " +
        "this profile is at a line of a source file."}));
      return;
    }
    const info = new Map(SRC.files.map((f) => [f.file, f]));
    const weight = (rows) => Math.max(0, ...rows.map((row) => Math.max(0, num(raw(row, LC.time)))));
    const pickFile = el("select", {id: "source-pick"});
    for (const f of files) pickFile.append(el("option", {value: f, textContent: f}));
    const holder = el("div");
    function draw(file) {
      const rows = lineRows.get(file), x = info.get(file);
      const most = Math.max(1, ...[...rows.values()].map(weight));
      const says = !SRC.embedded ? "This page holds no source text (cprof-report --html --embed-sources " +
                                   "puts the sources found unchanged in it): the figures by line."
        : !x ? "" : x.status === "unchanged" ? "As compiled: found at " + x.found + ", its hash the one recorded."
        : x.status === "unchecked" ? "Found at " + x.found + "; the profile has no hash of it: it may have changed."
        : x.status === "changed" ? "Changed since it was compiled (found at " + x.found + "): its text is not " +
                                   "shown, only the figures by line."
        : x.status === "missing" ? "Not found when this page was made: the figures by line."
        : "Not a file: the figures by line.";
      const text = x && x.text;
      const table = el("table", {className: "source-table"});
      const tbody = el("tbody");
      const lines = text ? text.map((t, i) => i + 1) : [...rows.keys()].sort((a, b) => a - b);
      for (const n of lines) {
        const here = rows.get(n) || [];
        const w = weight(here) / most;
        tbody.append(el("tr", {"data-line": n, className: here.length ? "has" : ""},
          el("td", {className: "ln", textContent: String(n)}),
          el("td", {className: "code", textContent: text ? (text[n - 1] === undefined ? "" : text[n - 1]) : "",
                    style: here.length ? "background: rgba(245, 158, 11, " + (0.05 + 0.55 * w).toFixed(3) + ");" : ""}),
          el("td", {className: "figs"}, ...here.map(figure))));
      }
      table.append(tbody);
      const where = x && x.path ? x.path : "";
      fill(holder, el("p", {className: "lead"}, el("b", {textContent: file}),
                      where ? el("span", {className: "where", textContent: where}) : null),
           says ? el("p", {className: "note", id: "source-status", textContent: says}) : null,
           x && x.conflict ? el("p", {className: "note", textContent: "Note: " + x.conflict}) : null,
           el("div", {className: "scroll"}, table));
    }
    showSource = (file, line, scroll) => {
      pickFile.value = file;
      draw(file);
      const tr = holder.querySelector("tr[data-line=\"" + line + "\"]");
      if (tr) {
        tr.classList.add("hit");
        if (scroll) tr.scrollIntoView({block: "center"});
      }
      if (scroll && !tr) $("source").scrollIntoView();
    };
    pickFile.addEventListener("change", () => draw(pickFile.value));
    // First, the file of the heaviest line.
    let first = files[0], best = -1;
    for (const [f, m] of lineRows)
      for (const rows of m.values())
        if (weight(rows) > best) { best = weight(rows); first = f; }
    put(body, el("div", {className: "controls"}, el("label", {}, "File ", pickFile)), holder,
        ...notes(SL), explain(SL));
    showSource(first, 0, false);
  }
  sourceView();

  // First, the routine at the top of the call graph (its entry [1]: largest self +
  // children), whose callees are the program's main parts.
  const cg = S.callgraph;
  const top = cg.rows.find((row) => row && raw(row, col(cg, "line")) === "primary");
  const first = top && byKey.get(key(raw(top, col(cg, "name")), raw(top, col(cg, "file"))));
  if (first || routines.length) showRoutine(first || routines[0], false);
  else fill($("routine-body"), el("p", {className: "empty", textContent: "No routine ran."}));
}
