// Draws a matrix figure (the Plotly figure dict built by mha.figures: heatmaps, text, outlines, colour bars,
// annotations, shapes, animation frames; and horizontal bars) as one SVG in the page, without Plotly.js. Only the part
// of Plotly's format the builders write is read, and mha/figures/schema.py lists it: explicit axis ranges and domains
// (the builders make cells square), tickvals/ticktext, heatmaps with x0/y0 and unit steps, scatter text, lines and
// markers; arrays come as lists (chart.to_json). Text is never parsed as HTML: <b>, <i>, <sub>, <sup>, <br> and
// <span style> (font-size, color) become tspans, anything else stays text. The element it draws from, the one global
// it keeps (window.mha) and what a click sends are mha/ui/chart.py's docstring.
const NS = "http://www.w3.org/2000/svg";
const MHA = (window.mha ??= {});  // what outlives one chart: chart.py's docstring lists it
const LINE = 1.3; // line height, in em
const node = (tag, attrs, parent) => {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
};

// ---- values --------------------------------------------------------------------------------------------------
function rgba(c) {
  if (!c) return [0, 0, 0, 0];
  if (c[0] === "#") {
    const h = c.length === 4 ? [...c.slice(1)].map(x => x + x).join("") : c.slice(1);
    return [0, 2, 4].map(i => parseInt(h.slice(i, i + 2), 16)).concat([1]);
  }
  const m = c.match(/\(([^)]*)\)/);
  if (!m) return [0, 0, 0, 1];
  const p = m[1].split(",").map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
}
const css = ([r, g, b, a]) => a === 1 ? `rgb(${Math.round(r)},${Math.round(g)},${Math.round(b)})`
                                      : `rgba(${Math.round(r)},${Math.round(g)},${Math.round(b)},${a})`;
function colourAt(scale, t) { // linear in RGB between the scale's stops, as Plotly does
  t = Math.min(1, Math.max(0, isFinite(t) ? t : 0));
  for (let i = 1; i < scale.length; i++) {
    if (t <= scale[i][0] || i === scale.length - 1) {
      const [t0, c0] = scale[i - 1], [t1, c1] = scale[i], a = rgba(c0), b = rgba(c1);
      const f = t1 === t0 ? 0 : (t - t0) / (t1 - t0);
      return css(a.map((v, k) => v + (b[k] - v) * f));
    }
  }
  return css(rgba(scale[0][1]));
}
const isDark = c => { const [r, g, b] = rgba(c); return (r * 299 + g * 587 + b * 114) / 1000 < 128; };

// d3-format's f, g and ~ (what the builders' templates use), with a true minus sign (U+2212) as the builders write
// every number (Plotly's d3 wrote a hyphen)
function number(v, spec) {
  if (typeof v !== "number") return v === null || v === undefined ? "" : String(v);
  const m = /^(\.(\d+))?(~)?([efg%])?$/.exec(spec || "");
  let s;
  if (!m || !spec) s = String(+v.toPrecision(12));
  else {
    const p = m[2] === undefined ? 6 : +m[2], kind = m[4] || "g";
    if (kind === "f") s = Math.abs(v).toFixed(p);
    else if (kind === "e") s = Math.abs(v).toExponential(p);
    else if (kind === "%") s = (Math.abs(v) * 100).toFixed(p) + "%";
    else s = Math.abs(v).toPrecision(Math.max(p, 1));  // d3's g: toPrecision (exponent form below 1e-6)
    if (m[3]) s = s.replace(/(\.\d*?)0+(?=$|e|%)/, "$1").replace(/\.(?=$|e|%)/, "");
    if (v < 0 && /[1-9]/.test(s)) s = "\u2212" + s;
  }
  return s.replace(/^-/, "\u2212");
}
function fill(template, point) { // %{name}, %{name:format}, %{customdata[i]}
  return (template || "").replace(/<extra>[\s\S]*?<\/extra>/g, "").replace(/%\{([^}:]+)(?::([^}]*))?\}/g,
    (_, name, spec) => {
      const m = /^(\w+)\[(\d+)\]$/.exec(name);
      const v = m ? (point[m[1]] || [])[+m[2]] : point[name];
      return number(v, spec);
    });
}

// ---- rich text -----------------------------------------------------------------------------------------------
const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", nbsp: "\u00a0" };
const decode = s => s.replace(/&(#\d+|#x[0-9a-f]+|\w+);/gi, (all, e) => {
  if (e[0] !== "#") return ENTITIES[e] ?? all;
  const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : +e.slice(1);
  return code <= 0x10ffff ? String.fromCodePoint(code) : all;  // past Unicode: left as written
});
// A span's style, as far as Plotly reads it: font-size (px, em or %) and color; anything else is ignored.
function spanStyle(style) {
  const out = {};
  for (const decl of style.split(";")) {
    const [k, v] = decl.split(":").map(x => (x || "").trim().toLowerCase());
    if (k === "font-size" && /^[\d.]+(px|em|%)$/.test(v)) out.size = v;
    if (k === "color" && /^(#[0-9a-f]{3,8}|rgba?\([\d.,\s%]+\)|[a-z]+)$/.test(v)) out.color = v;
  }
  return out;
}
const TAGS = /(<\/?(?:b|i|sub|sup|br)\s*\/?>|<span\s+style\s*=\s*(?:"[^"]*"|'[^']*')\s*>|<\/span\s*>)/i;
function runs(text) { // [[{text, b, i, sub, sup, size, color}]] per line
  const lines = [[]], state = { b: 0, i: 0, sub: 0, sup: 0 }, spans = [];
  for (const part of String(text ?? "").split(TAGS)) {
    if (!part) continue;
    const tag = /^<(\/?)(b|i|sub|sup|br)\s*\/?>$/i.exec(part);
    const open = /^<span\s+style\s*=\s*["']([^"']*)["']\s*>$/i.exec(part);
    if (open) { spans.push(spanStyle(open[1])); continue; }
    if (/^<\/span\s*>$/i.test(part)) { spans.pop(); continue; }
    if (!tag) { lines[lines.length - 1].push({ text: decode(part), ...state, ...Object.assign({}, ...spans) }); continue; }
    const name = tag[2].toLowerCase();
    if (name === "br") lines.push([]);
    else state[name] = Math.max(0, state[name] + (tag[1] ? -1 : 1));
  }
  return lines;
}
// Lines of tspans in an SVG text element; the first line's baseline at the element's y.
function richText(textEl, text, x) {
  const lines = runs(text);
  lines.forEach((line, k) => {
    let shift = 0;
    const first = node("tspan", { x, dy: k ? `${LINE}em` : null }, textEl);
    if (!line.length) first.textContent = "\u200b";
    line.forEach((r, j) => {
      const want = r.sup ? -0.6 : r.sub ? 0.3 : 0;
      const t = j === 0 ? first : node("tspan", {}, textEl);
      if (r.sup || r.sub) t.setAttribute("font-size", "70%");
      const dy = (want - shift) / (r.sup || r.sub ? 0.7 : 1);
      if (j === 0 && dy) t.setAttribute("dy", `${(k ? LINE : 0) + dy}em`);
      else if (dy) t.setAttribute("dy", `${dy}em`);
      shift = want;
      if (r.b) t.setAttribute("font-weight", "bold");
      if (r.i) t.setAttribute("font-style", "italic");
      if (r.size && !(r.sup || r.sub)) t.setAttribute("font-size", r.size);
      if (r.color) t.setAttribute("fill", r.color);
      t.textContent = r.text;
    });
    if (shift && line.length) node("tspan", { dy: `${-shift}em` }, textEl).textContent = "\u200b";
  });
  return lines.length;
}
function richHtml(parent, text) { // the same runs as HTML elements, for the hover label
  runs(text).forEach((line, k) => {
    if (k) parent.appendChild(document.createElement("br"));
    for (const r of line) {
      let e = document.createTextNode(r.text);
      for (const tag of ["sub", "sup", "i", "b"]) if (r[tag]) { const w = document.createElement(tag); w.appendChild(e); e = w; }
      if (r.size || r.color) {
        const w = document.createElement("span");
        if (r.size) w.style.fontSize = r.size;
        if (r.color) w.style.color = r.color;
        w.appendChild(e);
        e = w;
      }
      parent.appendChild(e);
    }
  });
}

// ---- geometry ------------------------------------------------------------------------------------------------
function frameOf(layout) {
  const m = Object.assign({ l: 80, r: 80, t: 100, b: 80, pad: 0 }, layout.margin || {});
  const W = layout.width || 700, H = layout.height || 450;
  return { W, H, m, w: W - m.l - m.r, h: H - m.t - m.b };
}
function axes(layout, f) { // every axis as {lo, hi (px), r0, r1, px(v)}
  const out = {};
  for (const [name, a] of Object.entries(layout)) {
    const k = /^(x|y)axis(\d*)$/.exec(name);
    if (!k) continue;
    const dom = a.domain || [0, 1], range = a.range || [0, 1];
    const lo = k[1] === "x" ? f.m.l + dom[0] * f.w : f.m.t + (1 - dom[1]) * f.h;
    const hi = k[1] === "x" ? f.m.l + dom[1] * f.w : f.m.t + (1 - dom[0]) * f.h;
    const id = k[1] + k[2];
    const px = k[1] === "x" ? v => lo + (v - range[0]) / (range[1] - range[0]) * (hi - lo)
                            : v => hi - (v - range[0]) / (range[1] - range[0]) * (hi - lo);
    out[id] = { id, name, a, lo, hi, range, px };
  }
  return out;
}
function paperX(f, v) { return f.m.l + v * f.w; }
function paperY(f, v) { return f.m.t + (1 - v) * f.h; }
function place(f, ax, ref, v, dim) {
  if (!ref || ref === "paper") return dim === "x" ? paperX(f, v) : paperY(f, v);
  const a = ax[ref.replace(" domain", "")];
  if (ref.endsWith(" domain")) return a.lo + (dim === "x" ? v : 1 - v) * (a.hi - a.lo);
  return a.px(v);
}
const fontAttrs = (font, base) => {
  const ft = Object.assign({}, base, font || {});
  return { "font-size": ft.size, fill: ft.color, "font-family": ft.family, "font-weight": ft.weight };
};
// A block of rich text anchored at (x, y): xanchor left/center/right, yanchor top/middle/bottom.
// With `measured` (a list), the block is an annotation: its drawn box is to be measured and placed (fit), so that
// subscripts and superscripts count, as Plotly counts them; without, lines are placed by their font size.
function textBlock(parent, text, x, y, font, xanchor, yanchor, cls, angle, measured) {
  const size = font["font-size"] || 12;
  const t = node("text", Object.assign({ class: cls, "text-anchor":
    { left: "start", right: "end" }[xanchor] || "middle" }, font), parent);
  const lines = richText(t, text, x);
  const height = (lines - 1) * LINE * size;
  const top = yanchor === "top" ? 0 : yanchor === "bottom" ? -(height + size) : -(height + size) / 2;
  const base = y + top + 0.8 * size;
  t.setAttribute("y", base);
  const key = [size, font["font-family"], font["font-weight"], text].join();
  if (measured) measured.push({ t, y, base, yanchor, key });
  if (angle) t.setAttribute("transform", `rotate(${angle} ${x} ${y})`);
  return t;
}

// Annotations' boxes, read all at once (one layout for all, not one each) and then moved: the box 2 px (Plotly's
// border and padding) inside the anchor. A box's top (from the baseline) and height depend on the text and its font
// only, so each is measured once a page: a chart drawn again (a new run, an animation's next frame) with texts it
// has shown reads no layout (getBBox would lay out the whole page, with everything React has just changed in it).
const INSET = 2;
// annotation key (size, family, weight, text) → {top: box top − baseline, height}; a test may empty it
const BOXES = (MHA.boxes ??= new Map());
function fit(measured) {
  if (BOXES.size > 5000) BOXES.clear();
  const keep = document.fonts.status === "loaded";  // a box measured in a stand-in font is used once, not kept
  const boxes = new Map(measured.filter(m => !BOXES.has(m.key)).map(m => [m, m.t.getBBox()]));
  measured.forEach(m => {
    const box = boxes.get(m), b = box ? { top: box.y - m.base, height: box.height } : BOXES.get(m.key);
    if (!b.height) return;
    if (box && keep) BOXES.set(m.key, b);
    const want = m.yanchor === "top" ? m.y + INSET : m.yanchor === "bottom" ? m.y - INSET - b.height
                                                                            : m.y - b.height / 2;
    m.t.setAttribute("y", want - b.top);
  });
}
const DASH = { dot: [1, 1], dash: [3, 3], longdash: [5, 5], dashdot: [3, 1, 1, 1] };
const dash = (d, w) => d && DASH[d] ? DASH[d].map(v => v * Math.max(w || 2, 3)).join(",") : null;

// ---- drawing -------------------------------------------------------------------------------------------------
// Draws into `svg`, which is in the document (annotations are measured).
function draw(svg, st) {
  const layout = st.layout, f = frameOf(layout), ax = axes(layout, f), font = fontAttrs(layout.font);
  for (const [k, v] of Object.entries({ class: "mha-svg", width: f.W, height: f.H, viewBox: `0 0 ${f.W} ${f.H}`,
                                        "font-family": font["font-family"], role: "img" })) svg.setAttribute(k, v);
  node("rect", { width: f.W, height: f.H, fill: layout.paper_bgcolor || "#fff" }, svg);
  const defs = node("defs", {}, svg);
  const uid = st.uid;
  const subplots = {};
  for (const t of st.data) {
    const xa = ax[t.xaxis || "x"], ya = ax[t.yaxis || "y"];
    if (xa && ya) subplots[(t.xaxis || "x") + (t.yaxis || "y")] = [xa, ya];
  }
  const shapes = layout.shapes || [];
  // Plotly's layers: a shape below the traces lies under the plot areas when it is placed on the paper alone,
  // over them (and under the traces) when it is placed on an axis.
  const onPaper = s => (s.xref || "paper") === "paper" && (s.yref || "paper") === "paper";
  const drawShapes = (layer, keep) => {
    const g = node("g", { class: `shapes-${layer}` }, svg);
    for (const s of shapes) {
      if ((s.layer || "above") !== layer || !keep(s)) continue;
      const x0 = place(f, ax, s.xref, s.x0, "x"), x1 = place(f, ax, s.xref, s.x1, "x");
      const y0 = place(f, ax, s.yref, s.y0, "y"), y1 = place(f, ax, s.yref, s.y1, "y");
      const line = s.line || {}, w = line.width ?? 2;
      const stroke = { stroke: w ? line.color || "#444" : "none", "stroke-width": w, "stroke-dasharray": dash(line.dash, w),
                       opacity: s.opacity };
      if (s.type === "line") node("line", Object.assign({ x1: x0, y1: y0, x2: x1, y2: y1 }, stroke), g);
      else node("rect", Object.assign({ x: Math.min(x0, x1), y: Math.min(y0, y1), width: Math.abs(x1 - x0),
                                        height: Math.abs(y1 - y0), fill: s.fillcolor || "none" }, stroke), g);
    }
  };
  drawShapes("below", onPaper);
  // each subplot: a clip path, an area for pointer events
  for (const [name, [xa, ya]] of Object.entries(subplots)) {
    const clip = node("clipPath", { id: `${uid}-${name}` }, defs);
    node("rect", { x: xa.lo, y: ya.lo, width: xa.hi - xa.lo, height: ya.hi - ya.lo }, clip);
    const pad = f.m.pad; // Plotly's margin.pad: the plot's background reaches this far past its axes
    node("rect", { class: "mha-plot", "data-sub": name, "data-area": [xa.lo, ya.lo, xa.hi, ya.hi].join(","),
                   "data-range": [...xa.range, ...ya.range].join(","), x: xa.lo - pad, y: ya.lo - pad,
                   width: xa.hi - xa.lo + 2 * pad, height: ya.hi - ya.lo + 2 * pad,
                   fill: layout.plot_bgcolor || "#fff" }, svg);
  }
  drawShapes("below", s => !onPaper(s));
  gridLines(svg, ax);
  const traces = node("g", { class: "mha-traces" }, svg);
  st.data.forEach((t, i) => {
    const name = (t.xaxis || "x") + (t.yaxis || "y"), [xa, ya] = subplots[name] || [];
    if (!xa || t.visible === false) return;
    const g = node("g", { class: `trace ${t.type}`, "data-trace": i, "data-sub": name }, traces);
    if (t.type === "heatmap") heatmap(g, t, xa, ya, font);
    else if (t.type === "bar") bars(g, t, xa, ya, font);
    else if (t.type === "scatter") {
      if (t.cliponaxis !== false) g.setAttribute("clip-path", `url(#${uid}-${name})`);
      scatter(g, t, xa, ya, font);
    }
  });
  drawShapes("above", () => true);
  axisLabels(svg, layout, ax, font, f.m.pad);
  for (const t of st.data) colourBar(svg, f, t, font);
  const title = layout.title && layout.title.text, tl = layout.title || {}, pad = tl.pad || {};  // in the container
  const tx = (tl.x ?? 0.05) * f.W + ((tl.xanchor || "left") === "left" ? pad.l || 0 : tl.xanchor === "right" ? -(pad.r || 0) : 0);
  if (title) textBlock(svg, title, tx, tl.y === undefined ? f.m.t / 2 : (1 - tl.y) * f.H, fontAttrs(tl.font, font),
                       tl.xanchor || "left", tl.yanchor || "middle", "chart-title");
  const measured = [];
  for (const a of layout.annotations || []) {
    if (a.visible === false) continue;
    textBlock(svg, a.text, place(f, ax, a.xref, a.x, "x"), place(f, ax, a.yref, a.y, "y"),
              fontAttrs(a.font, font), a.xanchor || "center", a.yanchor || "middle", "annotation", a.textangle, measured);
  }
  fit(measured);
  return svg;
}

function heatmap(g, t, xa, ya, font) {
  const z = t.z || [], x0 = t.x0 ?? 0, y0 = t.y0 ?? 0, text = t.text || [];
  const lo = t.zmin ?? Math.min(...z.flat().filter(v => v !== null)), hi = t.zmax ?? Math.max(...z.flat().filter(v => v !== null));
  const scale = t.colorscale, gx = (t.xgap || 0) / 2, gy = (t.ygap || 0) / 2;
  const tf = fontAttrs(t.textfont, { family: font["font-family"] });
  const cells = node("g", { opacity: t.opacity }, g), labels = node("g", {}, g);
  if (t.zsmooth === "fast" && !t.texttemplate) return pixels(cells, z, scale, lo, hi, xa.px(x0 - 0.5), ya.px(y0 - 0.5),
                                                             xa.px(x0 + (z[0] || []).length - 0.5), ya.px(y0 + z.length - 0.5));
  z.forEach((row, i) => row.forEach((v, j) => {
    if (v === null || v === undefined || Number.isNaN(v)) return;
    const xl = xa.px(x0 + j - 0.5), xr = xa.px(x0 + j + 0.5), yt = ya.px(y0 + i - 0.5), yb = ya.px(y0 + i + 0.5);
    const colour = colourAt(scale, (v - lo) / ((hi - lo) || 1));
    node("rect", { x: Math.min(xl, xr) + gx, y: Math.min(yt, yb) + gy, width: Math.max(0, Math.abs(xr - xl) - 2 * gx),
                   height: Math.max(0, Math.abs(yb - yt) - 2 * gy), fill: colour }, cells);
    if (!t.texttemplate) return;
    const label = fill(t.texttemplate, { z: v, x: x0 + j, y: y0 + i, text: (text[i] || [])[j] });
    if (!label) return;
    const e = node("text", Object.assign({}, tf, { class: "cell-label", x: (xl + xr) / 2,
      y: (yt + yb) / 2 - 0.11 * (tf["font-size"] || 12),
      "text-anchor": "middle", "dominant-baseline": "central",
      fill: tf.fill || (isDark(colour) ? "#fff" : "#444") }), labels);
    e.textContent = label;
  }));
}

// A heatmap of small cells as Plotly draws it with zsmooth "fast": one image, a pixel a cell scaled up unsmoothed,
// empty cells transparent (a rect a cell would be thousands of SVG nodes for thumbnails of a few px a cell).
function pixels(g, z, scale, lo, hi, x0, y0, x1, y1) {
  const rows = z.length, cols = (z[0] || []).length;
  if (!rows || !cols) return;
  const c = document.createElement("canvas");
  c.width = cols; c.height = rows;
  const ctx = c.getContext("2d"), img = ctx.createImageData(cols, rows);
  z.forEach((row, i) => row.forEach((v, j) => {
    if (v === null || v === undefined || Number.isNaN(v)) return;
    const [r, gr, b] = rgba(colourAt(scale, (v - lo) / ((hi - lo) || 1))), k = 4 * (i * cols + j);
    img.data[k] = r; img.data[k + 1] = gr; img.data[k + 2] = b; img.data[k + 3] = 255;
  }));
  ctx.putImageData(img, 0, 0);
  node("image", { class: "heat-pixels", href: c.toDataURL("image/png"), x: Math.min(x0, x1), y: Math.min(y0, y1),
                  width: Math.abs(x1 - x0), height: Math.abs(y1 - y0), preserveAspectRatio: "none",
                  style: "image-rendering: pixelated" }, g);
}

// Bars from 0 to each value, `width` (in the axis's units) thick; a bar's text just past its end (into the margin the
// figure leaves for it, when the bar is full length).
function bars(g, t, xa, ya, font) {
  const across = t.orientation === "h", values = across ? t.x || [] : t.y || [], at = across ? t.y || [] : t.x || [];
  const w = (t.width ?? 0.8) / 2, mk = t.marker || {}, tf = fontAttrs(t.textfont, font);
  values.forEach((v, k) => {
    if (v === null || v === undefined || at[k] === null || at[k] === undefined) return;
    const colour = Array.isArray(mk.color) ? mk.color[k] : mk.color || "#636efa";
    const [x0, x1, y0, y1] = across ? [xa.px(0), xa.px(v), ya.px(at[k] - w), ya.px(at[k] + w)]
                                    : [xa.px(at[k] - w), xa.px(at[k] + w), ya.px(0), ya.px(v)];
    node("rect", { class: "bar", x: Math.min(x0, x1), y: Math.min(y0, y1), width: Math.abs(x1 - x0),
                   height: Math.abs(y1 - y0), fill: colour }, g);
    const words = Array.isArray(t.text) ? t.text[k] : t.text;
    if (words === undefined || words === null || words === "") return;
    if (across) textBlock(g, words, Math.max(x0, x1) + 3, (y0 + y1) / 2, tf, "left", "middle", "bar-text");
    else textBlock(g, words, (x0 + x1) / 2, Math.min(y0, y1) - 3, tf, "center", "bottom", "bar-text");
  });
}

// An axis's grid: a line across its subplot at each tick.
function gridLines(svg, ax) {
  const g = node("g", { class: "grid" }, svg);
  for (const a of Object.values(ax)) {
    const o = a.a, x = a.id[0] === "x";
    if (!o.showgrid || !o.tickvals || o.visible === false) continue;
    const other = ax[o.anchor && o.anchor !== "free" ? o.anchor : x ? "y" : "x"];
    if (!other) continue;
    const lo = Math.min(...a.range), hi = Math.max(...a.range);
    for (const v of o.tickvals) {
      if (v < lo || v > hi) continue;
      const p = a.px(v);
      node("line", Object.assign(x ? { x1: p, x2: p, y1: other.lo, y2: other.hi } : { y1: p, y2: p, x1: other.lo, x2: other.hi },
                                 { stroke: o.gridcolor || "#eee", "stroke-width": 1 }), g);
    }
  }
}

const TEXT_POSITION = { left: "end", right: "start", center: "middle" };
function scatter(g, t, xa, ya, font) {
  const xs = t.x || [], ys = t.y || [], mode = t.mode || "markers";
  const ok = k => xs[k] !== null && xs[k] !== undefined && ys[k] !== null && ys[k] !== undefined;
  if (mode.includes("lines")) {
    let d = "", pen = false;
    xs.forEach((_, k) => {
      if (!ok(k)) { pen = false; return; }
      d += `${pen ? "L" : "M"}${xa.px(xs[k])},${ya.px(ys[k])}`;
      pen = true;
    });
    const line = t.line || {};
    if (d) node("path", { d, fill: "none", stroke: line.color || "#444", "stroke-width": line.width ?? 2,
                          "stroke-dasharray": dash(line.dash, line.width ?? 2), "stroke-linejoin": "round" }, g);
  }
  if (mode.includes("markers")) {
    const mk = t.marker || {}, size = mk.size ?? 6, line = mk.line || {};
    xs.forEach((_, k) => {
      if (!ok(k)) return;
      const colour = Array.isArray(mk.color) ? mk.color[k] : mk.color || "#444";
      const attrs = { fill: colour, "fill-opacity": mk.opacity, stroke: line.width ? line.color : "none",
                      "stroke-width": line.width || 0, class: "point" };
      const cx = xa.px(xs[k]), cy = ya.px(ys[k]);
      if (mk.symbol === "square") node("rect", Object.assign(attrs, { x: cx - size / 2, y: cy - size / 2, width: size, height: size }), g);
      else node("circle", Object.assign(attrs, { cx, cy, r: size / 2 }), g);
    });
  }
  if (mode.includes("text")) {
    const tf = fontAttrs(t.textfont, font), pos = (t.textposition || "middle center").split(" ");
    const anchor = TEXT_POSITION[pos[1] || "center"];
    xs.forEach((_, k) => {
      const words = Array.isArray(t.text) ? t.text[k] : t.text;
      if (!ok(k) || words === undefined || words === null || words === "") return;
      const x = xa.px(xs[k]), y = ya.px(ys[k]);
      const yanchor = { top: "bottom", bottom: "top" }[pos[0]] || "middle";
      textBlock(g, words, x, y + (yanchor === "bottom" ? -3 : yanchor === "top" ? 3 : 0), tf,
                { start: "left", end: "right" }[anchor] || "center", yanchor, "point-text");
    });
  }
}

function axisLabels(svg, layout, ax, font, pad) {
  for (const a of Object.values(ax)) {
    const o = a.a;
    if (o.visible === false) continue;
    const x = a.id[0] === "x", other = ax[o.anchor && o.anchor !== "free" ? o.anchor : x ? "y" : "x"];
    if (!other) continue;
    const side = o.side || (x ? "bottom" : "left");
    const at = x ? (side === "top" ? other.lo - pad : other.hi + pad) : (side === "right" ? other.hi + pad : other.lo - pad);
    const tf = fontAttrs(o.tickfont, font), size = tf["font-size"] || 12, away = o.ticklabelstandoff || 0;
    const sub = x ? a.id + other.id : other.id + a.id;
    const g = node("g", { class: `${x ? "x" : "y"}axis`, "data-axis": a.id, "data-sub": sub }, svg);
    // A label drawn shortened (a long token) shows its whole text on hover: its title (figures.base.tick_titles).
    const titles = (((layout.meta || {}).ticktitles) || {})[a.name] || [];
    if (o.showticklabels !== false && o.tickvals) {
      o.tickvals.forEach((v, k) => {
        const lo = Math.min(a.range[0], a.range[1]), hi = Math.max(a.range[0], a.range[1]);
        if (v < lo || v > hi) return;
        const label = o.ticktext ? o.ticktext[k] : number(v);
        // The title beside the label in a group of their own, so that the label's text stays only what it shows.
        const box = titles[k] ? node("g", { class: "titled" }, g) : g;
        if (titles[k]) node("title", {}, box).textContent = decode(titles[k]);
        if (x) textBlock(box, label, a.px(v), side === "top" ? at - 1 - away : at + 3 + away, tf, "center",
                         side === "top" ? "bottom" : "top", "tick");
        else textBlock(box, label, side === "right" ? at + 1 + away : at - 1 - away, a.px(v), tf,
                       side === "right" ? "left" : "right", "middle", "tick");
      });
    }
    const title = o.title && o.title.text;
    if (title) {
      const tfont = fontAttrs(o.title.font, font);
      const off = (o.title.standoff ?? 15) + (o.showticklabels !== false && o.tickvals ? size * 1.2 : 0);
      if (x) textBlock(g, title, (a.lo + a.hi) / 2, side === "top" ? at - off : at + off, tfont, "center",
                       side === "top" ? "bottom" : "top", "axis-title");
      else textBlock(g, title, side === "right" ? at + off : at - off, (a.lo + a.hi) / 2, tfont, "center",
                     side === "right" ? "top" : "bottom", "axis-title", side === "right" ? 90 : -90);
    }
  }
}

function colourBar(svg, f, t, font) {
  const src = t.type === "heatmap" ? t : t.marker || {};
  const show = t.type === "heatmap" ? t.showscale !== false && t.colorbar : src.showscale && src.colorbar;
  if (!show) return;
  const cb = src.colorbar, scale = src.colorscale;
  const lo = t.type === "heatmap" ? t.zmin : src.cmin, hi = t.type === "heatmap" ? t.zmax : src.cmax;
  const len = cb.lenmode === "pixels" ? cb.len : (cb.len ?? 1) * f.h, thick = cb.thickness ?? 30;
  const x = paperX(f, cb.x ?? 1.02) + (cb.xanchor === "right" ? -thick : cb.xanchor === "center" ? -thick / 2 : 0);
  const y0 = paperY(f, cb.y ?? 0.5), top = cb.yanchor === "top" ? y0 : cb.yanchor === "bottom" ? y0 - len : y0 - len / 2;
  const g = node("g", { class: "colorbar" }, svg);
  // A title on top takes its room out of the bar's length, as in Plotly, and starts xpad right of x, as in Plotly; the
  // bar itself is drawn at x (Plotly draws it xpad further right too).
  const title = cb.title && (cb.title.text ?? cb.title), tfont = fontAttrs((cb.title || {}).font, font);
  const room = typeof title === "string" && title ? LINE * (tfont["font-size"] || 12) + 8 : 0;
  if (room) textBlock(g, title, x + (cb.xpad ?? 0), top + 8, tfont, "left", "middle", "cbtitle");
  const barTop = top + room, barLen = len - room;
  const id = `cb${Math.random().toString(36).slice(2)}`;
  const grad = node("linearGradient", { id, x1: 0, y1: 1, x2: 0, y2: 0 }, node("defs", {}, g));
  for (const [stop] of scale) node("stop", { offset: stop, "stop-color": colourAt(scale, stop) }, grad);
  node("rect", { class: "cbfill", x, y: barTop, width: thick, height: barLen, fill: `url(#${id})` }, g);
  const tf = fontAttrs(cb.tickfont, font);
  (cb.tickvals || []).forEach((v, k) => {
    const y = barTop + barLen - (v - lo) / ((hi - lo) || 1) * barLen;
    textBlock(g, cb.ticktext ? cb.ticktext[k] : number(v), x + thick + (room ? 5 : 3), y, tf, "left", "middle", "cbtick");
  });
}

// ---- animation, controls, hover, clicks ----------------------------------------------------------------------
const isObject = v => v && typeof v === "object" && !Array.isArray(v);
function merge(a, b) {  // b laid over a as Plotly.animate lays a frame: objects merged, arrays and values replaced
  const out = Object.assign({}, a);
  for (const [k, v] of Object.entries(b)) out[k] = isObject(v) && isObject(out[k]) ? merge(out[k], v) : v;
  return out;
}

const SETTLE_MS = 400;
function controls(root, fig, st, redraw) {
  const layout = fig.layout, f = frameOf(layout), frames = fig.frames || [];
  const box = (x, y, xanchor, yanchor, e) => {
    e.style.position = "absolute";
    e.style.left = `${paperX(f, x)}px`;
    e.style.top = `${paperY(f, y)}px`;
    e.style.transform = `translate(${{ left: 0, center: "-50%", right: "-100%" }[xanchor || "left"] ?? 0},`
                      + `${{ top: 0, middle: "-50%", bottom: "-100%" }[yanchor || "top"] ?? 0})`;
    root.appendChild(e);
  };
  const slider = (layout.sliders || [])[0];
  // The frame the figure rests on is shown as the figure came: with what the frames do not hold, such as the clicked
  // cell's outline (drawn into the figure, not into its frames).
  const rest = st.frame, restData = st.plain.data.map(t => ({ ...t })), restLayout = st.plain.layout;
  const show = k => {
    st.frame = k;
    const fr = frames[k], plain = st.plain;
    if (k === rest) {
      plain.data = restData.map(t => ({ ...t }));
      plain.layout = restLayout;
    } else if (fr) {
      (fr.traces || fr.data.map((_, i) => i)).forEach((ti, j) => { plain.data[ti] = merge(plain.data[ti], fr.data[j]); });
      if (fr.layout) plain.layout = merge(plain.layout, fr.layout);  // a frame's captions (arrays are replaced)
    }
    outline(st);
    redraw();
    if (st.place) st.place(k);
    if (frames.length) settle();  // a still chart (shown again by its mark) has no frame to leave it on
  };
  st.show = show;
  // The frame the reader leaves the animation on goes to the server once it stays (SETTLE_MS, and Play not running),
  // so that what the page says beside the chart follows it (chart._remember_cell).
  const settle = () => {
    clearTimeout(st.settling);
    st.settling = setTimeout(() => { if (!st.timer && st.onFrame) { st.sentFrame = st.frame; st.onFrame(st.frame); } },
                             SETTLE_MS);
  };
  const stop = () => { clearTimeout(st.timer); st.timer = null; };
  for (const menu of layout.updatemenus || []) {
    const bar = document.createElement("div");
    bar.className = "mha-menu updatemenu-container";
    bar.style.fontSize = `${(menu.font || {}).size || 12}px`;
    for (const b of menu.buttons || []) {
      const btn = document.createElement("button");
      btn.type = "button";
      btn.className = "mha-button updatemenu-button";
      btn.textContent = b.label;
      const [names, opts] = b.args || [];
      btn.addEventListener("click", () => {
        stop();
        if (Array.isArray(names) && names[0] === null) { settle(); return; } // Pause
        const step = ((opts || {}).frame || {}).duration ?? 500;
        let k = (opts || {}).fromcurrent && st.frame < frames.length - 1 ? st.frame + 1 : 0;
        const tick = () => { show(k); k += 1; if (k < frames.length) st.timer = setTimeout(tick, step); else st.timer = null; };
        tick();
      });
      bar.appendChild(btn);
    }
    box(menu.x ?? -0.05, menu.y ?? 1, menu.xanchor, menu.yanchor, bar);
  }
  if (slider && frames.length) box(slider.x ?? 0, slider.y ?? 0, slider.xanchor, slider.yanchor,
                                   frameSlider(slider, (slider.len ?? 1) * f.w, frames, st, stop, show,
                                               (layout.meta || {}).slider || {}));
}

// Plotly's frame slider: a rail, a tick and a label per step, a handle; drag, click, or the arrow keys. For a screen
// reader (`words`, the figure's layout.meta.slider) it has a name, each step's words as its value text, and a live
// region beside it that says the step shown, however it came (the slider, Play, a click's frame).
const RAIL_INSET = 8; // px from each end of the rail to the first and last step
function frameSlider(slider, width, frames, st, stop, show, words) {
  const wrap = document.createElement("div"), n = slider.steps.length, said = words.steps || [];
  wrap.className = "mha-slider slider-container";
  Object.assign(wrap.style, { width: `${width}px`, fontSize: `${(slider.font || {}).size || 12}px` });
  Object.assign(wrap, { tabIndex: 0 });
  wrap.setAttribute("role", "slider");
  wrap.setAttribute("aria-valuemin", "0");
  wrap.setAttribute("aria-valuemax", String(n - 1));
  if (words.label) wrap.setAttribute("aria-label", words.label);
  const live = document.createElement("div");
  live.className = "mha-live";
  live.setAttribute("aria-live", "polite");
  wrap.append(live);
  const at = k => RAIL_INSET + (n > 1 ? k / (n - 1) : 0) * (width - 2 * RAIL_INSET);
  const rail = document.createElement("div"), handle = document.createElement("div");
  rail.className = "mha-rail";
  handle.className = "mha-handle";
  wrap.append(rail);
  // Each step's name on one baseline: a line's height set, not `normal`, whose line is as tall as the fonts its glyphs
  // take (a Chinese name's fallback font set its baseline 2-3 px under a Latin name's: "softmax" beside 打分, audit
  // 2026-12-06); the height is then the page's font's alone (STYLE's .mha-step).
  st.labels = slider.steps.map((step, k) => {
    const tick = document.createElement("div"), label = document.createElement("span");
    tick.className = "mha-tick";
    tick.style.left = `${at(k)}px`;
    label.className = "mha-step";
    label.textContent = step.label;
    label.style.left = `${at(k)}px`;
    wrap.append(tick, label);
    return label;
  });
  wrap.append(handle);
  const go = k => {
    stop();
    const name = slider.steps[k].args[0][0];
    show(Math.max(0, frames.findIndex(fr => fr.name === name)));
  };
  st.place = k => {
    handle.style.left = `${at(k)}px`;
    wrap.setAttribute("aria-valuenow", String(k));
    const text = said[k] || slider.steps[k].label || String(k + 1);
    wrap.setAttribute("aria-valuetext", text);
    if (live.textContent !== text && st.placed !== undefined) live.textContent = text;  // not on the first draw
    st.placed = k;
    st.labels.forEach((l, i) => l.classList.toggle("on", i === k));
  };
  st.place(st.frame);
  const nearest = e => {
    const r = wrap.getBoundingClientRect();
    const step = (width - 2 * RAIL_INSET) / Math.max(1, n - 1);
    return Math.max(0, Math.min(n - 1, Math.round((e.clientX - r.left - RAIL_INSET) / (step || 1))));
  };
  wrap.addEventListener("pointerdown", e => {
    wrap.setPointerCapture(e.pointerId);
    go(nearest(e));
    const move = m => { const k = nearest(m); if (k !== st.frame) go(k); };
    const ends = ["pointerup", "pointercancel", "lostpointercapture"];
    const up = () => { wrap.removeEventListener("pointermove", move); ends.forEach(k => wrap.removeEventListener(k, up)); };
    wrap.addEventListener("pointermove", move);
    ends.forEach(k => wrap.addEventListener(k, up));
  });
  wrap.addEventListener("keydown", e => {
    const k = { ArrowLeft: st.frame - 1, ArrowRight: st.frame + 1, Home: 0, End: n - 1 }[e.key];
    if (k === undefined) return;
    e.preventDefault();
    go(Math.max(0, Math.min(n - 1, k)));
  });
  return wrap;
}

// Point n's hover text on a trace whose hover grows by frame (layout.meta.hover, figures.base.hover_by_frame): each
// part the frame's count has reached at n (its label, then its cell, unless that is empty), one a line; else pending.
function grown(h, n) {
  const said = h.parts.filter((p, q) => n < (h.upto[q] ?? 0) && p.cells[n]).map(p => p.label + p.cells[n]);
  return said.length ? said.join("<br>") : h.pending;
}

// The cell under the pointer, topmost trace first: a heatmap cell with a value, or a point of a scatter's markers.
function cellAt(root, e) {
  const st = root.mha, svg = root.querySelector(":scope > svg");
  if (!st || !svg) return null;
  const r = svg.getBoundingClientRect(), px = e.clientX - r.left, py = e.clientY - r.top;
  const f = frameOf(st.layout), ax = axes(st.layout, f);
  for (let i = st.data.length - 1; i >= 0; i--) {
    const t = st.data[i], xa = ax[t.xaxis || "x"], ya = ax[t.yaxis || "y"];
    if (!xa || !ya || t.hoverinfo === "skip" || px < xa.lo || px > xa.hi || py < ya.lo || py > ya.hi) continue;
    const inv = (a, p) => a.range[0] + (a.id[0] === "x" ? p - a.lo : a.hi - p) / (a.hi - a.lo) * (a.range[1] - a.range[0]);
    const vx = inv(xa, px), vy = inv(ya, py);
    if (t.type === "heatmap" && t.hovertemplate) {
      const j = Math.round(vx - (t.x0 ?? 0)), k = Math.round(vy - (t.y0 ?? 0)), row = (t.z || [])[k];
      if (!row || row[j] === null || row[j] === undefined) continue;
      return { t, point: { x: (t.x0 ?? 0) + j, y: (t.y0 ?? 0) + k, z: row[j], text: ((t.text || [])[k] || [])[j] } };
    }
    if (t.type === "bar" && t.hovertemplate) {
      const across = t.orientation === "h", at = across ? t.y || [] : t.x || [], w = (t.width ?? 0.8) / 2;
      const n = at.findIndex(v => Math.abs((across ? vy : vx) - v) <= w);
      if (n < 0) continue;
      return { t, point: { x: (t.x || [])[n], y: (t.y || [])[n], text: Array.isArray(t.text) ? t.text[n] : t.text,
                           customdata: (t.customdata || [])[n] } };
    }
    if (t.type === "scatter" && (t.mode || "").includes("markers") && t.hovertemplate) {
      const cx = Math.round(vx), cy = Math.round(vy);
      const n = (t.x || []).findIndex((v, q) => v === cx && t.y[q] === cy), grows = (st.layout.meta || {}).hover;
      if (n < 0) continue;
      const text = grows && grows.trace === i ? grown(grows, n) : Array.isArray(t.text) ? t.text[n] : t.text;
      return { t, point: { x: cx, y: cy, text, customdata: (t.customdata || [])[n] } };
    }
  }
  return null;
}

// Once per chart element: the hover label follows the pointer, a click on a cell of the click layer is sent.
function listen(root) {
  root.addEventListener("mousemove", e => {
    const tip = root.querySelector(":scope > .mha-tip"), hit = cellAt(root, e);
    if (!tip) return;
    if (!hit) { tip.style.display = "none"; return; }
    tip.replaceChildren();
    richHtml(tip, fill(hit.t.hovertemplate, hit.point));
    const r = root.getBoundingClientRect();
    tip.style.display = "block";
    const left = e.clientX - r.left + 14, w = tip.offsetWidth;
    tip.style.left = `${left + w > r.width ? Math.max(0, e.clientX - r.left - 14 - w) : left}px`;
    tip.style.top = `${e.clientY - r.top + 14}px`;
  });
  root.addEventListener("mouseleave", () => {
    const tip = root.querySelector(":scope > .mha-tip");
    if (tip) tip.style.display = "none";
  });
  root.addEventListener("click", e => {
    const hit = root.mha && root.mha.onCell ? cellAt(root, e) : null;
    if (hit && hit.t.name === "click" && hit.point.customdata) {
      clearTimeout(root.mha.settling);  // the click names the frame itself
      if (root.mha.frames.length) root.mha.sentFrame = root.mha.frame;
      root.mha.onCell(root.mha.frames.length ? [...hit.point.customdata, root.mha.frame] : hit.point.customdata);
    }
  });
}

const STYLE = `
.mha-chart { position: relative; display: inline-block; line-height: normal; }
.mha-chart svg { display: block; }
.mha-chart .mha-menu { display: flex; gap: 4px; }
.mha-chart .mha-button { font: inherit; padding: 4px 10px; border: 1px solid #bec8d9; border-radius: 3px;
  background: #f4faff; color: #2a3f5f; cursor: pointer; }
.mha-chart .mha-button:hover { background: #e1eefb; }
.mha-chart .mha-slider { height: 3.4em; cursor: pointer; touch-action: none; outline: none; }
.mha-chart .mha-rail { position: absolute; left: 0; right: 0; top: 6px; height: 5px; border-radius: 3px;
  background: #f8fafc; border: 1px solid #bec8d9; }
.mha-chart .mha-handle { position: absolute; top: 0; width: 18px; height: 18px; margin-left: -9px; border-radius: 50%;
  background: #fff; border: 1px solid #bec8d9; box-sizing: border-box; box-shadow: 0 1px 2px rgba(0,0,0,0.15); }
.mha-chart .mha-slider:focus-visible .mha-handle { border-color: #2563eb; }
.mha-chart .mha-tick { position: absolute; top: 20px; width: 1px; height: 5px; background: #333; }
.mha-chart .mha-step { position: absolute; top: 26px; transform: translateX(-50%); white-space: nowrap; color: #2a3f5f;
  line-height: 1.25; }
.mha-chart .mha-step.on { font-weight: bold; }
.mha-chart .mha-live { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
  white-space: nowrap; }
.mha-chart .mha-tip { position: absolute; display: none; pointer-events: none; z-index: 5; width: max-content;
  max-width: min(32em, 90vw); overflow-wrap: anywhere; background: #fff; border: 1px solid rgba(47,45,43,0.2);
  border-radius: 3px; padding: 3px 6px; font-size: 12px; color: #374151; box-shadow: 0 1px 3px rgba(0,0,0,0.1); }
.mha-chart .mha-save { position: absolute; top: 0; right: 0; z-index: 4; opacity: 0; font-size: 11px; padding: 1px 6px;
  border: 1px solid #d1d5db; border-radius: 3px; background: #fff; color: #374151; cursor: pointer; }
.mha-chart:hover .mha-save, .mha-chart .mha-save:focus { opacity: 1; }
@media (hover: none) { .mha-chart .mha-save { opacity: 0.8; } }
`;

// The PNG of the drawn SVG, at twice its size (what Plotly's camera button gave).
function savePng(svg, name) {
  const xml = new XMLSerializer().serializeToString(svg);
  const img = new Image(), w = +svg.getAttribute("width"), h = +svg.getAttribute("height");
  img.onload = () => {
    const c = document.createElement("canvas");
    c.width = 2 * w; c.height = 2 * h;
    const g = c.getContext("2d");
    g.scale(2, 2);
    g.drawImage(img, 0, 0);
    const a = document.createElement("a");
    a.download = `${name}.png`;
    a.href = c.toDataURL("image/png");
    a.click();
  };
  img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(xml);
}

// The PNG button's title in the page's language (screen.py's component sets it on every run; a switch of language
// retitles the buttons already drawn).
export function saveTitle(title) {
  if (!title || title === MHA.title) return;
  MHA.title = title;
  for (const b of document.querySelectorAll(".mha-chart .mha-save")) b.title = b.ariaLabel = title;
}

export function render(host, fig, options) {
  const opts = options || {};
  let root = host.querySelector(":scope > .mha-chart");
  if (!root) {
    if (!document.getElementById("mha-chart-style")) {
      const s = document.createElement("style");
      s.id = "mha-chart-style";
      s.textContent = STYLE;
      document.head.appendChild(s);
    }
    root = document.createElement("div");
    root.className = "mha-chart";
    host.appendChild(root);
    listen(root);
  }
  clearTimeout((root.mha || {}).timer);
  clearTimeout((root.mha || {}).settling);
  root.replaceChildren();
  const layout = fig.layout;
  const active = ((layout.sliders || [])[0] || {}).active;
  // root.mha, what a browser test reads: the figure (layout, frames), the traces as drawn now, the frame shown, and
  // show(k) to step to frame k as the slider does.
  const st = { fig, layout, frames: fig.frames || [], data: fig.data.map(t => ({ ...t })), frame: active ?? 0,
               cell: opts.cell || null, onCell: opts.onCell, onFrame: opts.onFrame,
               uid: `m${Math.random().toString(36).slice(2)}` };
  st.plain = { data: st.data, layout };  // what the frame shown holds, before the chosen cell is outlined on it
  outline(st);
  root.mha = st;
  root.style.width = `${layout.width}px`;
  root.style.height = `${layout.height}px`;
  const redraw = () => {
    const old = root.querySelector(":scope > svg"), svg = node("svg", {});
    if (old) old.after(svg); else root.prepend(svg);
    draw(svg, st);
    if (old) old.remove();
    root.dataset.frame = String(st.frame);
  };
  redraw();
  controls(root, fig, st, redraw);
  const tip = document.createElement("div");
  tip.className = "mha-tip";
  root.appendChild(tip);
  root.style.cursor = opts.onCell ? "pointer" : "";
  if (opts.filename) {
    const save = document.createElement("button");
    save.type = "button";
    save.className = "mha-save";
    save.textContent = "PNG";
    save.title = save.ariaLabel = MHA.title || "";
    save.addEventListener("click", e => { e.stopPropagation(); savePng(root.querySelector("svg"), opts.filename); });
    root.appendChild(save);
  }
  root.dataset.drawn = String(opts.revision ?? "");
  return root;
}

// A clickable chart's chosen cell comes in an element of its own, the chart's mark (chart.mark: its data {key, cell}
// in MHA.marks with its way to send a click, then MHA.paint(key)): a click leaves the chart's element as it was, and
// the chart is drawn again with the cell outlined as its figure says (layout.meta.outline, figures.base.outline_rule).
const MARKS = (MHA.marks ??= new Map());  // chart key → {cell: [i, j] or null, send(cell)}
const CHARTS = (MHA.charts ??= new Map());  // chart key → its .mha-chart root

// The figure with cell [i, j] (0-based) outlined: each box of the rule covers columns x and rows y of its panel
// ([first, last], 1-based, or "i" / "j": the cell's row / column), as a layout shape put before the figure's own or as
// the path of a lines trace. `drawn` is the cell outlined ("" for none: no cell, no rule, or a cell outside its cells).
function outlined(fig, cell) {
  const rule = (fig.layout.meta || {}).outline;
  if (!rule || !cell || !(cell[0] < rule.cells[0] && cell[1] < rule.cells[1])) return { fig, drawn: "" };
  const [i, j] = cell, at = v => v === "i" ? [i + 1, i + 1] : v === "j" ? [j + 1, j + 1] : v;
  const data = fig.data.slice(), shapes = [];
  for (const b of rule.boxes) {
    const [x0, x1] = at(b.x), [y0, y1] = at(b.y);
    if (b.shape) shapes.push(Object.assign({}, b.shape, { x0: x0 - 0.5, x1: x1 + 0.5, y0: y0 - 0.5, y1: y1 + 0.5 }));
    else data[b.trace] = Object.assign({}, data[b.trace], { x: [x0 - 0.5, x1 + 0.5, x1 + 0.5, x0 - 0.5, x0 - 0.5],
                                                            y: [y0 - 0.5, y0 - 0.5, y1 + 0.5, y1 + 0.5, y0 - 0.5] },
                                       b.line ? { line: b.line } : {});
  }
  const layout = shapes.length ? Object.assign({}, fig.layout, { shapes: shapes.concat(fig.layout.shapes || []) })
                               : fig.layout;
  return { fig: Object.assign({}, fig, { data, layout }), drawn: cell.join() };
}

const markOf = key => (MARKS.get(key) || {}).cell || null;
const frameOfMark = key => { const f = (MARKS.get(key) || {}).frame; return f === undefined ? null : f; };

// st.data and st.layout: the frame shown (st.plain) with the chosen cell (st.cell) outlined on it, by the figure's rule.
function outline(st) {
  const o = outlined({ data: st.plain.data, layout: st.plain.layout }, st.cell);
  st.data = o.fig.data.map(t => ({ ...t }));
  st.layout = o.fig.layout;
  st.outlined = o.drawn;
}

// Shows the chart of `key` with its mark's cell outlined and, on an animation, at the mark's frame (the one the reader
// clicked on, or the one the chart rests on), unless the mark is the one the chart was last shown by (a frame the
// reader stepped to stays until the server names another) or the chart shows that already. Only the SVG is drawn
// anew: the controls, the slider and a running animation stay as they are.
function paint(key) {
  const root = CHARTS.get(key);
  if (!root || !root.isConnected || !root.mha) return;
  const st = root.mha, cell = markOf(key), at = frameOfMark(key);
  // A mark that names the frame this page itself sent last (a click's, or one left on) answers it: the reader may
  // have stepped on meanwhile, and the chart stays where they are.
  const echo = at !== null && at === st.sentFrame;
  const drawn = outlined(root.base.fig, cell).drawn;
  const frame = !echo && at !== null && at < st.frames.length ? at : st.frame;
  const same = root.mark === drawn && (root.markFrame === at || frame === st.frame);
  Object.assign(root, { mark: drawn, markFrame: at });
  if (same) return;
  st.cell = cell;
  st.show(frame);
}
MHA.paint = paint;

// Draws a chart element (chart.spec_html; its attributes are in chart.py's docstring) beside it, in the same st.html
// element: a run that sends another figure makes React write the element anew, which takes the old chart with it.
function chart(spec) {
  const d = spec.dataset, fig = JSON.parse(d.spec);
  const send = sent => (MARKS.get(d.key) || { send() {} }).send(sent);
  // A frame left on is sent only when it is not the one the server last named (paint shows that one).
  const opts = { filename: d.filename, revision: d.revision, cell: markOf(d.key), onCell: d.clickable ? send : null,
                 onFrame: d.clickable ? k => { if (k !== frameOfMark(d.key)) send([k]); } : null };
  const root = render(spec.parentNode, fig, opts);
  // It rests on its figure's frame: the frame its mark names may be an older figure's, and the mark the run sends
  // next names this one's (paint).
  Object.assign(root, { base: { fig, opts }, mark: root.mha.outlined, markFrame: null });
  CHARTS.set(d.key, root);
}

const SPECS = document.getElementsByClassName("mha-spec");

function drawSpecs() {
  for (const spec of SPECS) {
    if (spec.mhaDrawn) continue;
    spec.mhaDrawn = true;
    chart(spec);
  }
}

// Once a page (screen.py's component loads this module): every chart element there is, and every one React puts
// in the page later, is drawn. A MutationObserver's callback runs right after the commit that changed the page, in
// the same task, before the browser paints it.
export function watch() {
  if (MHA.observer) return;
  MHA.observer = new MutationObserver(drawSpecs);
  MHA.observer.observe(document.body, { childList: true, subtree: true });
  drawSpecs();
}
