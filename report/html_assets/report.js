// crashsim HTML report: draws the data in #crashsim-data with plain DOM
// and SVG. Only the window of crash points on screen is drawn, so a trace
// of any length stays responsive; no network is ever used.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("crashsim-data").textContent);
  const $ = (id) => document.getElementById(id);
  const SVGNS = "http://www.w3.org/2000/svg";
  const LOSS = { missing: 1, initial: 1, earlier: 1, empty: 1, torn: 1, zeros: 1 };
  const EV = D.events;
  const NCOL = EV.length + 1; // column 0: before the first event
  const WIN = 120, LABELW = 300, ROWH = 13, LANEH = 2 * ROWH + 6, GROUPH = 18, TOPH = 22;

  function esc(s) {
    return vis(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }
  // vis shows a name from the trace the way the text report does: a
  // control character, a line break or a bidi control (U+202E would show
  // "evil\u202egnp.exe" as "evilexe.png") is written as an escape, so
  // what is on screen is what is on disk.
  function vis(s) {
    return String(s).replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g, (c) => {
      const named = { "\n": "\\n", "\t": "\\t", "\r": "\\r" }[c];
      if (named) return named;
      const n = c.charCodeAt(0);
      return n < 0x100 ? "\\x" + n.toString(16).padStart(2, "0") : "\\u" + n.toString(16).padStart(4, "0");
    });
  }
  // atArg names an event's line as crashsim states --at takes it: in an
  // -ff set, whose files each count their own lines, with its file.
  function atArg(e) {
    return e.f ? vis(e.f) + ":" + e.l : String(e.l);
  }
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = vis(text);
    return e;
  }

  // Lanes, grouped by directory; process lanes for a trace of many pids.
  const lanes = (D.lanes || []).slice();
  const groups = new Map();
  for (const l of lanes) {
    if (!groups.has(l.dir)) groups.set(l.dir, []);
    groups.get(l.dir).push(l);
  }
  const groupNames = [...groups.keys()].sort();
  const rows = []; // {type: "group"|"lane"|"proc", y, lane, dir, pid}
  let y = TOPH;
  for (const g of groupNames) {
    rows.push({ type: "group", dir: g, y: y });
    y += GROUPH;
    for (const l of groups.get(g).sort((a, b) => (a.path < b.path ? -1 : 1))) {
      l.y = y;
      rows.push({ type: "lane", lane: l, y: y });
      y += LANEH;
    }
  }
  const pids = [...new Set(EV.map((e) => e.p || 0))].sort((a, b) => a - b);
  const procY = new Map();
  if (pids.length > 1) {
    rows.push({ type: "group", dir: "processes and threads", y: y, procs: true });
    y += GROUPH;
    for (const p of pids) {
      procY.set(p, y);
      rows.push({ type: "proc", pid: p, y: y });
      y += ROWH + 4;
    }
  }
  const HEIGHT = y + 6;
  const byDir = new Map(groupNames.map((g, i) => [g, rows.find((r) => r.type === "group" && r.dir === g)]));

  // Outcome sets carried forward: checkpoints every STEP events, so the
  // sets at any column cost at most STEP steps.
  // Columns are wider when there are few of them: the timeline fills the
  // page's width.
  const COLW = Math.max(13, Math.min(160, Math.floor((Math.max(document.documentElement.clientWidth, 800) - LABELW - 60) / Math.min(NCOL, WIN))));
  const STEP = 1024;
  const checkpoints = [{}];
  {
    let cur = {};
    for (let i = 0; i < EV.length; i++) {
      const o = EV[i].pt.o;
      for (const k in o) cur[k] = o[k];
      if ((i + 1) % STEP === 0) checkpoints.push(Object.assign({}, cur));
    }
  }
  function outcomesAt(col) {
    const c = Math.floor(col / STEP);
    const cur = Object.assign({}, checkpoints[c]);
    for (let i = c * STEP; i < col; i++) {
      const o = EV[i].pt.o;
      for (const k in o) cur[k] = o[k];
    }
    return cur;
  }
  const byLine = new Map();
  EV.forEach((e, i) => { if (!byLine.has(e.l)) byLine.set(e.l, i); });
  // colAt is the crash point that holds a state "right after line L": the
  // one after the last event at or before L (an exit, say, moves nothing).
  function colAt(line) {
    let lo = 0, hi = EV.length; // first event with a line past L
    while (lo < hi) { const m = (lo + hi) >> 1; if (EV[m].l <= line) lo = m + 1; else hi = m; }
    return lo;
  }

  // Findings.
  const F = D.findings;
  const findingAt = new Map(); // column -> findings whose demonstration state is there
  F.forEach((f, i) => {
    if (f.state) {
      const col = colAt(f.state.line);
      if (!findingAt.has(col)) findingAt.set(col, []);
      findingAt.get(col).push(i);
    }
  });

  let winStart = 0, selected = -1, highlight = new Set(), activeFinding = -1;

  // Heading.
  $("title").textContent = "crashsim " + D.meta.command + " report";
  $("subtitle").textContent = D.meta.trace + " · crash states under the " + D.meta.model + " model" +
    (D.meta.models && D.meta.models.length ? " · findings under " + D.meta.models.join(", ") : "");
  const sum = $("summary");
  sum.innerHTML = "";
  const part = (id, n, word) => { const s = el("span", { id: id, "data-n": String(n) }, n + " " + word); sum.appendChild(s); sum.appendChild(document.createTextNode(" · ")); };
  part("n-problems", (D.problems || F).length, (D.problems || F).length === 1 ? "problem" : "problems");
  part("n-findings", F.length, F.length === 1 ? "finding" : "findings");
  part("n-points", D.folded.points + 1, D.folded.foldLine > 0 ? "crash points drawn (trace cut at line " + D.folded.foldLine + ")" : "crash points");
  part("n-files", lanes.length, lanes.length === 1 ? "path in scope" : "paths in scope");
  sum.appendChild(document.createTextNode(D.summary.events + " events in the trace"));
  // The verdict, first thing on the page: green only when a check found
  // no problem and the recording hid nothing it needed (a blind spot is
  // never a quiet clean); states pages run no check and give none.
  const blind = D.warnings.some((w) => !w.accepted);
  // An info (unaligned writes) costs speed, not data: it does not turn
  // the verdict red.
  const serious = (D.problems || F).filter((p) => p.severity !== "info").length;
  const verdict = D.meta.command === "states" ? "" : serious > 0 ? "problems" : blind ? "blind" : "clean";
  if (verdict) {
    const v = el("p", { id: "verdict", class: "verdict " + verdict, "data-verdict": verdict });
    v.textContent = {
      clean: D.meta.command === "explore" ? "✓ No problem found: the checker accepted every crash state built." :
        "✓ No problem found under " + (D.meta.models || [D.meta.model]).join(", ") + ": what the program wrote is durable when the trace ends, and no rule that can lose data fires on the way there." +
        ((D.problems || F).length > serious ? " The cards below are notes on speed." : ""),
      blind: "No problem found in what the trace shows, but the recording hides what a verdict needs: see the blind spots below.",
      problems: "✗ " + serious + (serious === 1 ? " problem" : " problems") + ": a crash can lose data; each card below says what to change.",
    }[verdict];
    sum.parentNode.insertBefore(v, sum);
  }
  for (const w of D.warnings) {
    const d = el("div", { class: "blind" + (w.accepted ? " accepted" : "") });
    d.appendChild(el("strong", {}, (w.accepted ? "Accepted blind spot " : "Blind spot ") + w.id + ": "));
    d.appendChild(document.createTextNode(vis(w.message + (w.line ? " (trace line " + w.line + ")" : ""))));
    if (!w.accepted) d.appendChild(el("div", { class: "fix" }, w.fix));
    $("warnings").appendChild(d);
  }
  for (const n of D.notes) $("warnings").appendChild(el("div", { class: "note" }, "Note: " + n.message));

  // Findings list and filters.
  function fillSelect(id, values) {
    const s = $(id);
    for (const v of [...new Set(values)].sort()) s.appendChild(el("option", { value: v }, v));
    s.addEventListener("change", renderFindings);
  }
  fillSelect("f-rule", F.map((f) => f.rule));
  fillSelect("f-sev", F.map((f) => f.severity));
  fillSelect("f-model", [].concat(...F.map((f) => f.models || [])));
  $("f-path").addEventListener("input", renderFindings);

  function findingLines(f) {
    const s = new Set([f.line]);
    for (const r of f.related || []) s.add(r.line);
    return s;
  }
  // Problems: one card per change to make, its findings (the primary
  // first, then its consequences) as buttons in it. A page written
  // without problems shows each finding as its own card.
  const P = D.problems || F.map((f, i) => ({ rule: f.rule, severity: f.severity, path: f.path, paths: [f.path], line: f.line, message: f.message, fix: f.fix, findings: [i] }));
  function findingButton(f, i, primary) {
    const b = el("button", { type: "button", class: "finding sev-" + f.severity + (primary ? " primary" : " consequence"), "data-index": String(i), "aria-pressed": String(i === activeFinding) });
    const head = el("div");
    head.appendChild(el("span", { class: "badge " + f.severity }, f.severity));
    head.appendChild(el("span", { class: "rule" }, f.rule));
    head.appendChild(document.createTextNode(vis(" · " + f.path + " · trace line " + f.line + (f.pid ? " · pid " + f.pid : ""))));
    b.appendChild(head);
    if (!primary && !f.state) b.appendChild(el("div", { class: "msg" }, f.message)); // the card says the primary's
    const rel = el("ul", { class: "related" });
    if (primary) for (const r of f.related || []) rel.appendChild(el("li", { class: "mono" }, "line " + r.line + "  " + r.syscall + "  " + r.what));
    if (f.state) rel.appendChild(el("li", {}, "a crash right after line " + f.state.line + " can leave " + f.state.path + " " + (f.state.words || f.state.outcome + " (" + f.state.persisted + " persisted)")));
    if (f.models && f.models.length) rel.appendChild(el("li", { class: "muted" }, "models: " + f.models.join(", ")));
    b.appendChild(rel);
    b.addEventListener("click", () => pickFinding(i));
    return b;
  }
  function codeBlock(p) {
    const pre = el("pre", { class: "code" });
    const w = String(p.code[p.code.length - 1].n).length;
    for (const c of p.code) {
      const mark = c.n === p.source.line;
      const line = el("span", { class: mark ? "code-line bad" : "code-line" }, (mark ? "> " : "  ") + String(c.n).padStart(w) + " | " + c.t);
      pre.appendChild(line);
      pre.appendChild(document.createTextNode("\n"));
    }
    return pre;
  }
  function renderFindings() {
    const rule = $("f-rule").value, sev = $("f-sev").value, mod = $("f-model").value, path = $("f-path").value;
    const ol = $("findings");
    ol.innerHTML = "";
    let shown = 0;
    P.forEach((p, n) => {
      const keep = p.findings.filter((i) => {
        const f = F[i];
        return !((rule && f.rule !== rule) || (sev && f.severity !== sev) || (mod && !(f.models || []).includes(mod)) || (path && !f.path.includes(path)));
      });
      if (keep.length === 0) return;
      shown += keep.length;
      const li = el("li", { class: "problem sev-" + p.severity, "data-problem": String(n) });
      const head = el("div", { class: "phead" });
      head.appendChild(el("span", { class: "badge " + p.severity }, p.severity));
      head.appendChild(el("span", { class: "rule" }, p.rule));
      const where = p.source ? p.source.file + ":" + p.source.line + (p.source.function ? " in " + p.source.function : "") : "trace line " + p.line;
      head.appendChild(el("span", { class: "where mono" }, where));
      const more = p.paths && p.paths.length > 1 ? " (and " + (p.paths.length - 1) + " more file" + (p.paths.length > 2 ? "s" : "") + ")" : "";
      head.appendChild(el("span", { class: "ppath" }, p.path + more));
      li.appendChild(head);
      li.appendChild(el("div", { class: "msg" }, p.message));
      if (p.fix) li.appendChild(el("div", { class: "fix" }, p.fix));
      if (p.code && p.code.length && p.source) li.appendChild(codeBlock(p));
      const ul = el("ul", { class: "consequences" });
      for (const i of keep) {
        const c = el("li");
        c.appendChild(findingButton(F[i], i, i === p.findings[0] && !p.program));
        ul.appendChild(c);
      }
      li.appendChild(ul);
      ol.appendChild(li);
    });
    $("findings-count").textContent = F.length === 0 ? (verdict === "clean" ? "No problems under the models checked." :
      verdict === "blind" ? "No problems in what the trace shows; the blind spots above say what it could not see." : "This page shows crash states; crashsim check finds the problems.") :
      P.length + (P.length === 1 ? " problem" : " problems") + ", " + F.length + (F.length === 1 ? " finding" : " findings") + "; showing " + shown + " of " + F.length +
      " findings. Each card is one change to make, with the findings it causes. Click a finding to see its trace lines on the timeline and the crash state that shows the loss.";
  }

  function pickFinding(i) {
    activeFinding = i;
    const f = F[i];
    highlight = findingLines(f);
    let first = -1;
    for (const l of highlight) if (byLine.has(l)) first = first < 0 ? byLine.get(l) : Math.min(first, byLine.get(l));
    let col = f.state ? colAt(f.state.line) : first + 1;
    if (first >= 0) winStart = clampWin(first - 5);
    renderFindings();
    if (col > 0) selectPoint(col, false); else drawTimeline();
  }

  function clampWin(s) { return Math.max(0, Math.min(s, Math.max(0, NCOL - WIN))); }

  // Legend.
  const legendItems = [
    ["write (width grows with bytes, log scale)", '<rect x="1" y="3" width="10" height="8" fill="#0072B2"/>'],
    ["O_DIRECT write (past the page cache, not yet durable) / O_SYNC write (durable on return): drawn in the durable row", '<rect x="1" y="3" width="10" height="8" fill="#CC79A7"/>'],
    ["fsync / fdatasync", '<path d="M6 1v10M2 8l4 4 4-4" stroke="#009E73" stroke-width="2" fill="none"/>'],
    ["directory fsync (on the directory row)", '<path d="M1 2h10l-5 9z" fill="#009E73"/>'],
    ["rename (arrow from old name to new)", '<path d="M1 6h8M6 2l4 4-4 4" stroke="#1a1a1a" stroke-width="1.6" fill="none"/>'],
    ["create / mkdir / link", '<circle cx="6" cy="6" r="4.5" fill="none" stroke="#1a1a1a" stroke-width="1.5"/><path d="M6 3v6M3 6h6" stroke="#1a1a1a"/>'],
    ["unlink / rmdir", '<path d="M2 2l8 8M10 2l-8 8" stroke="#D55E00" stroke-width="2"/>'],
    ["failed sync", '<text x="3" y="11" font-weight="700" fill="#D55E00">!</text>'],
    ["durable row: a crash loses nothing", '<rect x="1" y="3" width="10" height="8" fill="#009E73" opacity=".55"/>'],
    ["durable row: a crash can lose data", '<rect x="1" y="3" width="10" height="8" fill="url(#hatch)" stroke="#E69F00"/>'],
    ["a finding's crash state", '<path d="M1 1h10l-5 8z" fill="#D55E00"/>'],
  ];
  $("legend").innerHTML = '<svg width="0" height="0" style="position:absolute"><defs><pattern id="hatch" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="5" height="5" fill="#fbe3b8"/><line x1="0" y1="0" x2="0" y2="5" stroke="#E69F00" stroke-width="3"/></pattern></defs></svg>' +
    legendItems.map(([t, s]) => '<span><svg width="12" height="13" aria-hidden="true">' + s + "</svg>" + esc(t) + "</span>").join("");

  // gone: the name is missing in every crash state, as it is in the page
  // cache (a temp file renamed away, a file deleted, and both made
  // durable): a crash leaves it as the program did, which loses nothing.
  // The model never gives a name that the page cache holds only
  // "missing": every pending operation persisting is one of its states.
  function gone(os) { return os.length === 1 && os[0] === "missing"; }
  function outcomesSafe(os) { return os && (gone(os) || os.every((o) => !LOSS[o])); }
  function loses(os, o) { return LOSS[o] && !gone(os); }

  // A label in the timeline has a fixed room: a lane's name ends before
  // the row names ("page cache", "durable") at LABELW - 62, in 12px
  // monospace (about 7.3px a character). Names are cut at the left, with
  // an ellipsis, keeping their end (the file's name); the full name is
  // the label's tooltip.
  const LANECHARS = Math.floor((LABELW - 62 - 14 - 6) / 7.3);
  function cutLeft(s, n) { return s.length > n ? "…" + s.slice(-(n - 1)) : s; }

  // The timeline: one window of WIN columns.
  function drawTimeline() {
    const end = Math.min(NCOL, winStart + WIN);
    const width = LABELW + (end - winStart) * COLW + 10;
    const x = (col) => LABELW + (col - winStart) * COLW;
    const parts = [];
    parts.push('<svg xmlns="' + SVGNS + '" width="' + width + '" height="' + HEIGHT + '" role="presentation">');
    // Rows: labels and layer backgrounds.
    for (const r of rows) {
      if (r.type === "group") {
        const dir = r.procs ? r.dir : r.dir + "/";
        parts.push('<text class="group-label" x="4" y="' + (r.y + 13) + '"><title>' + esc(dir) + "</title>" + esc(cutLeft(dir, Math.floor((width - 8) / 7.5))) + "</text>");
        parts.push('<line x1="0" x2="' + width + '" y1="' + (r.y + GROUPH - 2) + '" y2="' + (r.y + GROUPH - 2) + '" stroke="#ddd"/>');
      } else if (r.type === "lane") {
        const name = r.lane.path.slice(r.lane.dir.length + 1) || r.lane.path;
        parts.push('<text class="lane-label" x="14" y="' + (r.y + ROWH) + '"><title>' + esc(r.lane.path) + "</title>" + esc(cutLeft(name, LANECHARS)) + "</text>");
        parts.push('<text class="layer-label" x="' + (LABELW - 62) + '" y="' + (r.y + 10) + '">page cache</text>');
        parts.push('<text class="layer-label" x="' + (LABELW - 62) + '" y="' + (r.y + ROWH + 10) + '">durable</text>');
        parts.push('<rect x="' + LABELW + '" y="' + r.y + '" width="' + (width - LABELW) + '" height="' + ROWH + '" fill="#f6f9fc"/>');
        parts.push('<rect x="' + LABELW + '" y="' + (r.y + ROWH) + '" width="' + (width - LABELW) + '" height="' + ROWH + '" fill="#f2f2f2"/>');
      } else {
        parts.push('<text class="lane-label" x="14" y="' + (r.y + 11) + '">pid ' + r.pid + "</text>");
      }
    }
    // Column header and the durable layer's state.
    let cur = outcomesAt(winStart);
    for (let col = winStart; col < end; col++) {
      if (col > 0) { const o = EV[col - 1].pt.o; for (const k in o) cur[k] = o[k]; }
      if (col % 10 === 0) parts.push('<text class="layer-label" x="' + x(col) + '" y="10">' + col + "</text>");
      for (const l of lanes) {
        const os = cur[l.id];
        if (!os) continue;
        const safe = outcomesSafe(os);
        parts.push('<rect class="' + (safe ? "safe" : "risk") + '" data-col="' + col + '" data-lane="' + l.id + '" x="' + x(col) + '" y="' + (l.y + ROWH + 2) + '" width="' + COLW + '" height="' + (ROWH - 4) + '"/>');
        if (!(os.length === 1 && os[0] === "initial") && !gone(os)) parts.push('<rect class="cache" x="' + x(col) + '" y="' + (l.y + 2) + '" width="' + COLW + '" height="' + (ROWH - 4) + '"/>');
      }
      if (col > 0 && highlight.has(EV[col - 1].l)) parts.push('<rect class="hlcol" x="' + x(col) + '" y="' + TOPH + '" width="' + COLW + '" height="' + (HEIGHT - TOPH) + '"/>');
      if (findingAt.has(col)) parts.push('<path class="fmark" d="M' + (x(col) + 1) + " 12h" + (COLW - 2) + "l-" + (COLW / 2 - 1) + ' 8z"><title>' + esc(findingAt.get(col).map((i) => F[i].rule).join(", ")) + "</title></path>");
    }
    // Marks.
    for (let col = Math.max(1, winStart); col < end; col++) {
      const e = EV[col - 1];
      const hl = highlight.has(e.l) ? " hl" : "";
      const cx = x(col) + COLW / 2;
      const attrs = ' data-line="' + e.l + '" data-col="' + col + '"';
      const tip = "<title>line " + e.l + ": " + esc(e.c) + "</title>";
      for (const id of e.n) {
        const l = lanes[id];
        const y0 = l.y, y1 = l.y + ROWH;
        switch (e.k) {
          case "write": case "trunc": {
            const w = e.k === "trunc" ? 3 : Math.max(2, Math.min(COLW - 2, 2 + 1.6 * Math.log2(1 + (e.b || 0)) / 2));
            const durable = e.dio || e.osync;
            parts.push('<rect class="mark' + hl + '"' + attrs + ' x="' + (cx - w / 2) + '" y="' + ((durable ? y1 : y0) + 2) + '" width="' + w + '" height="' + (ROWH - 4) + '" fill="' + (durable ? "#CC79A7" : "#0072B2") + '">' + tip + "</rect>");
            break;
          }
          case "fsync": case "syncall":
            parts.push('<path class="mark' + hl + '"' + attrs + ' d="M' + cx + " " + (y0 + 1) + "V" + (y1 + ROWH - 2) + "M" + (cx - 4) + " " + (y1 + ROWH - 6) + "l4 4 4-4" + '" stroke="#009E73" stroke-width="2.2" fill="none">' + tip + "</path>");
            break;
          case "syncfail":
            parts.push('<text class="mark' + hl + '"' + attrs + ' x="' + (cx - 3) + '" y="' + (y1 + 2) + '" font-weight="700" fill="#D55E00">!' + tip + "</text>");
            break;
          case "dirsync": {
            parts.push('<rect class="mark' + hl + '"' + attrs + ' x="' + (cx - 2) + '" y="' + (y1 + 1) + '" width="4" height="' + (ROWH - 2) + '" fill="#009E73">' + tip + "</rect>");
            break;
          }
          case "unlink":
            parts.push('<path class="mark' + hl + '"' + attrs + ' d="M' + (cx - 4) + " " + (y0 + 2) + "l8 8m0 -8l-8 8" + '" stroke="#D55E00" stroke-width="2">' + tip + "</path>");
            break;
          case "rename":
            if (id + 1 === e.to) parts.push('<circle class="mark' + hl + '"' + attrs + ' cx="' + cx + '" cy="' + (y0 + ROWH / 2) + '" r="3.5" fill="#1a1a1a">' + tip + "</circle>");
            else parts.push('<circle class="mark' + hl + '"' + attrs + ' cx="' + cx + '" cy="' + (y0 + ROWH / 2) + '" r="3.5" fill="none" stroke="#1a1a1a">' + tip + "</circle>");
            break;
          default:
            parts.push('<circle class="mark' + hl + '"' + attrs + ' cx="' + cx + '" cy="' + (y0 + ROWH / 2) + '" r="4.5" fill="#fff" stroke="#1a1a1a" stroke-width="1.5">' + tip + "</circle>");
            parts.push('<path d="M' + cx + " " + (y0 + 3.5) + "v6M" + (cx - 3) + " " + (y0 + 6.5) + 'h6" stroke="#1a1a1a" pointer-events="none"/>');
        }
      }
      if (e.k === "rename" && e.fr && e.to) {
        const a = lanes[e.fr - 1].y + ROWH / 2, b = lanes[e.to - 1].y + ROWH / 2;
        const dir = b > a ? -1 : 1;
        parts.push('<path d="M' + cx + " " + a + "V" + (b + dir * 4) + "M" + (cx - 3.5) + " " + (b + dir * 6) + "l3.5 " + (-dir * 4) + " 3.5 " + (dir * 4) + '" stroke="#1a1a1a" stroke-width="1.6" fill="none" pointer-events="none"/>');
      }
      if (e.k === "dirsync") {
        const dirs = new Set(e.n.map((id) => lanes[id].dir));
        for (const d of dirs) {
          const g = byDir.get(d);
          if (g) parts.push('<path class="mark' + hl + '"' + attrs + ' d="M' + (cx - 5) + " " + (g.y + 3) + "h10l-5 9z" + '" fill="#009E73">' + tip + "</path>");
        }
      }
      if (e.k === "syncall") parts.push('<line x1="' + cx + '" x2="' + cx + '" y1="' + TOPH + '" y2="' + HEIGHT + '" stroke="#009E73" stroke-dasharray="3 2"/>');
      if (procY.size) {
        const py = procY.get(e.p || 0);
        parts.push('<rect class="mark' + hl + '"' + attrs + ' x="' + (cx - 3) + '" y="' + (py + 3) + '" width="6" height="' + (ROWH - 6) + '" fill="#56B4E9">' + tip + "</rect>");
      }
    }
    // The gaps: one clickable column per crash point, drawn last so a
    // click anywhere in the column picks it.
    for (let col = winStart; col < end; col++) {
      const lab = col === 0 ? "before the first event" : "after line " + EV[col - 1].l + ": " + EV[col - 1].c;
      parts.push('<rect class="gap' + (col === selected ? " sel" : "") + '" data-col="' + col + '" x="' + x(col) + '" y="' + TOPH + '" width="' + COLW + '" height="' + (HEIGHT - TOPH) + '"><title>crash ' + esc(lab) + "</title></rect>");
    }
    parts.push("</svg>");
    $("timeline").innerHTML = parts.join("");
    $("window-info").textContent = "crash points " + winStart + "–" + (end - 1) + " of " + (NCOL - 1) + " (" + WIN + " drawn at a time)";
    $("win-prev").disabled = winStart === 0;
    $("win-next").disabled = end >= NCOL;
  }

  $("timeline").addEventListener("click", (ev) => {
    const t = ev.target.closest("[data-col]");
    if (t) selectPoint(Number(t.getAttribute("data-col")), false);
  });
  $("timeline").addEventListener("keydown", (ev) => {
    const k = ev.key;
    let col = selected < 0 ? winStart : selected;
    if (k === "ArrowRight") col++;
    else if (k === "ArrowLeft") col--;
    else if (k === "PageDown") col += WIN;
    else if (k === "PageUp") col -= WIN;
    else if (k === "Home") col = 0;
    else if (k === "End") col = NCOL - 1;
    else return;
    ev.preventDefault();
    selectPoint(Math.max(0, Math.min(NCOL - 1, col)), true);
  });
  $("win-prev").addEventListener("click", () => { winStart = clampWin(winStart - WIN); drawTimeline(); });
  $("win-next").addEventListener("click", () => { winStart = clampWin(winStart + WIN); drawTimeline(); });

  function selectPoint(col, keyboard) {
    selected = col;
    if (col < winStart || col >= winStart + WIN) winStart = clampWin(col - Math.floor(WIN / 2));
    drawTimeline();
    showPoint(col);
    if (keyboard) $("timeline").focus();
  }

  // The crash point panel: outcome sets of every path, and a picture of
  // one state of each path the event changed.
  function showPoint(col) {
    const box = $("point");
    box.innerHTML = "";
    box.setAttribute("data-col", String(col));
    const e = col > 0 ? EV[col - 1] : null;
    const h = el("p");
    if (e) {
      h.appendChild(el("strong", {}, "A crash right after trace line " + atArg(e) + (e.p ? " (pid " + e.p + ")" : "") + ": "));
      h.appendChild(el("code", { class: "call" }, e.c));
      box.setAttribute("data-line", String(e.l));
      const pt = e.pt;
      box.appendChild(h);
      box.appendChild(el("p", { class: "muted" }, "Crash point " + pt.i + ": " + (pt.x ? "" : "at least ") + pt.st + " crash states, " + pt.ex + " explored."));
    } else {
      h.textContent = "Before the first event: every file is as it was before the trace.";
      box.setAttribute("data-line", "0");
      box.appendChild(h);
    }
    const cur = outcomesAt(col);
    const ids = Object.keys(cur).map(Number).sort((a, b) => (lanes[a].path < lanes[b].path ? -1 : 1));
    for (const i of F.keys()) {
      const f = F[i];
      if (f.state && colAt(f.state.line) === col) {
        const d = el("div", { class: "rejected" });
        d.appendChild(el("strong", {}, f.rule + ": "));
        d.appendChild(document.createTextNode(vis("a crash here can leave " + f.state.path + " " + f.state.outcome + " (" + f.state.persisted + " persisted). " + f.message)));
        box.appendChild(d);
      }
    }
    if (ids.length) {
      const t = el("table", { id: "outcomes" });
      t.innerHTML = "<thead><tr><th>path</th><th>what a crash here can leave</th></tr></thead>";
      const tb = el("tbody");
      for (const id of ids) {
        const tr = el("tr", { "data-path": lanes[id].path });
        tr.appendChild(el("td", { class: "mono" }, (e && e.n.includes(id) ? "* " : "") + lanes[id].path));
        const td = el("td", { class: "outcomes" });
        for (const o of cur[id]) td.appendChild(el("span", { class: "out " + (loses(cur[id], o) ? "loss" : "latest"), "data-outcome": o }, o));
        tr.appendChild(td);
        tb.appendChild(tr);
      }
      t.appendChild(tb);
      box.appendChild(t);
      box.appendChild(el("p", { class: "muted" }, "* the event changed this path. latest: what the program last wrote; missing, initial, earlier, empty, torn, zeros: what a crash can leave instead."));
    }
    // The finding picked, when its crash state is here: its path gets a
    // picture even if this event left it alone, with that state chosen.
    const f = activeFinding >= 0 ? F[activeFinding] : null;
    const want = f && f.state && colAt(f.state.line) === col ? f.state : null;
    if (e && e.pt.d) {
      const ids = e.n.filter((id) => e.pt.d[id]);
      const wid = want ? lanes.findIndex((l) => l.path === want.path) : -1;
      if (wid >= 0 && !ids.includes(wid) && detailAt(col, wid)) ids.unshift(wid);
      for (const id of ids) box.appendChild(picture(col, id, e.n.includes(id) ? e.pt.d[id] : detailAt(col, id), e.n.includes(id) ? unlisted(e.pt, id) : unlistedAt(col, id), want && want.path === lanes[id].path ? want : null));
    } else if (e) {
      box.appendChild(el("p", { class: "muted" }, "The states of this point are not kept in the report (only the first " + D.folded.detailKept + " crash points keep them); crashsim states --at " + atArg(e) + " lists them."));
    }
  }

  // picture draws one explored state of a lane: the lane's writes up to
  // the crash point as a bar of the file, each write persisted, lost, torn
  // or size-only.
  // detailAt is the states of lane id at crash point col: those of the
  // last event up to it that changed the lane (null when not kept).
  function detailAt(col, id) {
    for (let i = col - 1; i >= 0; i--) {
      const pt = EV[i].pt;
      if (!pt.d) return null;
      if (pt.o[id]) return pt.d[id] || null;
    }
    return null;
  }

  // unlisted is how many states of lane id point pt counts without
  // listing them (the subsets of a file's pending writes a summarized
  // timeline leaves out of its list); unlistedAt is that of the last
  // event up to crash point col that changed the lane.
  function unlisted(pt, id) {
    return (pt.m && pt.m[id]) || 0;
  }
  function unlistedAt(col, id) {
    for (let i = col - 1; i >= 0; i--) {
      const pt = EV[i].pt;
      if (pt.o[id]) return unlisted(pt, id);
    }
    return 0;
  }

  // stateLabel names a state in its picture's list: its outcome, and when
  // another state there has the same outcome (two torn writes, two
  // earlier versions), what persisted and which version, so that no two
  // choices read alike.
  function stateLabels(states) {
    const n = {};
    for (const s of states) n[s.o] = (n[s.o] || 0) + 1;
    const labels = states.map((s) => n[s.o] < 2 ? s.o : s.o + " (" + s.p + " persisted" + (s.vl ? ", version of line " + s.vl : "") + (s.nl ? ", name as line " + s.nl + " left it" : "") + ")");
    const seen = {};
    return labels.map((l) => { seen[l] = (seen[l] || 0) + 1; return seen[l] > 1 ? l + " #" + seen[l] : l; });
  }

  function picture(col, id, states, more, want) {
    const wrap = el("div", { class: "picture", "data-path": lanes[id].path });
    wrap.appendChild(el("h3", {}, "One crash state of " + lanes[id].path));
    const choices = el("div", { class: "choices", role: "radiogroup" });
    const body = el("div");
    const name = "st-" + col + "-" + id;
    // A finding's state when one was picked here, else the first that
    // loses something.
    let pick = want ? states.findIndex((s) => s.o === want.outcome && s.p === want.persisted) : -1;
    if (pick < 0 && want) pick = states.findIndex((s) => s.o === want.outcome);
    if (pick < 0) pick = states.findIndex((s) => LOSS[s.o]);
    if (pick < 0) pick = 0;
    const labels = stateLabels(states);
    states.forEach((s, i) => {
      const lab = el("label");
      const r = el("input", { type: "radio", name: name, value: String(i), "data-outcome": s.o, "data-persisted": s.p });
      if (i === pick) r.checked = true;
      r.addEventListener("change", () => draw(i));
      lab.appendChild(r);
      lab.appendChild(document.createTextNode(" " + vis(labels[i])));
      choices.appendChild(lab);
    });
    // The states the list leaves out, said at its end (inside the list's
    // box, so that the words of the state drawn still follow it).
    if (more > 0) choices.appendChild(el("p", { class: "muted unlisted" }, "and " + more.toLocaleString("en-US") + " more " + (more === 1 ? "subset" : "subsets") + " of the file's pending changes, " + (more === 1 ? "a state" : "each a state") + " of its own (not listed here; crashsim states --at " + atArg(EV[col - 1]) + " lists them)"));
    wrap.appendChild(choices);
    wrap.appendChild(body);
    // The lane's writes up to this point, following renames (a file
    // written as x.tmp and renamed to x keeps its writes); those a later
    // sync covered are durable whatever the state.
    const lists = new Map(), durable = new Set();
    const list = (l) => { if (!lists.has(l)) lists.set(l, []); return lists.get(l); };
    for (let i = 0; i < col; i++) {
      const ev = EV[i];
      if (ev.k === "rename" && ev.fr && ev.to) {
        const moved = list(ev.fr - 1);
        lists.set(ev.fr - 1, []);
        lists.set(ev.to - 1, moved);
        continue;
      }
      for (const l of ev.n) {
        if (ev.k === "write" || ev.k === "trunc") { list(l).push(ev); if (ev.osync) durable.add(ev); }
        if ((ev.k === "fsync" || ev.k === "syncall") && !ev.err) for (const w of list(l)) durable.add(w);
      }
    }
    const writes = list(id);
    function draw(i) {
      const s = states[i];
      body.innerHTML = "";
      body.appendChild(el("p", {}, s.o + ": " + s.p + " persisted" + (s.nl ? "; the name as line " + s.nl + " left it" : "") + (s.vl ? "; the version line " + s.vl + " wrote" : "")));
      const applied = new Set(s.a || []);
      let size = 0;
      for (const w of writes) size = Math.max(size, Math.max(0, w.o || 0) + (w.b || 0));
      const scale = Math.max(size, 1);
      const W = 600, H = 22;
      const svg = ['<svg viewBox="0 0 ' + (W + 2) + " " + (H + 16) + '" style="width:100%;max-width:' + (W + 2) + 'px" role="img" aria-label="bytes of the file in this state"><rect x="1" y="1" width="' + W + '" height="' + H + '" fill="#f2f2f2" stroke="#999"/>'];
      const lines = el("ul", { class: "lines" });
      for (const w of writes) {
        if (w.k !== "write") continue;
        const off = Math.max(0, w.o || 0);
        const x0 = 1 + W * off / scale, wd = Math.max(2, W * (w.b || 0) / scale);
        let cls = "lost", fill = "#bdbdbd";
        if (durable.has(w)) { cls = w.osync ? "durable when it returned (O_SYNC)" : "durable before (a sync covered it)"; fill = "#7fbfa9"; }
        else if (w.dio) cls = "O_DIRECT: past the page cache, still in the device cache: lost";
        const pendingHere = applied.has(w.l) || s.t === w.l || s.so === w.l;
        if (applied.has(w.l)) { cls = "persisted"; fill = "#009E73"; }
        if (s.t === w.l) { cls = "torn after " + s.tb + " bytes"; fill = "url(#hatch)"; }
        if (s.so === w.l) { cls = "size only: reads back as zeros"; fill = "#ffffff"; }
        if (!pendingHere && s.p === "all") { cls = "persisted"; fill = "#009E73"; }
        if (s.o === "missing") { cls = "unreachable: the name is missing in this state"; fill = "#e0e0e0"; }
        svg.push('<rect x="' + x0 + '" y="3" width="' + wd + '" height="' + (H - 4) + '" fill="' + fill + '" stroke="#1a1a1a" stroke-width=".5"><title>line ' + w.l + ": " + cls + "</title></rect>");
        if (lines.childElementCount === 12) lines.appendChild(el("li", { class: "muted" }, "… and the file's other writes up to here (the bar shows them all)"));
        if (lines.childElementCount < 12) lines.appendChild(el("li", { class: "mono" }, "line " + w.l + " (" + (w.b || 0) + " bytes at " + (w.o < 0 ? "the end" : off) + "): " + cls + " · " + w.c));
      }
      svg.push('<text x="1" y="' + (H + 14) + '" font-size="11">0</text><text x="' + (W - 60) + '" y="' + (H + 14) + '" font-size="11">' + size + " bytes</text></svg>");
      const pic = el("div");
      if (s.o === "missing") {
        // No file at this name: a bar of its bytes would draw a file.
        pic.appendChild(el("p", {}, "No file at " + lanes[id].path + " in this state: the name is missing, so none of the writes below can be read back."));
      } else {
        pic.innerHTML = svg.join("");
      }
      body.appendChild(pic);
      if (writes.length === 0) body.appendChild(el("p", { class: "muted" }, "No writes to this file before this point."));
      body.appendChild(el("p", { class: "muted" }, "Trace lines:"));
      body.appendChild(lines);
      if (s.nl && byLine.has(s.nl)) lines.appendChild(el("li", { class: "mono" }, "line " + s.nl + " (name): " + EV[byLine.get(s.nl)].c));
    }
    draw(pick);
    return wrap;
  }

  // What was folded.
  const fold = [];
  if (D.folded.foldLine > 0) fold.push("This report draws the first " + EV.length + " crash points (its bound is " + D.folded.limit + "); the trace from line " + D.folded.foldLine + " on is not drawn (crashsim states lists every crash point). Every finding is still listed.");
  fold.push(EV.length + " events in scope drawn, in windows of " + WIN + " crash points; the events of the trace that change nothing in scope are left out.");
  if (D.folded.detailKept < EV.length) fold.push("The per-state pictures are kept for the first " + D.folded.detailKept + " crash points.");
  $("folded").textContent = fold.join(" ");

  renderFindings();
  drawTimeline();
  document.body.setAttribute("data-ready", "1");
})();
