// roomspec report: the table of rows (drawn only where it is in view),
// the filters, and each row's sequence diagram, drawn when it is opened.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("data").textContent);
  var S = data.S;
  var hidden = data.hide || [];
  var cols = [], colAt = [];
  data.cols.forEach(function (c, i) {
    if (hidden.indexOf(c.k) < 0) { cols.push(c); colAt.push(i); }
  });
  var rows = data.rows.map(function (r, i) {
    return { id: r[0], verdict: S[r[1]], cells: r[2], d: r[3], i: i, text: null };
  });

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;";
    });
  }
  function cell(r, k) { return S[r.cells[colAt[k]]]; }

  // ---- filters, search, sorting ----------------------------------------
  var state = { verdict: null, query: "", sort: -1, dir: 1 };
  var view = rows;
  var filters = document.getElementById("filters");
  function button(label, verdict) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.dataset.verdict = verdict === null ? "" : verdict;
    b.setAttribute("aria-pressed", String(state.verdict === verdict));
    b.addEventListener("click", function () {
      state.verdict = verdict;
      Array.prototype.forEach.call(filters.children, function (x) {
        x.setAttribute("aria-pressed", String(x === b));
      });
      apply();
    });
    filters.appendChild(b);
  }
  var counts = {};
  rows.forEach(function (r) { counts[r.verdict] = (counts[r.verdict] || 0) + 1; });
  button("all " + rows.length, null);
  data.verdicts.forEach(function (v) {
    if (counts[v]) { button(v + " " + counts[v], v); }
  });
  document.getElementById("search").addEventListener("input", function (e) {
    state.query = e.target.value.trim().toLowerCase();
    apply();
  });

  function compare(k) {
    var type = cols[k].y;
    return function (a, b) {
      var x = cell(a, k), y = cell(b, k);
      var ex = x === "" || x === "-", ey = y === "" || y === "-";
      if (ex || ey) { return ex === ey ? a.i - b.i : ex ? 1 : -1; }
      var c;
      if (type === "int" && /^-?\d+$/.test(x) && /^-?\d+$/.test(y)) {
        var bx = BigInt(x), by = BigInt(y);
        c = bx < by ? -1 : bx > by ? 1 : 0;
      } else if (type === "num" || type === "int") {
        c = parseFloat(x) - parseFloat(y);
      } else {
        c = x < y ? -1 : x > y ? 1 : 0;
      }
      return c * state.dir || a.i - b.i;
    };
  }
  function rowText(r) {
    if (r.text === null) {
      r.text = r.cells.map(function (c) { return S[c]; }).join(" ").toLowerCase();
    }
    return r.text;
  }
  function apply() {
    view = rows.filter(function (r) {
      return (state.verdict === null || r.verdict === state.verdict) &&
        (state.query === "" || rowText(r).indexOf(state.query) >= 0);
    });
    if (state.sort >= 0) { view.sort(compare(state.sort)); }
    document.getElementById("shown").textContent = view.length + " of " + rows.length + " shown";
    tableEl.scrollTop = 0;
    draw();
  }

  // ---- the table: only the rows in view are in the document -------------
  var ROW = 26, OVERSCAN = 12, TABLE_H = 420;
  var tableEl = document.getElementById("table");
  var head = document.getElementById("head");
  var body = document.getElementById("body");
  cols.forEach(function (c, k) {
    var th = document.createElement("th");
    th.textContent = c.t;
    th.dataset.k = c.k;
    th.addEventListener("click", function () {
      state.dir = state.sort === k ? -state.dir : 1;
      state.sort = k;
      Array.prototype.forEach.call(head.children, function (x, j) {
        if (j === k) { x.setAttribute("aria-sort", state.dir > 0 ? "ascending" : "descending"); } else { x.removeAttribute("aria-sort"); }
      });
      apply();
    });
    head.appendChild(th);
  });
  var selected = null, drawn = null;
  // draw puts the rows in view (and a margin) into the table; it leaves
  // the table alone when those rows are there already, so that scrolling
  // within them costs nothing and clicks land on the rows they aimed at.
  function draw() {
    // (Before the first rows are in, the table is only as high as its
    // header: draw as many rows as its full height shows.)
    var top = tableEl.scrollTop, h = Math.max(tableEl.clientHeight, TABLE_H);
    var first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    var last = Math.min(view.length, Math.ceil((top + h) / ROW) + OVERSCAN);
    if (drawn && drawn.view === view && drawn.first <= first && drawn.last >= last &&
        (first > 0 || drawn.first === 0) && (last < view.length || drawn.last === view.length)) { return; }
    first = Math.max(0, first - OVERSCAN);
    last = Math.min(view.length, last + OVERSCAN);
    drawn = { view: view, first: first, last: last };
    var html = "";
    if (first > 0) { html += '<tr class="pad" style="height:' + first * ROW + 'px"></tr>'; }
    for (var i = first; i < last; i++) {
      var r = view[i];
      html += '<tr class="r' + (r === selected ? " sel" : "") + '" data-n="' + r.i + '" data-id="' + esc(r.id) +
        '" data-verdict="' + esc(r.verdict) + '">';
      for (var k = 0; k < cols.length; k++) {
        var v = cell(r, k);
        html += '<td data-k="' + esc(cols[k].k) + '" title="' + esc(v) + '">' + esc(v) + "</td>";
      }
      html += "</tr>";
    }
    if (last < view.length) { html += '<tr class="pad" style="height:' + (view.length - last) * ROW + 'px"></tr>'; }
    body.innerHTML = html;
  }
  var pending = false;
  tableEl.addEventListener("scroll", function () {
    if (!pending) {
      pending = true;
      requestAnimationFrame(function () { pending = false; draw(); });
    }
  });
  body.addEventListener("click", function (e) {
    var tr = e.target.closest("tr.r");
    if (tr) { open(rows[+tr.dataset.n], true); }
  });
  tableEl.addEventListener("keydown", function (e) {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") { return; }
    e.preventDefault();
    var at = view.indexOf(selected) + (e.key === "ArrowDown" ? 1 : -1);
    if (at >= 0 && at < view.length) {
      open(view[at], true);
      var y = at * ROW;
      if (y < tableEl.scrollTop || y > tableEl.scrollTop + tableEl.clientHeight - 2 * ROW) { tableEl.scrollTop = y - ROW; }
    }
  });

  // ---- a row's detail and sequence diagram ------------------------------
  var detail = document.getElementById("detail");
  function open(r, byUser) {
    selected = r;
    Array.prototype.forEach.call(body.querySelectorAll("tr.r"), function (tr) {
      tr.classList.toggle("sel", +tr.dataset.n === r.i);
    });
    if (byUser) { history.replaceState(null, "", "#" + encodeURIComponent(r.id)); }
    var html = "";
    if (r.d < 0) {
      html = '<div class="head"><h2>' + esc(r.id) + '</h2><span class="verdict">' + esc(r.verdict) + "</span></div>" +
        "<p>No diagram: " + esc(cell(r, cols.length - 1) || "nothing to draw for this row") + "</p>";
      detail.innerHTML = html;
      detail.hidden = false;
      detail.dataset.row = r.id;
      current = null;
      return;
    }
    var D = data.D[r.d];
    var v = S[D.v];
    var cls = /violated|invalid|pinned|fails/.test(v) ? "bad" : v === "at-risk" ? "risk" : v === "predicted-released" ? "pred" : /satisfied|holds/.test(v) ? "ok" : "";
    html += '<div class="head"><h2>' + esc(S[D.t]) + "</h2>" + (v ? '<span class="verdict ' + cls + '">' + esc(v) + "</span>" : "") + "</div>";
    if (S[D.r]) { html += "<p>" + esc(S[D.r]) + "</p>"; }
    if (D.w != null) { html += '<p class="why"><b>Why pinned:</b> ' + esc(S[D.w]) + "</p>"; }
    (D.n || []).forEach(function (n) { html += '<p class="muted">' + esc(S[n]) + "</p>"; });
    if (S[D.t0] && S[D.t0] !== "-") { html += '<p class="muted">Times are after the room\'s first observation, at ' + esc(S[D.t0]) + ".</p>"; }
    html += legend();
    html += '<div class="diagram">' + diagram(D) + "</div>";
    detail.innerHTML = html;
    detail.hidden = false;
    detail.dataset.row = r.id;
    current = D;
    fit(detail.querySelector("svg.seq"));
  }
  // fit widens a diagram to its longest text (log lines are as long as
  // they are): the svg clips what it does not hold, and its box scrolls.
  function fit(svg) {
    if (!svg) { return; }
    var w = +svg.getAttribute("width"), h = +svg.getAttribute("height"), right = w;
    Array.prototype.forEach.call(svg.querySelectorAll("text"), function (t) {
      var b = t.getBBox();
      right = Math.max(right, Math.ceil(b.x + b.width + 10));
    });
    if (right > w) {
      svg.setAttribute("width", right);
      svg.setAttribute("viewBox", "0 0 " + right + " " + h);
      Array.prototype.forEach.call(svg.querySelectorAll("rect.hit, rect.stuck"), function (r) {
        r.setAttribute("width", +r.getAttribute("width") + right - w);
      });
    }
  }
  function legend() {
    function sw(cls, style) {
      return '<svg width="26" height="14"><rect x="1" y="1" width="24" height="12" rx="3" style="' + style + '"/></svg>';
    }
    return '<div class="legend"><span>' + sw("", "fill:#e6eefc;stroke:#3f64b5") + " observed step</span><span>" +
      sw("", "fill:#fff;stroke:#8a93a6;stroke-dasharray:4 3") + " inferred (nothing observed shows it)</span><span>" +
      sw("", "fill:#fff3f2;stroke:#c8372d;stroke-dasharray:4 3") + " completion that pins the room</span><span>" +
      sw("", "fill:rgba(200,55,45,.07);stroke:#c8372d;stroke-dasharray:5 3") + " pinned from here</span><span>" +
      '<svg width="26" height="14"><line x1="2" y1="7" x2="24" y2="7" stroke="#4a5d8f"/><circle cx="24" cy="7" r="3" fill="#4a5d8f"/></svg> message seen on the wire (frame)</span>' +
      "<span>hover a step for the state it changed</span></div>";
  }

  var TIME_W = 84, STATUS_W = 116, LANE_W = 164, IDLE_W = 74, WIRE_W = 150, HEAD = 50, SEP = 20, SLOT = 20;
  var measure = document.createElement("canvas").getContext("2d");
  // textWidth is the width of s in the diagram's log font.
  function textWidth(s) {
    measure.font = "10.5px " + getComputedStyle(document.body).fontFamily;
    return Math.ceil(measure.measureText(s).width);
  }
  function log0(lanes) { return lanes.some(function (l) { return l.side === "log"; }); }
  var current = null;
  function stepOf(D, i) {
    var s = data.ST[D.s][i];
    return { kind: s[0], lanes: s[1], aid: s[2], act: S[s[3]], status: S[s[4]], diff: s[5], sends: s[6], recvs: s[7], obs: s[8], quiet: s[9], impl: s[10], fail: s[11] };
  }
  // diagram draws D as an SVG sequence diagram: a row per step, with a
  // slot per message it receives or sends (received first) and per log
  // line it wrote.
  function diagram(D) {
    var steps = data.ST[D.s].map(function (_, i) { return stepOf(D, i); });
    var lanes = data.LT[D.L].map(function (l) { return { name: S[l[0]], sub: S[l[1]], side: S[l[2]], used: false }; });
    steps.forEach(function (s) {
      s.lanes.forEach(function (l) { lanes[l].used = true; });
    });
    // The log lane is as wide as its longest line; the other lanes narrow
    // (to 70%) so that the whole diagram fits the page's width.
    var logW = 0;
    (D.o || []).forEach(function (o) {
      if (o[2] > 0) { logW = Math.max(logW, textWidth("line " + o[2] + "  " + S[o[0]] + " (moved nothing)") + 36); }
    });
    logW = Math.max(logW, 160);
    var others = 0;
    lanes.forEach(function (l) { if (l.side !== "log") { others += l.side === "wire" ? WIRE_W : l.used ? LANE_W : IDLE_W; } });
    var avail = (detail.clientWidth || document.documentElement.clientWidth) - 4;
    var k = Math.max(0.7, Math.min(1, (avail - TIME_W - STATUS_W - (log0(lanes) ? logW : 0) - 10) / others));
    var x = TIME_W + STATUS_W, wire = -1, log = -1;
    lanes.forEach(function (l, i) {
      l.w = l.side === "log" ? logW : Math.floor((l.side === "wire" ? WIRE_W : l.used ? LANE_W : IDLE_W) * k);
      l.x = x; l.cx = x + l.w / 2; x += l.w;
      if (l.side === "wire") { wire = i; }
      if (l.side === "log") { log = i; }
    });
    var W = x + 10, BW = Math.floor(LANE_W * k) - 14, times = stepTimes(D, steps);
    var rowsOut = [], y = HEAD, at = [];
    function add(r) { r.y = y; y += r.h; rowsOut.push(r); return r; }
    steps.forEach(function (s, i) {
      if (i === D.p) { add({ sep: "the completion of the unseen steps that pins the room (inferred)", h: SEP }); }
      if (s.kind === 5 && (i === 0 || steps[i - 1].kind !== 5)) { add({ sep: "the environment stops; the implementation's threads run fair", h: SEP }); }
      s.lines = s.obs.filter(function (o) { return D.o[o][2] > 0; });
      var slots = Math.max(1, s.recvs.length + s.sends.length, s.lines.length);
      at[i] = add({ step: i, h: Math.max(30, SLOT * slots + 10) });
      // The state after step D.k is pinned: the band starts below it.
      if (i === D.k) { at.stuck = add({ sep: "pinned from here: no completion of the unseen steps lets the aborted request go", h: SEP, cls: "stuck-label" }); }
      s.quiet.forEach(function (q) { add({ quiet: q, step: i, h: 18 }); });
    });
    var stepsEnd = y;
    if (D.u >= 0) { add({ unexpl: D.u, h: 30 }); }
    if (S[D.e]) { add({ end: S[D.e], h: 26 }); }
    var H = y + 12;
    function slotY(r, k) { return r.y + 5 + SLOT * k + SLOT / 2; }
    function msgY(i, m, sent) {
      var s = steps[i], k = sent ? s.recvs.length + s.sends.indexOf(m) : s.recvs.indexOf(m);
      var n = s.recvs.length + s.sends.length;
      return n <= 1 ? mid(at[i]) : slotY(at[i], k);
    }
    var out = [];
    out.push('<svg class="seq" xmlns="http://www.w3.org/2000/svg" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + " " + H + '">');
    out.push('<defs><marker id="ah" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path class="arrow" d="M0,0 L10,5 L0,10 z"/></marker></defs>');
    // Pinned from here: a band behind the steps.
    if (at.stuck) {
      var top = at.stuck.y + 1;
      out.push('<rect class="stuck" x="' + (TIME_W - 4) + '" y="' + top + '" width="' + (W - TIME_W) + '" height="' + (stepsEnd - top) + '" rx="4"/>');
    }
    out.push('<text class="lane-name" x="6" y="20">time</text><text class="lane-sub" x="6" y="34">after first seen</text>');
    out.push('<text class="lane-name" x="' + (TIME_W + 6) + '" y="20">status</text>');
    lanes.forEach(function (l) {
      var tx = l.side === "log" ? l.x + 8 : l.cx, anchor = l.side === "log" ? "start" : "middle";
      out.push('<text class="lane-name" x="' + tx + '" y="20" text-anchor="' + anchor + '">' + esc(l.name) + "</text>");
      if (l.sub) { out.push('<text class="lane-sub" x="' + tx + '" y="34" text-anchor="' + anchor + '">' + esc(l.sub) + "</text>"); }
      if (l.side !== "log") {
        out.push('<line class="lifeline ' + l.side + '" x1="' + l.cx + '" y1="' + (HEAD - 8) + '" x2="' + l.cx + '" y2="' + stepsEnd + '"/>');
      }
    });
    var wx = wire >= 0 ? lanes[wire].cx : 0;
    // In flight: from a send to its receive (or to the end) on the wire.
    var taken = {};
    steps.forEach(function (s, i) {
      s.recvs.forEach(function (m) {
        if (m[2] < 0 || !at[m[2]]) { return; }
        var from = steps[m[2]], sent = null;
        from.sends.forEach(function (x) { if (!sent && x[1] === m[1] && !taken[m[2] + ":" + from.sends.indexOf(x)]) { sent = x; } });
        if (!sent) { return; }
        taken[m[2] + ":" + from.sends.indexOf(sent)] = true;
        var off = flightOffset(lanes, sent, wx);
        out.push('<line class="flight" x1="' + (wx + off) + '" y1="' + msgY(m[2], sent, true) + '" x2="' + (wx + off) + '" y2="' + msgY(i, m, false) + '"/>');
      });
    });
    steps.forEach(function (s, i) {
      s.sends.forEach(function (m, k) {
        if (taken[i + ":" + k] || lanes[m[0]].side !== "env") { return; }
        var off = flightOffset(lanes, m, wx);
        out.push('<line class="flight" stroke-dasharray="2 4" x1="' + (wx + off) + '" y1="' + msgY(i, m, true) + '" x2="' + (wx + off) + '" y2="' + stepsEnd + '"><title>still in flight</title></line>');
      });
    });
    var prevStatus = null;
    rowsOut.forEach(function (r) {
      var cy = mid(r);
      if (r.sep) {
        out.push('<text class="' + (r.cls || "pin-label") + '" x="' + (TIME_W + STATUS_W + 6) + '" y="' + (r.y + 14) + '">' + esc(r.sep) + "</text>");
        return;
      }
      if (r.unexpl !== undefined) {
        var o = D.o[r.unexpl];
        var ux = o[1] > 0 || log < 0 ? wx + 8 : lanes[log].x + 8;
        out.push('<text class="unexpl" x="' + ux + '" y="' + (cy + 4) + '">' + esc(where(o)) + " " + esc(S[o[0]]) + ": no spec step explains it</text>");
        out.push('<text class="time" x="6" y="' + (cy + 4) + '">' + esc(rel(o)) + "</text>");
        return;
      }
      if (r.end) {
        out.push('<text class="end" x="' + (TIME_W + STATUS_W + 6) + '" y="' + (cy + 4) + '">' + esc(r.end) + "</text>");
        return;
      }
      var s = steps[r.step];
      if (r.quiet !== undefined) {
        var q = D.o[r.quiet];
        out.push('<g class="step quiet" data-q="' + r.quiet + '"><rect class="hit" x="0" y="' + r.y + '" width="' + W + '" height="' + r.h + '"/>');
        out.push('<text class="time" x="6" y="' + (cy + 4) + '">' + esc(rel(q)) + "</text>");
        out.push('<text class="status same" x="' + (TIME_W + 6) + '" y="' + (cy + 4) + '">' + esc(s.status) + "</text>");
        if (log >= 0) { out.push('<text class="log quiet" x="' + (lanes[log].x + 8) + '" y="' + (cy + 4) + '">line ' + q[2] + "  " + esc(S[q[0]]) + " (moved nothing)</text>"); }
        out.push("</g>");
        return;
      }
      var i = r.step;
      out.push('<g class="step k' + s.kind + (s.fail ? " fail" : "") + '" data-s="' + i + '"><rect class="hit" x="0" y="' + r.y + '" width="' + W + '" height="' + r.h + '"/>');
      var t = times[i];
      if (t) {
        out.push('<text class="time" x="6" y="' + (cy + 4) + '">' + esc(t) +
          (t.charAt(0) === "≤" ? "<title>sent at or before this time: the capture saw the message later</title>" : "") + "</text>");
      }
      var changed = prevStatus === null || s.status !== prevStatus;
      out.push('<text class="status ' + (changed ? "changed" : "same") + '" x="' + (TIME_W + 6) + '" y="' + (cy + 4) + '">' + esc(s.status) + "</text>");
      prevStatus = s.status;
      if (i === 0) {
        out.push('<text class="end" x="' + (TIME_W + STATUS_W + 6) + '" y="' + (cy + 4) + '">initial state</text>');
      }
      // A box per lane, over the slots of its messages.
      s.lanes.forEach(function (l) {
        var ys = [];
        s.recvs.forEach(function (m) { if (m[0] === l) { ys.push(msgY(i, m, false)); } });
        s.sends.forEach(function (m) { if (m[0] === l) { ys.push(msgY(i, m, true)); } });
        if (!ys.length) { ys.push(cy); }
        var y0 = Math.min.apply(null, ys) - 10, y1 = Math.max.apply(null, ys) + 10;
        var lx = lanes[l].cx;
        out.push('<rect class="box" x="' + (lx - BW / 2) + '" y="' + y0 + '" width="' + BW + '" height="' + (y1 - y0) + '"/>');
        out.push('<text class="act" x="' + lx + '" y="' + ((y0 + y1) / 2 + 4) + '" text-anchor="middle">' + esc(label(s.act, 26)) + "</text>");
      });
      s.recvs.forEach(function (m) {
        var lx = lanes[m[0]].cx, dir = lx < wx ? -1 : 1, my = msgY(i, m, false);
        var x2 = lx - dir * BW / 2;
        out.push('<line class="msg" x1="' + wx + '" y1="' + my + '" x2="' + (x2 - dir * 2) + '" y2="' + my + '" marker-end="url(#ah)"/>');
        out.push('<text class="mlabel" x="' + ((x2 + wx) / 2) + '" y="' + (my - 4) + '" text-anchor="middle">' + esc(msgName(S[m[1]])) + "</text>");
      });
      // Steps of a behaviour nothing observed (a counterexample) send
      // plainly; observed and inferred ones say whether the capture saw it.
      var plain = s.kind === 4 || s.kind === 5;
      s.sends.forEach(function (m) {
        var lx = lanes[m[0]].cx, dir = lx < wx ? 1 : -1, my = msgY(i, m, true);
        var x1 = lx + dir * BW / 2, seen = plain || m[2] >= 0;
        out.push('<line class="msg' + (seen ? "" : " unseen") + '" x1="' + x1 + '" y1="' + my + '" x2="' + (wx - dir * 4) + '" y2="' + my + '" marker-end="url(#ah)"/>');
        out.push('<circle class="dot' + (seen ? "" : " unseen") + '" cx="' + wx + '" cy="' + my + '" r="3.5"/>');
        out.push('<text class="mlabel" x="' + ((x1 + wx) / 2) + '" y="' + (my - 4) + '" text-anchor="middle">' + esc(msgName(S[m[1]])) + "</text>");
        var lbl = m[2] >= 0 ? where(D.o[m[2]]) : plain ? "" : "not seen";
        out.push('<text class="frame' + (seen ? "" : " unseen") + '" x="' + (wx + (dir > 0 ? 7 : -7)) + '" y="' + (my + 4) + '" text-anchor="' + (dir > 0 ? "start" : "end") + '">' + esc(lbl) + "</text>");
      });
      s.lines.forEach(function (o, k) {
        var ob = D.o[o];
        if (log >= 0) {
          out.push('<text class="log" x="' + (lanes[log].x + 8) + '" y="' + (slotY(r, k) + 4) + '">line ' + ob[2] + "  " + esc(S[ob[0]]) + "</text>");
        }
      });
      s.obs.forEach(function (o) {
        var ob = D.o[o];
        if (ob[2] <= 0 && ob[1] > 0) {
          out.push('<text class="frame" x="' + (wx + 7) + '" y="' + (r.y + r.h - 4) + '">frame ' + ob[1] + "</text>");
        }
      });
      out.push("</g>");
    });
    // A lasso: back from the last step to the step it loops to.
    if (D.lp >= 0 && at[D.lp]) {
      var last = at[steps.length - 1], x0 = TIME_W - 8;
      out.push('<path class="loop" d="M' + (x0 + 6) + "," + mid(last) + " L" + x0 + "," + mid(last) + " L" + x0 + "," + mid(at[D.lp]) + " L" + (x0 + 6) + "," + mid(at[D.lp]) + '" marker-end="url(#ah)"/>');
      out.push('<text class="loop-label" x="' + (x0 - 4) + '" y="' + (mid(at[D.lp]) - 6) + '" text-anchor="end">loop</text>');
    }
    out.push("</svg>");
    return out.join("");
  }
  // flightOffset spreads the in-flight lines of different lanes apart.
  function flightOffset(lanes, m, wx) {
    return lanes[m[0]].cx < wx ? -4 - (m[0] % 3) * 4 : 4 + (m[0] % 3) * 4;
  }
  // label fits an action into a box: whole, else its name alone.
  function label(t, n) {
    if (t.length <= n) { return t; }
    var i = t.indexOf("(");
    t = i > 0 ? t.slice(0, i) : t;
    return t.length > n ? t.slice(0, n - 1) + "…" : t;
  }
  function mid(r) { return r.y + r.h / 2; }
  function msgName(t) { var i = t.indexOf("("); return i > 0 ? t.slice(0, i) : t; }
  function where(o) { return o[1] > 0 ? "frame " + o[1] : o[2] > 0 ? "line " + o[2] : ""; }
  function rel(o) {
    return o[3] === null ? "" : "+" + (o[3] / 1000).toFixed(3) + " ms";
  }
  // stepTimes gives each step the earliest time it was observed at. A
  // log line is written by the step itself; a message is seen on the wire
  // at or after the step that sent it, so a send whose time is later than
  // a later step's happened earlier than seen: it is marked "≤".
  function stepTimes(D, steps) {
    var out = steps.map(function (s) {
      var best = null, logged = false;
      s.sends.forEach(function (m) { if (m[2] >= 0 && (best === null || D.o[m[2]][3] < best[3])) { best = D.o[m[2]]; } });
      s.obs.forEach(function (o) {
        if (D.o[o][2] > 0) { logged = true; }
        if (best === null || D.o[o][3] < best[3]) { best = D.o[o]; }
      });
      return best && best[3] !== null ? { o: best, logged: logged } : null;
    });
    var later = Infinity;
    for (var i = out.length - 1; i >= 0; i--) {
      if (!out[i]) { continue; }
      out[i].text = (!out[i].logged && out[i].o[3] > later ? "≤ " : "") + rel(out[i].o);
      later = Math.min(later, out[i].o[3]);
    }
    return out.map(function (t) { return t ? t.text : ""; });
  }

  // ---- tooltips: what a step changed ------------------------------------
  var tip = document.getElementById("tip");
  var kinds = ["initial state", "observed", "inferred: nothing observed shows this step", "inferred: the completion that pins the room",
    "a step of the behaviour", "the implementation's own step under fair scheduling"];
  function stepTip(D, i) {
    var s = stepOf(D, i);
    var h = "<b>" + (i === 0 ? "initial state" : "#" + i + " " + esc(s.act)) + '</b> <span class="k">' + esc(kinds[s.kind]) + "</span>";
    if (i > 0) {
      var a = data.A[s.aid];
      h += '<div class="k">' + esc(S[a[1]]) + (a.length > 2 ? ": " + a.slice(2).map(function (m) { return esc(S[m]); }).join("; ") : "") + "</div>";
    }
    var seen = [];
    s.sends.forEach(function (m) { seen.push(m[2] >= 0 ? obsLine(D.o[m[2]], S[m[1]]) : esc(S[m[1]]) + ": sent, not seen"); });
    s.obs.forEach(function (o) { seen.push(obsLine(D.o[o], S[D.o[o][0]])); });
    if (seen.length) { h += '<div class="k">observed</div><ul><li>' + seen.join("</li><li>") + "</li></ul>"; }
    if (s.diff.length) {
      h += '<div class="k">' + (i === 0 ? "state" : "changed") + "</div><ul>" + s.diff.map(function (d) { return "<li><code>" + esc(S[d]) + "</code></li>"; }).join("") + "</ul>";
    } else if (i > 0) {
      h += '<div class="k">changed nothing</div>';
    }
    if (s.impl.length) {
      h += '<div class="k">implementation</div><ul>' + s.impl.map(function (d) { return "<li><code>" + esc(S[d]) + "</code></li>"; }).join("") + "</ul>";
    }
    return h;
  }
  function obsLine(o, what) {
    return esc(where(o)) + (o[3] === null ? "" : " at " + esc(rel(o))) + (S[o[4]] ? " (" + esc(S[o[4]]) + ")" : "") + ": " + esc(what);
  }
  detail.addEventListener("mousemove", function (e) {
    var g = e.target.closest ? e.target.closest("[data-s],[data-q]") : null;
    if (!g || !current) { tip.hidden = true; return; }
    if (g.dataset.s !== undefined) {
      tip.innerHTML = stepTip(current, +g.dataset.s);
    } else {
      var o = current.o[+g.dataset.q];
      tip.innerHTML = "<b>" + esc(where(o)) + "</b> " + esc(S[o[0]]) + '<div class="k">a logged poll that moved nothing (no spec step)</div>';
    }
    tip.hidden = false;
    var x = e.clientX + 14, y = e.clientY + 14;
    var r = tip.getBoundingClientRect();
    if (x + r.width > window.innerWidth - 8) { x = Math.max(8, e.clientX - r.width - 14); }
    if (y + r.height > window.innerHeight - 8) { y = Math.max(8, e.clientY - r.height - 14); }
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  });
  detail.addEventListener("mouseleave", function () { tip.hidden = true; });

  // ---- start -------------------------------------------------------------
  tableEl.style.maxHeight = TABLE_H + "px";
  apply();
  var want = decodeURIComponent(location.hash.slice(1));
  var first = rows.filter(function (r) { return r.id === want; })[0];
  if (!first && data.kind === "diagrams" && rows.length) { first = rows[0]; }
  // Else the first pinned room, which the lead line names.
  var lead = document.getElementById("lead");
  if (!first && lead) { first = rows.filter(function (r) { return r.id === lead.dataset.row; })[0]; }
  if (first) { open(first, false); }
  document.body.dataset.ready = "true";
  if (window.performance && performance.mark) { performance.mark("roomspec-ready"); }
})();
