"use strict";
// gamerec html viewer: draws the board of the current node, the move list
// with variations, comments, NAGs, clock and evaluation graphs.
(function () {
  const games = JSON.parse(document.getElementById("games-data").textContent);
  const $ = (id) => document.getElementById(id);
  const SVGNS = "http://www.w3.org/2000/svg";
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const state = { game: 0, node: 0, flipped: false };
  const FILES = "abcdefgh";
  const ROLE = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };
  const MARK_FILL = { red: "#e0282880", green: "#15a01b80", yellow: "#f0c00099", blue: "#1a5fd080" };
  const ARROW_FILL = { red: "#c02020", green: "#15781b", yellow: "#e68f00", blue: "#003088" };

  function game() { return games[state.game]; }

  // ---- chess board -------------------------------------------------------
  function placement(fen) {
    const squares = {};
    const rows = fen.split(" ")[0].split("/");
    for (let r = 0; r < 8 && r < rows.length; r++) {
      let f = 0;
      for (const ch of rows[r]) {
        if (ch >= "1" && ch <= "8") { f += Number(ch); continue; }
        if (f < 8) squares[FILES[f] + (8 - r)] = ch;
        f++;
      }
    }
    return squares;
  }
  function chessBoard(node) {
    const S = 45, M = 20, full = 8 * S + 2 * M, flip = state.flipped;
    const origin = (sq) => {
      const f = FILES.indexOf(sq[0]), r = Number(sq[1]) - 1;
      return flip ? [M + (7 - f) * S, M + r * S] : [M + f * S, M + (7 - r) * S];
    };
    const last = node.lm || [];
    let s = `<svg xmlns="${SVGNS}" class="chessboard${flip ? " flipped" : ""}" viewBox="0 0 ${full} ${full}">`;
    s += `<defs><radialGradient id="check-gradient" r="0.5"><stop offset="0%" stop-color="#ff0000"/><stop offset="50%" stop-color="#e70000"/><stop offset="100%" stop-color="#9e0000" stop-opacity="0"/></radialGradient></defs>`;
    s += `<rect class="margin" width="${full}" height="${full}" fill="#262421"/>`;
    for (let r = 1; r <= 8; r++) for (let f = 0; f < 8; f++) {
      const sq = FILES[f] + r, light = (f + r) % 2 === 0, lm = last.includes(sq);
      const [x, y] = origin(sq);
      const fill = lm ? (light ? "#cdd26a" : "#aaa23a") : (light ? "#f0d9b5" : "#b58863");
      s += `<rect class="square ${light ? "light" : "dark"}${lm ? " lastmove" : ""}" data-square="${sq}" x="${x}" y="${y}" width="${S}" height="${S}" fill="${fill}"/>`;
    }
    for (const [sq, color] of node.csl || []) {
      const [x, y] = origin(sq);
      s += `<rect class="mark ${color}" data-square="${sq}" x="${x}" y="${y}" width="${S}" height="${S}" fill="${MARK_FILL[color]}"/>`;
    }
    if (node.ck) {
      const [x, y] = origin(node.ck);
      s += `<rect class="check" data-square="${node.ck}" x="${x}" y="${y}" width="${S}" height="${S}" fill="url(#check-gradient)"/>`;
    }
    for (let i = 0; i < 8; i++) {
      const [fx] = origin(FILES[i] + "1"), [, ry] = origin("a" + (i + 1));
      s += `<text class="coord file" x="${fx + S / 2}" y="${full - 5.5}" font-size="13" font-weight="bold" text-anchor="middle" fill="#e8e6e3">${FILES[i]}</text>`;
      s += `<text class="coord rank" x="${M / 2}" y="${ry + S / 2 + 4.5}" font-size="13" font-weight="bold" text-anchor="middle" fill="#e8e6e3">${i + 1}</text>`;
    }
    const pieces = placement(node.b);
    for (const sq of Object.keys(pieces).sort()) {
      const ch = pieces[sq], white = ch === ch.toUpperCase();
      const id = `${white ? "white" : "black"}-${ROLE[ch.toLowerCase()]}`;
      const [x, y] = origin(sq);
      s += `<use class="piece ${id.replace("-", " ")}" data-square="${sq}" data-piece="${ch}" href="#${id}" transform="translate(${x}, ${y})"/>`;
    }
    for (const [from, to, color] of node.cal || []) {
      const [x1, y1] = origin(from).map((v) => v + S / 2), [x2, y2] = origin(to).map((v) => v + S / 2);
      const fill = ARROW_FILL[color];
      s += `<g class="arrow ${color}" data-from="${from}" data-to="${to}" fill="${fill}" stroke="${fill}" opacity="0.8">`;
      const dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy);
      if (len < 1) {
        s += `<circle cx="${x1}" cy="${y1}" r="${S / 2 - 3}" fill="none" stroke-width="4"/>`;
      } else {
        const ux = dx / len, uy = dy / len, hl = S * 0.45, hh = S * 0.28;
        const tx = x2 - ux * S * 0.1, ty = y2 - uy * S * 0.1, bx = tx - ux * hl, by = ty - uy * hl;
        s += `<line x1="${x1 + ux * S * 0.2}" y1="${y1 + uy * S * 0.2}" x2="${bx + ux * 0.5}" y2="${by + uy * 0.5}" stroke-width="${S * 0.2}"/>`;
        s += `<polygon stroke="none" points="${tx},${ty} ${bx - uy * hh},${by + ux * hh} ${bx + uy * hh},${by - ux * hh}"/>`;
      }
      s += "</g>";
    }
    return s + "</svg>";
  }

  // ---- Go / Othello board ------------------------------------------------
  function goLabel(x, w, othello) {
    if (othello) return String.fromCharCode(97 + x);
    if (w <= 25) { let c = 65 + x; if (c >= 73) c++; return String.fromCharCode(c); }
    return x < 26 ? String.fromCharCode(97 + x) : String.fromCharCode(65 + x - 26);
  }
  // As diagram::star_points: corners from 7 lines, centre from 9, sides from 15 (odd boards).
  function stars(w, h) {
    const min = Math.min(w, h);
    if (min < 7 || w > 52 || h > 52) return [];
    const e = min < 13 ? 2 : 3, odd = w % 2 === 1 && h % 2 === 1;
    const line = (n) => { const v = [[e, false], [n - 1 - e, false]]; if (n % 2 === 1) v.push([(n - 1) / 2, true]); return v; };
    const out = [];
    for (const [y, my] of line(h)) for (const [x, mx] of line(w)) {
      if ((!mx && !my) || (mx && my ? odd && min >= 9 : odd && min >= 15)) out.push([x, y]);
    }
    return out;
  }
  function goBoard(node, g) {
    const C = 24, M = C, w = g.w, h = g.h, othello = g.kind === "othello";
    const W = w * C + 2 * M, H = h * C + 2 * M;
    const cx = (x) => M + (x + 0.5) * C, cy = (y) => M + (y + 0.5) * C;
    const at = (x, y) => node.b[y * w + x];
    const line = othello ? "#0d3b22" : "#3b2a10";
    let s = `<svg xmlns="${SVGNS}" class="${othello ? "othello-board" : "go-board"}" viewBox="0 0 ${W} ${H}">`;
    s += `<rect class="background" width="${W}" height="${H}" fill="${othello ? "#2e7d4f" : "#dcb35c"}"/><g class="grid" stroke="${line}" stroke-width="1">`;
    if (othello) {
      for (let i = 0; i <= w; i++) s += `<line x1="${M + i * C}" y1="${M}" x2="${M + i * C}" y2="${M + h * C}"/>`;
      for (let j = 0; j <= h; j++) s += `<line x1="${M}" y1="${M + j * C}" x2="${M + w * C}" y2="${M + j * C}"/>`;
    } else {
      for (let i = 0; i < w; i++) s += `<line x1="${cx(i)}" y1="${cy(0)}" x2="${cx(i)}" y2="${cy(h - 1)}"/>`;
      for (let j = 0; j < h; j++) s += `<line x1="${cx(0)}" y1="${cy(j)}" x2="${cx(w - 1)}" y2="${cy(j)}"/>`;
    }
    s += "</g>";
    if (!othello) for (const [x, y] of stars(w, h)) s += `<circle class="star" cx="${cx(x)}" cy="${cy(y)}" r="2.6" fill="${line}"/>`;
    const tc = othello ? "#e8f5e9" : "#3b2a10";
    for (let x = 0; x < w; x++) {
      const l = goLabel(x, w, othello);
      s += `<text class="coord column" x="${cx(x)}" y="${M / 2 + 3.5}" font-size="10" text-anchor="middle" fill="${tc}">${l}</text>`;
      s += `<text class="coord column" x="${cx(x)}" y="${H - M / 2 + 3.5}" font-size="10" text-anchor="middle" fill="${tc}">${l}</text>`;
    }
    for (let y = 0; y < h; y++) {
      const l = othello ? y + 1 : h - y;
      s += `<text class="coord row" x="${M / 2}" y="${cy(y) + 3.5}" font-size="10" text-anchor="middle" fill="${tc}">${l}</text>`;
      s += `<text class="coord row" x="${W - M / 2}" y="${cy(y) + 3.5}" font-size="10" text-anchor="middle" fill="${tc}">${l}</text>`;
    }
    const pt = (x, y) => String.fromCharCode(x < 26 ? 97 + x : 39 + x) + String.fromCharCode(y < 26 ? 97 + y : 39 + y);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      const c = at(x, y);
      if (c === "B" || c === "W") {
        s += `<circle class="stone ${c === "B" ? "black" : "white"}" data-point="${pt(x, y)}" cx="${cx(x)}" cy="${cy(y)}" r="${C * 0.47}" fill="${c === "B" ? "#111" : "#f8f8f8"}" stroke="${c === "B" ? "#000" : "#222"}"/>`;
      }
    }
    const ink = (x, y) => (at(x, y) === "B" || (othello && at(x, y) === ".") ? "#fff" : "#000");
    if (node.lm) {
      const [x, y] = node.lm;
      s += othello
        ? `<circle class="last-move" data-point="${pt(x, y)}" cx="${cx(x)}" cy="${cy(y)}" r="${C * 0.24}" fill="none" stroke="#e53935" stroke-width="2"/>`
        : `<circle class="last-move" data-point="${pt(x, y)}" cx="${cx(x)}" cy="${cy(y)}" r="${C * 0.14}" fill="${ink(x, y)}"/>`;
    }
    const r = C * 0.3;
    for (const [key, kind] of [["tr", "triangle"], ["cr", "circle"], ["sq", "square"], ["ma", "cross"]]) {
      for (const [x, y] of node[key] || []) {
        if (x >= w || y >= h) continue;
        const X = cx(x), Y = cy(y);
        s += `<g class="mark ${kind}" data-point="${pt(x, y)}" fill="none" stroke="${ink(x, y)}" stroke-width="1.8">`;
        if (kind === "triangle") s += `<polygon points="${X},${Y - r} ${X - r * 0.87},${Y + r * 0.5} ${X + r * 0.87},${Y + r * 0.5}"/>`;
        else if (kind === "circle") s += `<circle cx="${X}" cy="${Y}" r="${r * 0.8}"/>`;
        else if (kind === "square") s += `<rect x="${X - r * 0.7}" y="${Y - r * 0.7}" width="${r * 1.4}" height="${r * 1.4}"/>`;
        else s += `<path d="M${X - r * 0.7} ${Y - r * 0.7}L${X + r * 0.7} ${Y + r * 0.7}M${X + r * 0.7} ${Y - r * 0.7}L${X - r * 0.7} ${Y + r * 0.7}"/>`;
        s += "</g>";
      }
    }
    for (const [x, y, text] of node.lb || []) {
      if (x >= w || y >= h) continue;
      if (!othello && at(x, y) === ".") s += `<circle class="label-ground" cx="${cx(x)}" cy="${cy(y)}" r="${C * 0.4}" fill="#dcb35c"/>`;
      s += `<text class="label" data-point="${pt(x, y)}" x="${cx(x)}" y="${cy(y) + 4.3}" font-size="12" font-weight="bold" text-anchor="middle" fill="${ink(x, y)}">${esc(text)}</text>`;
    }
    return s + "</svg>";
  }

  // ---- move list ---------------------------------------------------------
  function moveLabel(g, i, needNumber) {
    const n = g.nodes[i];
    if (g.kind !== "chess") return `<span class="num">${n.no}.</span>`;
    if (n.wm) return `<span class="num">${n.no}.</span>`;
    return needNumber ? `<span class="num">${n.no}…</span>` : "";
  }
  function buildMoves() {
    const g = game(), el = $("moves");
    // Each line is written iteratively; variations nest (depth-limited).
    function line(start, depth) {
      let html = "", i = start, needNumber = true;
      while (i !== undefined) {
        const n = g.nodes[i];
        if (n.pre) { html += `<span class="cm">${esc(n.pre)}</span>`; needNumber = true; }
        html += moveLabel(g, i, needNumber);
        html += `<span class="move" data-node="${i}">${esc(n.s || "")}${n.nag ? `<span class="nag">${esc(n.nag)}</span>` : ""}</span> `;
        needNumber = false;
        if (n.post) { html += `<span class="cm">${esc(n.post)}</span> `; needNumber = true; }
        const parent = g.nodes[n.p];
        if (parent && parent.k[0] === i && parent.k.length > 1) {
          for (const v of parent.k.slice(1)) {
            html += depth < 60
              ? `<span class="variation depth${Math.min(depth + 1, 3)}">(${line(v, depth + 1)})</span> `
              : "";
          }
          needNumber = true;
        }
        i = n.k[0];
      }
      return html;
    }
    const root = g.nodes[0];
    let html = root.post ? `<span class="cm">${esc(root.post)}</span> ` : "";
    html += root.pre ? `<span class="cm">${esc(root.pre)}</span> ` : "";
    html += `<span class="main">${root.k.length ? line(root.k[0], 0) : ""}</span>`;
    if (g.result) html += `<span class="result">${esc(g.result)}</span>`;
    el.innerHTML = html;
    el.querySelectorAll(".move").forEach((m) => m.addEventListener("click", () => go(Number(m.dataset.node))));
  }

  // ---- graphs ------------------------------------------------------------
  function niceStep(raw, steps) {
    for (const s of steps) if (s >= raw) return s;
    return steps[steps.length - 1];
  }
  function decimalSteps() {
    const out = [];
    for (let e = -2; e <= 6; e++) for (const m of [1, 2, 5]) out.push(m * Math.pow(10, e));
    return out;
  }
  const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400];
  function clockText(s) {
    s = Math.round(s);
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    return h ? `${h}:${String(m).padStart(2, "0")}:${String(sec).padStart(2, "0")}` : `${m}:${String(sec).padStart(2, "0")}`;
  }
  function mainline(g) {
    const out = [];
    let i = g.nodes[0].k[0];
    while (i !== undefined) { out.push(i); i = g.nodes[i].k[0]; }
    return out;
  }
  // A line chart: series of [ply, value]; ticks at round values.
  function chart(id, title, series, yMin, yMax, step, fmt, zeroLine) {
    const W = 420, H = 180, L = 54, R = 10, T = 26, B = 28;
    const line = mainline(game()), n = Math.max(line.length, 1);
    const X = (ply) => L + ((ply - 1) / Math.max(n - 1, 1)) * (W - L - R);
    const Y = (v) => T + (1 - (Math.min(Math.max(v, yMin), yMax) - yMin) / (yMax - yMin)) * (H - T - B);
    let s = `<svg xmlns="${SVGNS}" id="${id}" class="chart" viewBox="0 0 ${W} ${H}"><text x="${L}" y="14" font-size="15" font-weight="bold">${title}</text>`;
    for (let v = yMin; v <= yMax + step / 1000; v += step) {
      const y = Y(v);
      s += `<line class="grid" x1="${L}" x2="${W - R}" y1="${y}" y2="${y}" stroke="${zeroLine && Math.abs(v) < step / 1000 ? "#888" : "#e4e4e4"}"/>`;
      s += `<text class="tick y" x="${L - 6}" y="${y + 4}" font-size="14" text-anchor="end">${fmt(v)}</text>`;
    }
    const xStep = niceStep(n / 8, decimalSteps().filter((v) => v >= 1));
    for (let m = xStep; m <= Math.ceil(n / 2); m += xStep) {
      const x = X(2 * m - 1);
      s += `<line x1="${x}" x2="${x}" y1="${H - B}" y2="${H - B + 4}" stroke="#888"/><text class="tick x" x="${x}" y="${H - 8}" font-size="14" text-anchor="middle">${m}</text>`;
    }
    for (const [name, color, pts] of series) {
      if (!pts.length) continue;
      s += `<polyline class="series ${name}" fill="none" stroke="${color}" stroke-width="2" points="${pts.map(([p, v]) => `${X(p).toFixed(1)},${Y(v).toFixed(1)}`).join(" ")}"/>`;
    }
    s += `<line id="${id}-cursor" class="cursor" x1="0" x2="0" y1="${T}" y2="${H - B}" stroke="#3a6ea5" stroke-width="2" visibility="hidden"/>`;
    s += "</svg>";
    return { svg: s, X, n, line };
  }
  function buildGraphs() {
    const g = game(), el = $("graphs");
    el.innerHTML = "";
    if (g.kind !== "chess") return;
    const line = mainline(g);
    const evals = [], white = [], black = [];
    line.forEach((i, k) => {
      const n = g.nodes[i];
      if (n.evc !== undefined) evals.push([k + 1, n.evc / 100]);
      if (n.clk !== undefined) (n.wm ? white : black).push([k + 1, n.clk]);
    });
    const charts = [];
    if (evals.length) {
      const most = Math.min(10, Math.max(1, ...evals.map(([, v]) => Math.abs(v))));
      const step = niceStep(most / 2, [0.5, 1, 2, 5]);
      const top = Math.ceil(most / step) * step;
      charts.push(chart("eval-graph", "Evaluation (pawns, White's view)", [["eval", "#333", evals]], -top, top, step, (v) => (v > 0 ? "+" : "") + Number(v.toFixed(2)), true));
    }
    if (white.length || black.length) {
      const most = Math.max(1, ...white.concat(black).map(([, v]) => v));
      const step = niceStep(most / 4, TIME_STEPS);
      charts.push(chart("clock-graph", "Clock after the move", [["white", "#c9a227", white], ["black", "#333", black]], 0, Math.ceil(most / step) * step, step, clockText, false));
    }
    for (const c of charts) {
      el.insertAdjacentHTML("beforeend", c.svg);
      const svg = el.lastElementChild;
      svg.addEventListener("click", (ev) => {
        const box = svg.getBoundingClientRect();
        const x = ((ev.clientX - box.left) / box.width) * 420;
        let best = 0, bestD = Infinity;
        c.line.forEach((id, k) => { const d = Math.abs(c.X(k + 1) - x); if (d < bestD) { bestD = d; best = id; } });
        go(best);
      });
      svg.chartX = c.X;
    }
  }

  // ---- state -------------------------------------------------------------
  function loadGame(i) {
    state.game = Math.max(0, Math.min(games.length - 1, i));
    const g = game();
    $("board").className = g.kind;
    $("players").textContent = g.title + (g.result ? "  " + g.result : "");
    document.title = g.title;
    const tags = $("tags");
    tags.innerHTML = g.tags.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join("");
    document.querySelectorAll("#game-list li").forEach((li, k) => {
      li.classList.toggle("current", k === state.game);
      if (k === state.game) li.scrollIntoView({ block: "nearest" });
    });
    buildMoves();
    buildGraphs();
    go(0);
  }
  function go(i) {
    const g = game();
    if (i < 0 || i >= g.nodes.length) return;
    state.node = i;
    const n = g.nodes[i];
    $("board").innerHTML = g.kind === "chess" ? chessBoard(n) : goBoard(n, g);
    $("board").dataset.node = String(i);
    $("board").dataset.game = String(state.game);
    document.querySelectorAll("#moves .move.current").forEach((m) => m.classList.remove("current"));
    const cur = document.querySelector(`#moves .move[data-node="${i}"]`);
    if (cur) {
      cur.classList.add("current");
      const box = $("moves");
      if (cur.offsetTop < box.scrollTop || cur.offsetTop > box.scrollTop + box.clientHeight - 30) box.scrollTop = cur.offsetTop - box.clientHeight / 3;
    }
    const parts = [];
    if (n.pre) parts.push(n.pre);
    if (n.post) parts.push(n.post);
    $("comment").textContent = parts.join(" — ");
    let status = i === 0 ? "start" : (g.kind === "chess" ? `${n.no}${n.wm ? "." : "…"} ${n.s}` : `${n.no}. ${n.s}`);
    if (n.ev) status += `   eval ${n.ev}`;
    if (n.clk !== undefined) status += `   clock ${clockText(n.clk)}`;
    $("status").textContent = status;
    const line = mainline(g), k = line.indexOf(i);
    document.querySelectorAll("#graphs svg").forEach((svg) => {
      const cursor = svg.querySelector(".cursor");
      if (k < 0) { cursor.setAttribute("visibility", "hidden"); return; }
      const x = svg.chartX(k + 1);
      cursor.setAttribute("x1", x); cursor.setAttribute("x2", x); cursor.setAttribute("visibility", "visible");
    });
  }
  function sibling(delta) {
    const g = game(), n = g.nodes[state.node];
    if (n.p < 0) return;
    const sibs = g.nodes[n.p].k, j = sibs.indexOf(state.node) + delta;
    if (j >= 0 && j < sibs.length) go(sibs[j]);
  }
  function key(name) {
    const g = game(), n = g.nodes[state.node];
    if (name === "ArrowRight" && n.k.length) go(n.k[0]);
    else if (name === "ArrowLeft" && n.p >= 0) go(n.p);
    else if (name === "Home") go(0);
    else if (name === "End") { let i = state.node; while (g.nodes[i].k.length) i = g.nodes[i].k[0]; go(i); }
    else if (name === "ArrowDown") sibling(1);
    else if (name === "ArrowUp") sibling(-1);
    else if (name === "f" || name === "F") { state.flipped = !state.flipped; go(state.node); }
    else return false;
    return true;
  }
  document.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (key(ev.key)) ev.preventDefault();
  });
  $("first").onclick = () => key("Home");
  $("prev").onclick = () => key("ArrowLeft");
  $("next").onclick = () => key("ArrowRight");
  $("last").onclick = () => key("End");
  $("flip").onclick = () => key("f");
  if (games.length > 1) {
    $("games").hidden = false;
    $("game-list").innerHTML = games.map((g) => `<li>${esc(g.title)}${g.result ? ` <small>${esc(g.result)}</small>` : ""}</li>`).join("");
    document.querySelectorAll("#game-list li").forEach((li, k) => li.addEventListener("click", () => loadGame(k)));
  }
  $("subtitle").textContent = games.length === 1 ? "" : `${games.length} games`;
  // #game=N&node=M&keys=ArrowRight,End: open a game and node, then press keys.
  const params = new URLSearchParams(location.hash.slice(1));
  if (games.length) {
    loadGame(Number(params.get("game") || 1) - 1);
    if (params.get("node")) go(Number(params.get("node")));
    for (const k of (params.get("keys") || "").split(",").filter(Boolean)) {
      document.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
    }
  } else {
    $("players").textContent = "No games.";
  }
})();
