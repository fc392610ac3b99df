// tmemviz interactive figure page: hover, select, search and keyboard moves over the figure's cells.
// Every .cell carries its coordinates as data-* attributes; a name ending in "s" (rows, lanes)
// holds an inclusive range "a-b". A cell's group is the cells that agree on every attribute its
// data-group names (space-separated, e.g. "warp thread"), or on data-thread when it has no data-group.
// A .field is a dense grid drawn as one image: its cells are indices into typed-array columns
// (base64 in data-field), and tooltips, search and selection are computed from those columns.
(() => {
  "use strict";
  const info = document.getElementById("info");
  const count = document.getElementById("count");
  const find = document.getElementById("find");
  const figure = document.getElementById("figure");
  const header = document.querySelector("header");
  const cells = Array.from(document.querySelectorAll("svg .cell"));
  const idle = info.textContent;
  let current = null; // { el } for a box, { f, i } for a field cell

  const TYPED = { u8: Uint8Array, i8: Int8Array, u16: Uint16Array, i16: Int16Array, i32: Int32Array };
  const decode = (b64, type) => {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
    return new TYPED[type](bytes.buffer);
  };
  const fields = Array.from(document.querySelectorAll("svg .field")).map((g) => {
    const d = JSON.parse(g.getAttribute("data-field"));
    const columns = {};
    d.names.forEach((name, k) => (columns[name] = decode(d.values[k], d.types[k])));
    return {
      g, d, columns,
      colors: d.colors.length ? decode(d.colors[1], d.colors[0]) : null,
      cw: d.w / d.cols,
      ch: d.h / d.rows,
      veil: g.querySelector(".veil"),
      hitPath: g.querySelector(".mark.hit"),
      selPath: g.querySelector(".mark.selected"),
      cursor: g.querySelector(".mark.cursor"),
      hits: [],
      selected: [],
    };
  });
  const size = (f) => f.d.cols * f.d.rows;
  const present = (f, i) => i >= 0 && i < size(f) && (!f.colors || f.colors[i] >= 0);
  const fieldTip = (f, i) => {
    const special = f.d.special[String(i)];
    if (special !== undefined) return special;
    const template = (f.colors && (f.d.tips || {})[String(f.colors[i])]) || f.d.tooltip;
    return template.replace(/\{([a-z][a-z0-9_]*)\}/g, (whole, name) => {
      const column = f.columns[name];
      if (!column) return whole;
      const texts = f.d.texts[name];
      const v = String(column[i]);
      return texts && texts[v] !== undefined ? texts[v] : v;
    });
  };
  const num = (v) => String(Math.round(v * 100) / 100);
  const cellsPath = (f, list) => {
    let d = "";
    for (const i of list) {
      const x = f.d.x + (i % f.d.cols) * f.cw;
      const y = f.d.y + Math.floor(i / f.d.cols) * f.ch;
      d += "M" + num(x) + " " + num(y) + "h" + num(f.cw) + "v" + num(f.ch) + "h" + num(-f.cw) + "z";
    }
    return d;
  };
  function paint(f) {
    f.hitPath.setAttribute("d", cellsPath(f, f.hits));
    f.selPath.setAttribute("d", cellsPath(f, f.selected));
    const holes = Array.from(new Set(f.hits.concat(f.selected)));
    const outer = "M" + f.d.x + " " + f.d.y + "h" + f.d.w + "v" + f.d.h + "h" + -f.d.w + "z";
    f.veil.setAttribute("d", outer + cellsPath(f, holes));
  }
  function cellAt(f, event) {
    const svg = f.g.ownerSVGElement;
    const pt = svg.createSVGPoint();
    pt.x = event.clientX;
    pt.y = event.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    const col = Math.floor((p.x - f.d.x) / f.cw);
    const row = Math.floor((p.y - f.d.y) / f.ch);
    if (col < 0 || row < 0 || col >= f.d.cols || row >= f.d.rows) return -1;
    const i = row * f.d.cols + col;
    return present(f, i) ? i : -1;
  }
  function placeCursor(f, i) {
    const c = f.cursor;
    if (i < 0) {
      c.setAttribute("width", "0");
      c.setAttribute("height", "0");
      return;
    }
    c.setAttribute("x", num(f.d.x + (i % f.d.cols) * f.cw));
    c.setAttribute("y", num(f.d.y + Math.floor(i / f.d.cols) * f.ch));
    c.setAttribute("width", num(f.cw));
    c.setAttribute("height", num(f.ch));
  }

  const tip = (el) => {
    const title = el.querySelector("title");
    return title ? title.textContent : "";
  };
  const groupName = (el) => el.dataset.group || "thread";
  // The group's identity: its names and their values, or null when the cell lacks one of them.
  const groupKey = (el) => {
    const names = groupName(el).split(" ");
    const values = names.map((name) => el.getAttribute("data-" + name));
    if (values.some((v) => v === null)) return null;
    return names.map((name, i) => name + "=" + values[i]).join(" ");
  };
  const keys = new Map(cells.map((el) => [el, groupKey(el)]));
  const center = (el) => {
    const n = (name) => parseFloat(el.getAttribute(name));
    return [n("x") + n("width") / 2, n("y") + n("height") / 2];
  };
  const centers = new Map(cells.map((el) => [el, center(el)]));

  // Cells scrolled into view must land below the header when it stays on screen (sticky).
  function keepClearOfHeader() {
    const sticky = getComputedStyle(header).position === "sticky";
    document.documentElement.style.scrollPaddingTop = sticky ? header.offsetHeight + 8 + "px" : "";
  }
  keepClearOfHeader();
  window.addEventListener("resize", keepClearOfHeader);
  const reveal = (el) => {
    keepClearOfHeader();
    el.scrollIntoView({ block: "nearest", inline: "nearest" });
  };

  function updateDimming() {
    const any =
      document.querySelector("svg .selected.cell, svg .hit.cell") !== null ||
      fields.some((f) => f.hits.length || f.selected.length);
    document.body.classList.toggle("dimming", any);
  }

  function clear(cls) {
    for (const el of Array.from(document.querySelectorAll("svg .cell." + cls))) el.classList.remove(cls);
    for (const f of fields) {
      if (cls === "hit") f.hits = [];
      if (cls === "selected") f.selected = [];
      if (cls === "current") placeCursor(f, -1);
      paint(f);
    }
  }

  const describe = (key, n) =>
    (key === null ? "this cell" : key.replace(/^thread=/, "T").replace(/=/g, " ")) +
    ": " + n + (n === 1 ? " cell" : " cells") + " selected";

  // A group key "name=value name=value" -> its pairs, e.g. "warp=1 thread=6" -> [["warp", 1], ["thread", 6]].
  const pairs = (key) => key.split(" ").map((part) => [part.split("=")[0], +part.split("=")[1]]);

  // Every field cell in the group named by ``key`` (fields lacking one of its names hold none).
  function markFields(key) {
    let n = 0;
    for (const f of fields) {
      const want = pairs(key);
      if (!want.every(([name]) => f.columns[name])) continue;
      for (let j = 0; j < size(f); j++) {
        if (present(f, j) && want.every(([name, v]) => f.columns[name][j] === v)) f.selected.push(j);
      }
      paint(f);
      n += f.selected.length;
    }
    return n;
  }

  // A selection is the clicked cell's group everywhere: in the boxes and in every field.
  function select(target) {
    clear("selected");
    clear("current");
    current = target;
    if (target && target.f) {
      const { f, i } = target;
      const names = f.d.group;
      // A cell lacking a coordinate it would group by (-1) is selected alone, as a box lacking it is.
      const whole = names.length && names.every((name) => f.columns[name][i] >= 0);
      const key = whole ? names.map((name) => name + "=" + f.columns[name][i]).join(" ") : null;
      let n = 1;
      if (key === null) {
        f.selected = [i];
        paint(f);
      } else {
        const boxes = cells.filter((c) => keys.get(c) === key);
        for (const c of boxes) c.classList.add("selected");
        n = boxes.length + markFields(key);
      }
      placeCursor(f, i);
      info.textContent = fieldTip(f, i);
      count.textContent = describe(key, n);
      reveal(f.cursor);
    } else if (target) {
      const el = target.el;
      const key = keys.get(el);
      const members = key === null ? [el] : cells.filter((c) => keys.get(c) === key);
      for (const c of members) c.classList.add("selected");
      el.classList.add("current");
      info.textContent = tip(el);
      count.textContent = describe(key, members.length + (key === null ? 0 : markFields(key)));
      reveal(el);
    } else {
      count.textContent = "";
      info.textContent = idle;
    }
    updateDimming();
  }

  // One query term: a coordinate name and a number; "row" also matches a cell's "rows" range.
  function matches(el, names, value) {
    for (const name of names) {
      for (const attr of [name, name + "s"]) {
        const v = el.getAttribute("data-" + attr);
        if (v === null) continue;
        const range = /^(\d+)-(\d+)$/.exec(v);
        if (range) return +range[1] <= value && value <= +range[2];
        return v === String(value);
      }
    }
    return false;
  }
  function fieldMatches(f, i, names, value) {
    for (const name of names) {
      const column = f.columns[name];
      if (column) return column[i] === value;
    }
    return false;
  }

  const ALIASES = { t: "thread", r: "reg", l: "lane", c: "col" };
  // "9,5" -> lane (or row) 9, col 5; "T6 r3" / "T6 r3.hi"; "byte 432", "row 40", "lane 72 col 3".
  function parse(text) {
    const q = text.trim().toLowerCase();
    if (!q) return null;
    const pair = /^\(?\s*(\d+)\s*,\s*(\d+)\s*\)?$/.exec(q);
    if (pair) return [[["lane", "row"], +pair[1]], [["col"], +pair[2]]];
    const terms = [];
    const token = /([a-z][a-z-]*)\s*[=:]?\s*(\d+)(?:\.(lo|hi))?[\s,;]*/y;
    while (token.lastIndex < q.length) {
      const m = token.exec(q);
      if (!m) return null;
      const name = ALIASES[m[1]] || m[1];
      terms.push([[name], +m[2]]);
      if (m[3]) {
        if (name !== "reg") return null;
        terms.push([["half"], m[3] === "lo" ? 0 : 1]);
      }
    }
    return terms;
  }

  function search() {
    clear("hit");
    const terms = parse(find.value);
    if (terms === null) {
      count.textContent = find.value.trim() ? "not understood; try " + find.placeholder.replace(/ · /g, ", ") : "";
      updateDimming();
      return;
    }
    const hits = cells.filter((el) => terms.every(([names, value]) => matches(el, names, value)));
    for (const el of hits) el.classList.add("hit");
    let total = hits.length;
    let first = hits.length ? { el: hits[0] } : null;
    for (const f of fields) {
      for (let i = 0; i < size(f); i++) {
        if (present(f, i) && terms.every(([names, value]) => fieldMatches(f, i, names, value))) f.hits.push(i);
      }
      paint(f);
      total += f.hits.length;
      if (!first && f.hits.length) first = { f, i: f.hits[0] };
    }
    count.textContent = total + (total === 1 ? " match" : " matches");
    if (first && first.f) {
      info.textContent = fieldTip(first.f, first.i);
      reveal(first.f.hitPath);
    } else if (first) {
      info.textContent = tip(first.el);
      reveal(first.el);
    }
    updateDimming();
  }

  function clearAll() {
    clear("hit");
    select(null);
  }

  // Where a target's center is, in the figure's points (every panel's SVG shares them).
  const fieldCenter = (f, i) => [f.d.x + ((i % f.d.cols) + 0.5) * f.cw, f.d.y + (Math.floor(i / f.d.cols) + 0.5) * f.ch];
  const centerOf = (t) => (t.f ? fieldCenter(t.f, t.i) : centers.get(t.el));
  // Within a field: the next present cell in that direction, or none at the edge.
  function step(f, i, dx, dy) {
    let col = i % f.d.cols;
    let row = Math.floor(i / f.d.cols);
    for (;;) {
      col += dx;
      row += dy;
      if (col < 0 || row < 0 || col >= f.d.cols || row >= f.d.rows) return null;
      const j = row * f.d.cols + col;
      if (present(f, j)) return { f, i: j };
    }
  }
  // Entering another field from (x0, y0): its first cell past that point in the direction, across
  // from it; none when the field lies behind.
  function entry(f, x0, y0, dx, dy) {
    const clamp = (v, n) => Math.min(n - 1, Math.max(0, v));
    let col = clamp(Math.floor((x0 - f.d.x) / f.cw), f.d.cols);
    let row = clamp(Math.floor((y0 - f.d.y) / f.ch), f.d.rows);
    const ahead = (pos, origin, size, n, d) => {
      const k = d > 0 ? Math.floor((pos - origin) / size - 0.5) + 1 : Math.ceil((pos - origin) / size - 0.5) - 1;
      return k >= 0 && k < n ? k : d > 0 && k < 0 ? 0 : d < 0 && k >= n ? n - 1 : null;
    };
    if (dx) col = ahead(x0, f.d.x, f.cw, f.d.cols, dx);
    if (dy) row = ahead(y0, f.d.y, f.ch, f.d.rows, dy);
    if (col === null || row === null) return null;
    const i = row * f.d.cols + col;
    return present(f, i) ? { f, i } : step(f, i, dx, dy);
  }
  // The nearest cell in a direction, box or field cell: mostly along it, a little across it.
  function neighbour(from, dx, dy) {
    const [x0, y0] = centerOf(from);
    const candidates = cells.filter((c) => c !== from.el).map((el) => ({ el }));
    for (const f of fields) {
      const next = from.f === f ? step(f, from.i, dx, dy) : entry(f, x0, y0, dx, dy);
      if (next) candidates.push(next);
    }
    let best = null;
    let bestScore = Infinity;
    for (const c of candidates) {
      const [x, y] = centerOf(c);
      const along = (x - x0) * dx + (y - y0) * dy;
      if (along <= 0.01) continue;
      const across = Math.abs((x - x0) * dy - (y - y0) * dx);
      const score = along + 4 * across;
      if (score < bestScore) {
        bestScore = score;
        best = c;
      }
    }
    return best;
  }
  function firstTarget() {
    const hit = document.querySelector("svg .cell.hit");
    if (hit) return { el: hit };
    for (const f of fields) if (f.hits.length) return { f, i: f.hits[0] };
    if (cells.length) return { el: cells[0] };
    for (const f of fields) for (let i = 0; i < size(f); i++) if (present(f, i)) return { f, i };
    return null;
  }

  const MOVES = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  const fieldOf = (event) => {
    const g = event.target.closest && event.target.closest(".field");
    return g ? fields.find((f) => f.g === g) : null;
  };

  figure.addEventListener("mouseover", (event) => {
    const el = event.target.closest(".box");
    if (el && tip(el)) info.textContent = tip(el);
  });
  figure.addEventListener("mousemove", (event) => {
    const f = fieldOf(event);
    if (!f) return;
    const i = cellAt(f, event);
    if (i >= 0) info.textContent = fieldTip(f, i);
  });
  figure.addEventListener("click", (event) => {
    const f = fieldOf(event);
    if (f) {
      const i = cellAt(f, event);
      if (i >= 0) select({ f, i });
      return;
    }
    const el = event.target.closest(".cell");
    if (el) select({ el });
  });
  if (find) find.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      search();
    } else if (event.key === "Escape") {
      event.preventDefault();
      find.value = "";
      clearAll();
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.target === find || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Escape") {
      clearAll();
      return;
    }
    const move = MOVES[event.key];
    if (!move) return;
    const start = current || firstTarget();
    if (!start) return;
    event.preventDefault();
    const next = current ? neighbour(current, move[0], move[1]) : start;
    if (next) select(next);
  });
})();
