// tmemviz interactive figure page: hover, select, search and keyboard moves over the figure's cells.
// Every .cell carries its coordinates as data-* attributes; a name ending in "s" (rows, lanes)
// holds an inclusive range "a-b". A cell's group is the cells that agree on every attribute its
// data-group names (space-separated, e.g. "warp thread"), or on data-thread when it has no data-group.
(() => {
  "use strict";
  const info = document.getElementById("info");
  const count = document.getElementById("count");
  const find = document.getElementById("find");
  const figure = document.getElementById("figure");
  const header = document.querySelector("header");
  const cells = Array.from(document.querySelectorAll("svg .cell"));
  const idle = info.textContent;
  let current = null;

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
    const any = document.querySelector("svg .selected, svg .hit") !== null;
    document.body.classList.toggle("dimming", any);
  }

  function clear(cls) {
    for (const el of Array.from(document.querySelectorAll("svg ." + cls))) el.classList.remove(cls);
  }

  function select(el) {
    clear("selected");
    clear("current");
    current = el;
    if (el) {
      const key = keys.get(el);
      const members = key === null ? [el] : cells.filter((c) => keys.get(c) === key);
      for (const c of members) c.classList.add("selected");
      el.classList.add("current");
      info.textContent = tip(el);
      const what = key === null ? "this cell" : key.replace(/^thread=/, "T").replace(/=/g, " ");
      count.textContent = what + ": " + members.length + (members.length === 1 ? " cell" : " cells") + " selected";
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
    count.textContent = hits.length + (hits.length === 1 ? " match" : " matches");
    if (hits.length) {
      info.textContent = tip(hits[0]);
      reveal(hits[0]);
    }
    updateDimming();
  }

  function clearAll() {
    clear("hit");
    select(null);
  }

  // The nearest cell in a direction: mostly along it, a little across it.
  function neighbour(el, dx, dy) {
    const [x0, y0] = centers.get(el);
    let best = null;
    let bestScore = Infinity;
    for (const c of cells) {
      if (c === el) continue;
      const [x, y] = centers.get(c);
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

  const MOVES = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

  figure.addEventListener("mouseover", (event) => {
    const el = event.target.closest(".box");
    if (el && tip(el)) info.textContent = tip(el);
  });
  figure.addEventListener("click", (event) => {
    const el = event.target.closest(".cell");
    if (el) select(el);
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
    if (!move || cells.length === 0) return;
    event.preventDefault();
    const start = current || document.querySelector("svg .cell.hit") || cells[0];
    const next = current ? neighbour(current, move[0], move[1]) : start;
    if (next) select(next);
  });
})();
