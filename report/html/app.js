// shardsim report.html: draws the heat maps (on a canvas: uPlot has no heat map) and the
// time charts (uPlot) from the JSON blob in #data, and makes the tables sortable. Every
// figure comes from the blob; this script only formats them, and merges bins when there are
// more of them than pixels.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("data").textContent);
  // The variants' colours: the PNG charts' palette, which the page's data carries.
  const PALETTE = D.palette;
  const DASHES = [[], [12, 5], [3, 4], [14, 4, 3, 4], [7, 7], [2, 7], [20, 5], [5, 3, 1, 3]];
  const WIDTHS = [5, 3.5, 2.5, 2, 1.6, 1.4, 1.2, 1.2];
  const color = (i) => PALETTE[i % PALETTE.length];
  const tip = document.getElementById("tip");
  const end = D.times.length ? D.times[D.times.length - 1] + D.bin_s : D.duration_s;

  // ---- formatting -------------------------------------------------------------------
  const pad2 = (x) => String(x).padStart(2, "0");
  function clock(t) {
    let c = Math.round(D.start_s + t) % 86400;
    if (c < 0) c += 86400;
    const h = Math.floor(c / 3600), m = Math.floor((c % 3600) / 60), s = c % 60;
    return s ? `${pad2(h)}:${pad2(m)}:${pad2(s)}` : `${pad2(h)}:${pad2(m)}`;
  }
  const fmtInt = (n) => Math.round(n).toLocaleString("en-US");
  const fmtPct = (x) => (x * 100).toFixed(1) + "%";
  function fmtNum(x) {
    if (x == null) return "–";
    const a = Math.abs(x);
    if (a >= 1000) return fmtInt(x);
    if (a >= 10) return x.toFixed(1);
    return x.toFixed(2);
  }
  function fmtMs(x) {
    if (x == null) return "–";
    if (x >= 1000) return (x / 1000).toFixed(x >= 10000 ? 1 : 2) + " s";
    return fmtNum(x) + " ms";
  }
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const swatch = (c) => `<span class="sw" style="background:${c}"></span>`;

  // ---- the tooltip ------------------------------------------------------------------
  function showTip(html, x, y) {
    tip.innerHTML = html;
    tip.hidden = false;
    const r = tip.getBoundingClientRect();
    let left = x + 16, top = y + 16;
    if (left + r.width > window.innerWidth - 4) left = Math.max(4, x - r.width - 16);
    if (top + r.height > window.innerHeight - 4) top = Math.max(4, y - r.height - 16);
    tip.style.left = left + "px";
    tip.style.top = top + "px";
  }
  const hideTip = () => { tip.hidden = true; };

  // ---- one time range for every chart ----------------------------------------------
  const range = { min: 0, max: end };
  const listeners = [];
  const rangeLabel = document.getElementById("range-label");
  function setRange(min, max, from) {
    min = Math.max(0, min);
    max = Math.min(end, max);
    if (max - min < D.window_s) {
      const mid = (min + max) / 2;
      min = Math.max(0, mid - D.window_s / 2);
      max = Math.min(end, min + D.window_s);
    }
    range.min = min;
    range.max = max;
    const whole = min <= 0 && max >= end;
    rangeLabel.textContent = whole ? "showing the whole run" : `showing ${clock(min)} to ${clock(max)}`;
    for (const l of listeners) if (l !== from) l(min, max);
  }
  document.getElementById("range-reset").addEventListener("click", () => setRange(0, end));

  // Markers: alerts and events of the variants given, as { t, vi, text }.
  function markersOf(vis) {
    const out = [];
    for (const vi of vis) {
      for (const m of D.variants[vi].markers) out.push({ t: m.t, vi, kind: m.kind, text: `${m.at} ${m.kind.replace(/_/g, " ")}: ${m.text}` });
    }
    return out;
  }
  function markerTip(list, near) {
    if (!list.length) return "";
    return list.slice(0, 6).map((m) => `<div class="mk">${swatch(color(m.vi))}${D.variants.length > 1 ? "<i>" + esc(D.variants[m.vi].name) + "</i><br>" : ""}${esc(m.text)}</div>`).join("") +
      (list.length > 6 ? `<div class="mk">and ${list.length - 6} more here</div>` : "");
  }

  // ---- heat maps ----------------------------------------------------------------------
  // A sequential scale from pale (idle) through yellow and orange to dark red (the node's
  // cores all busy), so that an idle shard stays visible against the page.
  const STOPS = [[0, [240, 243, 246]], [0.05, [255, 244, 178]], [0.25, [254, 212, 112]], [0.5, [253, 141, 60]], [0.75, [222, 45, 38]], [1, [103, 0, 13]]];
  function heatRGB(f) {
    f = Math.max(0, Math.min(1, f || 0));
    for (let i = 1; i < STOPS.length; i++) {
      if (f <= STOPS[i][0]) {
        const [a, ca] = STOPS[i - 1], [b, cb] = STOPS[i];
        const k = (f - a) / (b - a);
        return `rgb(${ca.map((x, j) => Math.round(x + k * (cb[j] - x))).join(",")})`;
      }
    }
    return "rgb(103,0,13)";
  }
  const modeSel = document.getElementById("heat-mode");
  let maxTimeOps = 1;
  for (const v of D.variants) for (const x of v.time_ops) maxTimeOps = Math.max(maxTimeOps, x);

  function drawLegend() {
    const el = document.getElementById("heat-legend");
    el.innerHTML = "";
    const lab = document.createElement("span");
    lab.textContent = modeSel.value === "load" ? "0%" : "0";
    const c = document.createElement("canvas");
    c.width = 240; c.height = 14;
    const g = c.getContext("2d");
    for (let x = 0; x < 240; x++) { g.fillStyle = heatRGB(x / 239); g.fillRect(x, 0, 1, 14); }
    const hi = document.createElement("span");
    hi.textContent = modeSel.value === "load" ? "100% of the node's cores" : `${fmtInt(D.max_ops)} subrequests in a ${binWords(D.bin_s)} (the most any shard served in any variant)`;
    el.append(lab, c, hi);
  }
  function binWords(s) {
    if (s % 3600 === 0) return s === 3600 ? "hour" : `${s / 3600}-hour bin`;
    if (s % 60 === 0) return s === 60 ? "minute" : `${s / 60}-minute bin`;
    return s === 1 ? "second" : `${s}-second bin`;
  }

  // Steps of the time axes, in seconds: round clock times.
  const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
  function niceStep(span, px, minPx) {
    for (const s of TIME_STEPS) if ((s / span) * px >= minPx) return s;
    return TIME_STEPS[TIME_STEPS.length - 1];
  }

  const heatmaps = [];
  function makeHeat(vi) {
    const v = D.variants[vi];
    const box = document.createElement("div");
    box.className = `heat v${vi}`;
    const h = document.createElement("h3");
    h.innerHTML = `<span class="swatch"></span>${esc(v.name)}<span class="rows">${v.key_order ? "rows: shards in key order" : "rows: shards by id"}</span>`;
    const canvas = document.createElement("canvas");
    canvas.setAttribute("aria-label", `heat map of shard load over time: ${v.name}`);
    canvas.className = "chart-el";
    box.append(h, canvas);
    document.getElementById("heatmaps").append(box);
    const markers = markersOf([vi]);
    const L = 70, R = 110, TS = 30, TM = 14, B = 24; // gutters: labels, run loads, totals strip, markers, axis
    const rows = v.rows.length;
    const rowH = Math.max(3, Math.min(22, Math.floor(440 / Math.max(1, rows))));
    let W = 0, plotW = 0, cols = [], drag = null;
    const top = TS + TM + 4, H = top + rows * rowH + B;

    function layout() {
      W = Math.max(360, box.clientWidth);
      plotW = W - L - R;
      const dpr = window.devicePixelRatio || 1;
      canvas.width = Math.round(W * dpr);
      canvas.height = Math.round(H * dpr);
      canvas.style.width = W + "px";
      canvas.style.height = H + "px";
      canvas.getContext("2d").setTransform(dpr, 0, 0, dpr, 0, 0);
    }
    const xOf = (t) => L + ((t - range.min) / (range.max - range.min)) * plotW;
    const tOf = (x) => range.min + ((x - L) / plotW) * (range.max - range.min);

    // The visible bins, merged into at most one column per pixel.
    function columns() {
      const b0 = Math.max(0, Math.floor(range.min / D.bin_s + 1e-9));
      const b1 = Math.min(D.times.length, Math.ceil(range.max / D.bin_s - 1e-9));
      const n = Math.max(0, b1 - b0), k = Math.max(1, Math.ceil(n / plotW));
      const out = [];
      for (let b = b0; b < b1; b += k) out.push([b, Math.min(b1, b + k)]);
      return out;
    }
    function cell(row, c) {
      let load = 0, ops = 0, q = 0;
      for (let b = c[0]; b < c[1]; b++) { load += row.load[b]; ops += row.ops[b]; q = Math.max(q, row.queue[b]); }
      const n = c[1] - c[0];
      return { load: load / n, ops, q, n };
    }
    function draw() {
      const g = canvas.getContext("2d");
      g.clearRect(0, 0, W, H);
      cols = columns();
      const mode = modeSel.value;
      g.font = "12px system-ui, sans-serif";
      g.textBaseline = "middle";
      // cells
      for (let r = 0; r < rows; r++) {
        const row = v.rows[r], y = top + r * rowH;
        for (const c of cols) {
          const x0 = xOf(D.times[c[0]]), x1 = xOf(D.times[c[1] - 1] + D.bin_s);
          const f = cell(row, c);
          g.fillStyle = heatRGB(mode === "load" ? f.load : f.ops / f.n / Math.max(1, D.max_ops));
          g.fillRect(Math.floor(x0), y, Math.ceil(x1) - Math.floor(x0), rowH > 6 ? rowH - 1 : rowH);
        }
      }
      // totals along time: subrequests served per bin by every shard
      g.fillStyle = "#8c96a0";
      for (const c of cols) {
        let s = 0;
        for (let b = c[0]; b < c[1]; b++) s += v.time_ops[b];
        const hgt = (s / (c[1] - c[0]) / maxTimeOps) * (TS - 4);
        const x0 = xOf(D.times[c[0]]), x1 = xOf(D.times[c[1] - 1] + D.bin_s);
        g.fillRect(x0, TS - hgt, Math.max(1, x1 - x0 - (x1 - x0 > 8 ? 1 : 0)) + (x1 - x0 > 8 ? 0 : 0.5), hgt);
      }
      g.fillStyle = "#5a5f66";
      g.textAlign = "right";
      g.fillText("all shards", L - 6, TS - 10);
      // shard labels and totals along shards: each shard's load over the run
      const every = Math.ceil(13 / rowH);
      for (let r = 0; r < rows; r++) {
        const row = v.rows[r], y = top + r * rowH + rowH / 2;
        if (r % every === 0) { g.fillStyle = "#1d1d1f"; g.textAlign = "right"; g.fillText(`shard ${row.shard}`, L - 6, y); }
        const bw = row.run_load * (R - 50);
        g.fillStyle = heatRGB(row.run_load);
        g.fillRect(L + plotW + 6, top + r * rowH, Math.max(1, bw), rowH > 6 ? rowH - 1 : rowH);
        g.strokeStyle = "#c5ccd3";
        g.strokeRect(L + plotW + 6.5, top + r * rowH + 0.5, R - 50, (rowH > 6 ? rowH - 1 : rowH) - 1);
        if (r % every === 0) { g.fillStyle = "#1d1d1f"; g.textAlign = "left"; g.fillText(fmtPct(row.run_load), L + plotW + R - 40, y); }
      }
      g.fillStyle = "#5a5f66";
      g.textAlign = "left";
      g.fillText("whole run", L + plotW + 6, TS - 10);
      // time axis
      const span = range.max - range.min, step = niceStep(span, plotW, 90);
      g.textAlign = "center";
      g.textBaseline = "top";
      g.strokeStyle = "#9aa1a9";
      for (let t = Math.ceil(range.min / step) * step; t <= range.max + 1e-9; t += step) {
        const x = xOf(t);
        g.beginPath(); g.moveTo(x, top + rows * rowH); g.lineTo(x, top + rows * rowH + 5); g.stroke();
        g.fillStyle = "#1d1d1f";
        g.fillText(clock(t), Math.min(Math.max(x, L + 18), L + plotW - 18), top + rows * rowH + 7);
      }
      // markers
      for (const m of markers) {
        if (m.t < range.min || m.t > range.max) continue;
        const x = xOf(m.t);
        g.fillStyle = m.kind === "action" || m.kind === "split" || m.kind === "move" ? "#0b5cad" : "#b00020";
        g.beginPath(); g.moveTo(x - 5, TS + 2); g.lineTo(x + 5, TS + 2); g.lineTo(x, TS + TM); g.closePath(); g.fill();
        g.strokeStyle = "rgba(20,20,30,0.45)";
        g.setLineDash([3, 3]);
        g.beginPath(); g.moveTo(x + 0.5, top); g.lineTo(x + 0.5, top + rows * rowH); g.stroke();
        g.setLineDash([]);
      }
      if (drag) {
        g.fillStyle = "rgba(11,92,173,0.18)";
        g.fillRect(Math.min(drag.x0, drag.x1), top, Math.abs(drag.x1 - drag.x0), rows * rowH);
      }
    }
    function local(e) {
      const r = canvas.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top];
    }
    function colAt(x) {
      const t = tOf(x);
      for (const c of cols) if (t >= D.times[c[0]] && t < D.times[c[1] - 1] + D.bin_s) return c;
      return null;
    }
    function hover(e) {
      const [x, y] = local(e);
      if (drag) { drag.x1 = Math.max(L, Math.min(L + plotW, x)); draw(); return; }
      if (x >= L && x <= L + plotW && y < top) {
        const near = markers.filter((m) => m.t >= range.min && m.t <= range.max && Math.abs(xOf(m.t) - x) <= 6);
        if (near.length && y >= TS - 2) return showTip(markerTip(near), e.clientX, e.clientY);
        const c = colAt(x);
        if (!c) return hideTip();
        let s = 0;
        for (let b = c[0]; b < c[1]; b++) s += v.time_ops[b];
        return showTip(`<b>${clock(D.times[c[0]])}–${clock(D.times[c[1] - 1] + D.bin_s)}</b><br>all shards served ${fmtInt(s)} subrequests`, e.clientX, e.clientY);
      }
      const r = Math.floor((y - top) / rowH);
      if (r < 0 || r >= rows) return hideTip();
      const row = v.rows[r];
      if (x > L + plotW) {
        return showTip(`<b>shard ${row.shard}</b> (node ${row.node}) over the whole run<br>load ${fmtPct(row.run_load)} of its node's cores<br>${fmtInt(row.run_ops)} subrequests`, e.clientX, e.clientY);
      }
      const c = x >= L ? colAt(x) : null;
      if (!c) return hideTip();
      const f = cell(row, c);
      const node = row.nodes ? row.nodes[c[1] - 1] : row.node;
      const when = `${clock(D.times[c[0]])}–${clock(D.times[c[1] - 1] + D.bin_s)}`;
      showTip(`<b>${when}</b>${f.n > 1 ? ` (${f.n} bins merged)` : ""}<br>shard <b>${row.shard}</b> on node <b>${node}</b><br>load <b>${fmtPct(f.load)}</b> of the node's cores<br>ops <b>${fmtInt(f.ops)}</b> subrequests served<br>queue: up to <b>${fmtInt(f.q)}</b> waiting`, e.clientX, e.clientY);
    }
    canvas.addEventListener("mousemove", hover);
    canvas.addEventListener("mouseleave", () => { hideTip(); });
    canvas.addEventListener("mousedown", (e) => {
      const [x] = local(e);
      if (x < L || x > L + plotW) return;
      drag = { x0: x, x1: x };
      e.preventDefault();
    });
    window.addEventListener("mouseup", () => {
      if (!drag) return;
      const d = drag;
      drag = null;
      if (Math.abs(d.x1 - d.x0) > 4) setRange(tOf(Math.min(d.x0, d.x1)), tOf(Math.max(d.x0, d.x1)));
      else draw();
    });
    canvas.addEventListener("dblclick", () => setRange(0, end));
    const hm = { layout, draw };
    listeners.push(() => draw());
    heatmaps.push(hm);
    layout();
    draw();
  }

  // ---- time charts ------------------------------------------------------------------
  const charts = [];
  let hovered = null;
  const root = document.getElementById("charts-root");

  function chartBox(parent, title, how) {
    const box = document.createElement("div");
    box.className = "chart";
    const h = document.createElement("h3");
    h.textContent = title;
    const el = document.createElement("div");
    el.className = "chart-el";
    const p = document.createElement("p");
    p.className = "how";
    p.textContent = how;
    box.append(h, el, p);
    parent.append(box);
    return el;
  }

  // series: [{ label, color, dash, width, values, fmt }]; markers: markersOf(...).
  function makeChart(el, { series, markers: allMarks, shared, yLabel, log, fmt, tipFmt, axisFmt, yMin, yMax, height, times, binS }) {
    const tf = tipFmt || fmt;
    // A chart of every variant shows the markers of the variant chosen above the charts.
    const marks = () => (shared && markVariant >= 0 ? allMarks.filter((m) => m.vi === markVariant) : allMarks);
    // Each value is drawn at the middle of its bin, the time it stands for. A chart of its
    // own time range (the detail range's fine windows) follows the others' zoom within that
    // range, and a selection on it zooms them all. Every chart's cursor moves with the
    // others' (uPlot syncs it by the time under it, not by its place on the chart).
    const own = !!times;
    times = times || D.chart_times;
    binS = binS || D.chart_bin_s;
    const x = times.map((t) => t + binS / 2);
    const data = [x, ...series.map((s) => s.values)];
    const drawMarkers = (u) => {
      const g = u.ctx, { left, top, width, height } = u.bbox;
      g.save();
      g.lineWidth = 1.5 * devicePixelRatio;
      for (const m of marks()) {
        const px = u.valToPos(m.t, "x", true);
        if (px < left || px > left + width) continue;
        g.strokeStyle = color(m.vi);
        g.setLineDash([5 * devicePixelRatio, 4 * devicePixelRatio]);
        g.beginPath(); g.moveTo(px, top); g.lineTo(px, top + height); g.stroke();
        g.setLineDash([]);
        g.fillStyle = color(m.vi);
        const s = 5 * devicePixelRatio;
        g.beginPath(); g.moveTo(px - s, top); g.lineTo(px + s, top); g.lineTo(px, top + 1.6 * s); g.closePath(); g.fill();
      }
      g.restore();
    };
    const yScale = log ? { distr: 3, log: 10 } : { auto: true, range: (u, mn, mx) => [yMin != null ? yMin : Math.min(0, mn), Math.max(yMax || 0, mx * 1.05 || 1)] };
    const opts = {
      width: Math.max(320, el.clientWidth),
      height: height || 300,
      cursor: { sync: { key: "shardsim" }, drag: { x: true, y: false, setScale: false }, points: { size: 7 } },
      select: { show: true },
      legend: { show: series.length <= 16, live: false },
      scales: { x: { time: false }, y: yScale },
      axes: [
        { values: (u, splits) => splits.map(clock), space: 80, incrs: TIME_STEPS, grid: { stroke: "#eceff2" } },
        { label: yLabel, labelSize: 20, size: 74, values: (u, splits) => splits.map(axisFmt || fmt), grid: { stroke: "#eceff2" },
          filter: log ? (u, splits) => splits.map((v) => { const m = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9)); return [1, 2, 5].some((k) => Math.abs(m - k) < 1e-6) ? v : null; }) : undefined },
      ],
      series: [{ label: "time", value: (u, v) => (v == null ? "" : clock(v)) },
        ...series.map((s) => ({ label: s.label, stroke: s.color, width: s.width || 2, dash: s.dash || [], points: { show: false }, spanGaps: false, value: (u, v) => fmt(v) }))],
      hooks: {
        draw: [drawMarkers],
        // The x range shown, on the chart's element (the browser test reads it).
        setScale: [(u, key) => {
          if (key !== "x") return;
          el.dataset.xMin = u.scales.x.min;
          el.dataset.xMax = u.scales.x.max;
        }],
        setSelect: [(u) => {
          if (u.select.width > 4) {
            const a = u.posToVal(u.select.left, "x"), b = u.posToVal(u.select.left + u.select.width, "x");
            setRange(a, b);
          }
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
        }],
        setCursor: [(u) => {
          if (hovered !== u) return;
          const i = u.cursor.idx;
          if (i == null || u.cursor.left < 0) return hideTip();
          const lines = [];
          series.forEach((s, k) => {
            if (!u.series[k + 1].show) return;
            const val = s.values[i];
            if (val == null) return;
            lines.push([val, `${swatch(s.color)}${esc(s.label)}: <b>${tf(val)}</b>`]);
          });
          if (lines.length > 10) lines.sort((a, b) => b[0] - a[0]);
          const shown = lines.slice(0, 10).map((l) => l[1]);
          if (lines.length > 10) shown.push(`and ${lines.length - 10} more`);
          const near = marks().filter((m) => Math.abs(u.valToPos(m.t, "x") - u.cursor.left) <= 6);
          const rect = u.over.getBoundingClientRect();
          showTip(`<b>${clock(times[i])}–${clock(times[i] + binS)}</b><br>${shown.join("<br>")}${markerTip(near)}`, rect.left + u.cursor.left, rect.top + u.cursor.top);
        }],
      },
    };
    const u = new uPlot(opts, data, el);
    u.over.addEventListener("mouseenter", () => { hovered = u; });
    u.over.addEventListener("mouseleave", () => { if (hovered === u) hovered = null; hideTip(); });
    if (own) {
      // The part of the shared range inside the chart's own; the shared range itself (with
      // nothing drawn) when they do not meet, so that its axis never tells another time.
      const lo = times[0], hi = times[times.length - 1] + binS;
      const follow = (min, max) => {
        const a = Math.max(min, lo), b = Math.min(max, hi);
        u.setScale("x", b > a ? { min: a, max: b } : { min, max });
      };
      follow(range.min, range.max);
      u.over.addEventListener("dblclick", () => setRange(0, end));
      listeners.push(follow);
    } else {
      u.setScale("x", { min: range.min, max: range.max });
      u.over.addEventListener("dblclick", () => setRange(0, end));
      listeners.push((min, max) => u.setScale("x", { min, max }));
    }
    charts.push({ u, el });
    return u;
  }

  function sameSeries(a, b) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  function fmtRate(x) { return x == null ? "–" : fmtNum(x) + "/s"; }
  function fmtAxisRate(x) {
    if (x == null) return "";
    if (Math.abs(x) >= 1e6) return (x / 1e6).toFixed(1) + "M";
    if (Math.abs(x) >= 1e3) return (x / 1e3).toFixed(x >= 1e4 ? 0 : 1) + "k";
    return String(Math.round(x * 100) / 100);
  }
  function fmtMsShort(x) {
    if (x == null) return "";
    if (x >= 1000) return +(x / 1000).toPrecision(3) + " s";
    return +x.toPrecision(3) + " ms";
  }
  function fmtSLO(ms) { return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`; }

  let markVariant = -1;
  function buildCharts() {
    const all = D.variants.map((_, i) => i);
    const sel = document.getElementById("mark-variant");
    D.variants.forEach((v, vi) => {
      const o = document.createElement("option");
      o.value = String(vi);
      o.textContent = `${v.name} (${v.markers.length})`;
      sel.append(o);
    });
    sel.addEventListener("change", () => {
      markVariant = Number(sel.value);
      for (const c of charts) c.u.redraw(false);
    });
    const allMarkers = markersOf(all);
    const streams = D.variants.length ? D.variants[0].streams : [];
    streams.forEach((s0, si) => {
      // offered, completed and failed rates
      const series = [];
      const offered = D.variants.map((v) => v.streams[si].offered);
      const offeredSeries = [];
      if (offered.every((o) => sameSeries(o, offered[0]))) {
        offeredSeries.push({ label: D.variants.length > 1 ? "offered (the same in every variant)" : "offered", color: "#1d1d1f", dash: [2, 3], width: 2.5, values: offered[0] });
      } else {
        D.variants.forEach((v, vi) => offeredSeries.push({ label: `offered: ${v.name}`, color: color(vi), dash: [2, 3], width: 2, values: offered[vi] }));
      }
      D.variants.forEach((v, vi) => series.push({ label: `completed: ${v.name}`, color: color(vi), dash: DASHES[0], width: WIDTHS[Math.min(vi, 3)] * 0.7, values: v.streams[si].completed }));
      let noFail = [];
      D.variants.forEach((v, vi) => {
        const f = v.streams[si].failed;
        if (f.some((x) => x)) series.push({ label: `failed: ${v.name}`, color: color(vi), dash: [8, 4], width: 1.6, values: f });
        else noFail.push(v.name);
      });
      // retried attempts, named by the scenario's retry_label where it has one
      const retryWord = D.variants.map((v) => v.streams[si].retry_label).find((x) => x) || "retries";
      D.variants.forEach((v, vi) => {
        const r = v.streams[si].retries;
        if (r && r.some((x) => x)) series.push({ label: `${retryWord}: ${v.name}`, color: color(vi), dash: [1, 3], width: 2.2, values: r });
      });
      series.push(...offeredSeries); // drawn last, on top: where completed meets offered, offered shows
      const el = chartBox(root, `Requests per second: ${s0.name} (${s0.op})`,
        "How to read this chart: the dotted line is the rate at which clients issued requests (by the time they were issued); solid lines are the requests answered in each window and dashed lines the requests that failed, in the colour of their variant. " +
        "Completed below offered means requests are waiting or failing." + (noFail.length ? ` No request failed in: ${noFail.join("; ")}.` : "") +
        (series.some((x) => x.label.startsWith(retryWord + ":")) ? ` Finely dotted lines are the ${retryWord} (attempts sent again after one timed out or was refused), per second.` : ""));
      makeChart(el, { series, markers: allMarkers, shared: true, yLabel: "requests / s", fmt: (x) => (x == null ? "–" : fmtAxisRate(x)), tipFmt: fmtRate, yMin: 0 });

      // p99 latency
      const p = [];
      let lo = Infinity, hi = 0;
      D.variants.forEach((v, vi) => {
        const vals = v.streams[si].p99;
        for (const x of vals) if (x != null && x > 0) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
        p.push({ label: v.name, color: color(vi), dash: DASHES[vi % DASHES.length], width: WIDTHS[vi % WIDTHS.length], values: vals.map((x) => (x != null && x > 0 ? x : null)) });
      });
      for (const slo of s0.slo) {
        p.push({ label: `SLO: p99 < ${fmtSLO(slo)}`, color: "#b00020", dash: [10, 3, 2, 3], width: 1.5, values: D.chart_times.map(() => slo) });
        lo = Math.min(lo, slo); hi = Math.max(hi, slo);
      }
      const log = hi > 0 && lo < Infinity && hi / lo > 30;
      const el2 = chartBox(root, `p99 latency: ${s0.name}`,
        `How to read this chart: the 99th percentile latency of the requests answered in each window, one line per variant (each with its own dash and width, the widest underneath, so a line hidden under another still shows at its edges), ${log ? "on a log scale (each gridline ten times the one below)" : "on a linear scale"}; the red dash-dot lines are the stream's SLO thresholds. A line that climbs past a threshold is a queue that grows. A gap is a window in which no request completed.`);
      makeChart(el2, { series: p, markers: allMarkers, shared: true, yLabel: "p99 latency", log, fmt: fmtMs, axisFmt: fmtMsShort });

      // the same p99 in the detail range's fine windows
      if (D.fine_times && D.fine_times.length) {
        const fp = [];
        let flo = Infinity, fhi = 0;
        D.variants.forEach((v, vi) => {
          const vals = (v.streams[si].fine_p99 || []).map((x) => (x != null && x > 0 ? x : null));
          for (const x of vals) if (x != null) { flo = Math.min(flo, x); fhi = Math.max(fhi, x); }
          fp.push({ label: v.name, color: color(vi), dash: DASHES[vi % DASHES.length], width: WIDTHS[vi % WIDTHS.length], values: vals });
        });
        for (const slo of s0.slo) {
          fp.push({ label: `SLO: p99 < ${fmtSLO(slo)}`, color: "#b00020", dash: [10, 3, 2, 3], width: 1.5, values: D.fine_times.map(() => slo) });
          flo = Math.min(flo, slo); fhi = Math.max(fhi, slo);
        }
        const flog = fhi > 0 && flo < Infinity && fhi / flo > 30;
        const last = D.fine_times[D.fine_times.length - 1] + D.fine_s;
        const el3 = chartBox(root, `p99 latency in detail: ${s0.name}, ${clock(D.fine_times[0])}–${clock(last)}`,
          `How to read this chart: the same p99 in ${D.fine_s}-second windows over the scenario's detail range, ${flog ? "on a log scale" : "on a linear scale"}, with the same lines and thresholds as above. Where the chart above crosses several thresholds within one window, this one shows the moment it passed each: a point sits at the start of its window, and the alerts give that window's end. It shows the part of the other charts' time range inside the detail range (all of the detail range until they zoom), and a drag across it zooms them all.`);
        makeChart(el3, { series: fp, markers: allMarkers, shared: true, yLabel: "p99 latency", log: flog, fmt: fmtMs, axisFmt: fmtMsShort, times: D.fine_times, binS: D.fine_s });
      }
    });

    // node load, one chart per variant
    const grid = document.createElement("div");
    grid.className = "grid";
    root.append(grid);
    const later = [];
    D.variants.forEach((v, vi) => {
      const series = [];
      let k = 0, top = 0;
      const peaks = v.nodes.map((n) => Math.max(0, ...n.load.map((x) => x || 0)));
      for (const p of peaks) top = Math.max(top, p);
      v.nodes.forEach((n, ni) => {
        const peak = peaks[ni];
        const hot = peak >= 0.9 || peak === top;
        series.push({ label: `node ${n.id} (${n.cores} cores)`, color: hot ? ["#b00020", "#e66100", "#5d3a9b", "#1a85ff"][k++ % 4] : "#9aa1a9", width: hot ? 2.5 : 1.2, values: n.load, peak });
      });
      const el = chartBox(grid, `Node load: ${v.name}`,
        "How to read this chart: each line is a node's busy time as a share of its cores, per window; the busiest node and any that reached 90% are drawn in colour, the others in grey. A node given more cores looks cooler on this scale while it does more work: compare the subrequests in the heat map above.");
      later.push(() => makeChart(el, { series, markers: markersOf([vi]), yLabel: "share of its cores", fmt: (x) => (x == null ? "–" : fmtPct(x)), axisFmt: (x) => (x == null ? "" : Math.round(x * 100) + "%"), yMin: 0, yMax: 1, height: 260 }));
    });
    for (const f of later) f(); // once every box is in the grid, so each knows its width
  }

  // ---- sortable tables --------------------------------------------------------------
  function sortable(tbl) {
    const ths = tbl.querySelectorAll("th");
    ths.forEach((th, col) => {
      th.addEventListener("click", () => {
        const desc = th.getAttribute("aria-sort") === "ascending";
        ths.forEach((o) => o.removeAttribute("aria-sort"));
        th.setAttribute("aria-sort", desc ? "descending" : "ascending");
        const body = tbl.tBodies[0];
        const rows = Array.from(body.rows);
        const key = (r) => {
          const t = r.cells[col].textContent.trim();
          const n = parseFloat(t.replace(/,/g, "").replace(/^[<>]/, "")); // "<0.1%" sorts as 0.1
          return Number.isNaN(n) ? t : n;
        };
        rows.sort((a, b) => {
          const x = key(a), y = key(b);
          let c;
          if (typeof x === "number" && typeof y === "number") c = x - y;
          else if (typeof x === "number") c = -1;
          else if (typeof y === "number") c = 1;
          else c = x.localeCompare(y);
          return desc ? -c : c;
        });
        for (const r of rows) body.append(r);
      });
    });
  }

  // ---- start ------------------------------------------------------------------------
  drawLegend();
  D.variants.forEach((_, vi) => makeHeat(vi));
  modeSel.addEventListener("change", () => { drawLegend(); for (const h of heatmaps) h.draw(); });
  buildCharts();
  document.querySelectorAll("table.sortable").forEach(sortable);
  setRange(0, end);
  let pending = 0;
  window.addEventListener("resize", () => {
    clearTimeout(pending);
    pending = setTimeout(() => {
      for (const h of heatmaps) { h.layout(); h.draw(); }
      for (const c of charts) c.u.setSize({ width: Math.max(320, c.el.clientWidth), height: c.u.height });
    }, 150);
  });
})();
