// draughts-tb explorer: board editor, probe calls, move list, history.
"use strict";

const SQ = 50; // pixels per board cell
const board = document.getElementById("board");
const fenInput = document.getElementById("fen");
const sideSelect = document.getElementById("side");
const pliesInput = document.getElementById("plies");
const kingsOnlyInput = document.getElementById("kings-only");
const verdict = document.getElementById("verdict");
const moveList = document.getElementById("moves");
const numbers = document.getElementById("numbers");

// pieces[s] for s in 1..50: "" | "w" | "W" | "b" | "B" (upper case = king).
let pieces = new Array(51).fill("");
let history = [];
let historyAt = -1;
let lastMoves = [];

function squareXY(s) {
  const r = Math.floor((s - 1) / 5);
  const k = (s - 1) % 5;
  const c = r % 2 === 0 ? 2 * k + 1 : 2 * k;
  return [c * SQ, r * SQ];
}

function squareCenter(s) {
  const [x, y] = squareXY(s);
  return [x + SQ / 2, y + SQ / 2];
}

function toFen() {
  const list = (lower, upper) => {
    const out = [];
    for (let s = 1; s <= 50; s++) {
      if (pieces[s] === lower) out.push(String(s));
      if (pieces[s] === upper) out.push("K" + s);
    }
    return out.join(",");
  };
  return `${sideSelect.value}:W${list("w", "W")}:B${list("b", "B")}`;
}

// Reads a FEN into the board; returns false when it cannot be read here
// (the server gives the precise error).
function fromFen(text) {
  const m = text.trim().toUpperCase().replace(/\s+/g, "").replace(/\.$/, "").split(":");
  if (m.length !== 3 || !/^[WB]$/.test(m[0])) return false;
  const next = new Array(51).fill("");
  for (const list of m.slice(1)) {
    const colour = list[0];
    if (colour !== "W" && colour !== "B") return false;
    for (const item of list.slice(1).split(",").filter((x) => x.length)) {
      const king = item.startsWith("K");
      const body = king ? item.slice(1) : item;
      const [a, b] = body.split("-").map(Number);
      const hi = b === undefined ? a : b;
      if (!(a >= 1 && hi <= 50 && a <= hi)) return false;
      for (let s = a; s <= hi; s++) {
        const c = colour === "W" ? "w" : "b";
        next[s] = king ? c.toUpperCase() : c;
      }
    }
  }
  pieces = next;
  sideSelect.value = m[0];
  return true;
}

function svg(tag, attrs, text) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

function draw() {
  board.replaceChildren();
  for (let r = 0; r < 10; r++) {
    for (let c = 0; c < 10; c++) {
      const dark = (r + c) % 2 === 1;
      board.appendChild(svg("rect", { x: c * SQ, y: r * SQ, width: SQ, height: SQ, class: dark ? "dark" : "light" }));
    }
  }
  for (let s = 1; s <= 50; s++) {
    const [x, y] = squareXY(s);
    const hit = svg("rect", { x, y, width: SQ, height: SQ, fill: "transparent", "data-square": s });
    hit.addEventListener("click", () => cycle(s));
    board.appendChild(hit);
    if (numbers.checked) board.appendChild(svg("text", { x: x + 3, y: y + 12, class: "num" }, String(s)));
    const p = pieces[s];
    if (!p) continue;
    const [cx, cy] = squareCenter(s);
    const white = p.toLowerCase() === "w";
    board.appendChild(svg("circle", { cx, cy, r: 19, class: white ? "piece-white" : "piece-black", "pointer-events": "none" }));
    if (p === "W" || p === "B") {
      board.appendChild(svg("text", { x: cx, y: cy, class: "crown " + (white ? "crown-white" : "crown-black") }, "K"));
    }
  }
  for (const m of lastMoves) {
    const [x1, y1] = squareCenter(m.from);
    const [x2, y2] = squareCenter(m.to);
    if (m.from === m.to) {
      board.appendChild(svg("circle", { cx: x1, cy: y1, r: 23, class: "arrow " + m.result, fill: "none" }));
    } else {
      board.appendChild(svg("line", { x1, y1, x2, y2, class: "arrow " + m.result }));
      board.appendChild(svg("circle", { cx: x2, cy: y2, r: 6, class: "arrow " + m.result, fill: "currentColor" }));
    }
  }
}

const CYCLE = ["", "w", "W", "b", "B"];
function cycle(s) {
  let i = CYCLE.indexOf(pieces[s]);
  for (;;) {
    i = (i + 1) % CYCLE.length;
    const p = CYCLE[i];
    if (p === "w" && s <= 5) continue; // a white man would be crowned
    if (p === "b" && s >= 46) continue; // a black man would be crowned
    break;
  }
  pieces[s] = CYCLE[i];
  show(toFen(), true);
}

function pliesText(n) {
  return `${n} ${n === 1 ? "ply" : "plies"}`;
}

// The result and each distance that applies, named by what it counts (the
// server's fields: dtc, counted_threshold, lone_king_plies).
function describe(result, d) {
  if (result === "draw") return "draw";
  const parts = [result];
  if (d.counted_threshold !== null && d.counted_threshold !== undefined) {
    parts.push(`if at least ${d.counted_threshold === 1 ? "1 ply is" : d.counted_threshold + " plies are"} left on the count`);
  }
  if (d.lone_king_plies !== null && d.lone_king_plies !== undefined) {
    parts.push(`lone-king ending left or game over in ${pliesText(d.lone_king_plies)}`);
  }
  if (d.dtc !== null && d.dtc !== undefined) {
    parts.push(`converts in ${pliesText(d.dtc)}`);
  }
  return parts.join(", ");
}

async function probe() {
  const fen = toFen();
  fenInput.value = fen;
  const params = new URLSearchParams({ fen });
  if (pliesInput.value !== "") params.set("plies_left", pliesInput.value);
  if (kingsOnlyInput.value !== "" && kingsOnlyInput.value !== "0") {
    params.set("kings_only_plies", kingsOnlyInput.value);
  }
  window.history.replaceState(null, "", "/?" + params.toString());
  let data;
  try {
    const res = await fetch("/api/probe?" + params.toString());
    data = await res.json();
    if (!res.ok) throw new Error(data.error || res.statusText);
  } catch (err) {
    verdict.dataset.result = "error";
    verdict.textContent = String(err.message || err);
    moveList.replaceChildren();
    lastMoves = [];
    draw();
    return;
  }
  const side = fen[0] === "W" ? "White" : "Black";
  verdict.dataset.result = data.result;
  verdict.textContent = `${side} to move: ${describe(data.result, data)}`;
  const line = document.getElementById("line");
  if (data.line_pdn) {
    line.textContent = `Line, game ends in ${pliesText(data.game_plies)}: ${data.line_pdn}`;
  } else if (data.result !== "draw" && !data.dtc_available) {
    line.textContent = "No DTC files here (dtb gen --dtc adds them and the winning line).";
  } else {
    line.textContent = "";
  }
  lastMoves = data.moves;
  moveList.replaceChildren();
  for (const m of data.moves) {
    const li = document.createElement("li");
    li.className = "move " + m.result;
    li.dataset.result = m.result;
    li.textContent = `${m.move}  ${describe(m.result, m)}`;
    li.addEventListener("click", () => play(m));
    moveList.appendChild(li);
  }
  draw();
}

// The counts after a move come from the server (the one rule for how a
// move passes each count on); empty where no count runs.
function play(m) {
  const after = m.plies_left_after;
  pliesInput.value = after === null || after === undefined ? "" : String(after);
  const kings = m.kings_only_plies_after;
  kingsOnlyInput.value = kings === null || kings === undefined || kings === 0 ? "" : String(kings);
  show(m.after, true);
}

// Shows `fen`; `record` adds it to the line played (dropping what was
// ahead of the current place).
function show(fen, record) {
  if (!fromFen(fen)) {
    verdict.dataset.result = "error";
    verdict.textContent = "cannot read FEN " + JSON.stringify(fen);
    return;
  }
  if (record) {
    history = history.slice(0, historyAt + 1);
    history.push({ fen: toFen(), plies: pliesInput.value, kingsOnly: kingsOnlyInput.value });
    historyAt = history.length - 1;
  }
  probe();
}

function step(delta) {
  const at = historyAt + delta;
  if (at < 0 || at >= history.length) return;
  historyAt = at;
  pliesInput.value = history[at].plies;
  kingsOnlyInput.value = history[at].kingsOnly;
  show(history[at].fen, false);
}

document.getElementById("back").addEventListener("click", () => step(-1));
document.getElementById("forward").addEventListener("click", () => step(1));
document.getElementById("clear").addEventListener("click", () => {
  pieces = new Array(51).fill("");
  show(toFen(), true);
});
document.getElementById("set-fen").addEventListener("click", () => show(fenInput.value, true));
fenInput.addEventListener("keydown", (e) => { if (e.key === "Enter") show(fenInput.value, true); });
document.getElementById("copy-fen").addEventListener("click", () => {
  if (navigator.clipboard) navigator.clipboard.writeText(fenInput.value);
  fenInput.select();
});
sideSelect.addEventListener("change", () => show(toFen(), true));
pliesInput.addEventListener("change", () => probe());
kingsOnlyInput.addEventListener("change", () => probe());
numbers.addEventListener("change", draw);

const start = new URLSearchParams(window.location.search);
if (start.get("plies_left")) pliesInput.value = start.get("plies_left");
if (start.get("kings_only_plies")) kingsOnlyInput.value = start.get("kings_only_plies");
show(start.get("fen") || "W:WK46,K47,28:BK5", true);
