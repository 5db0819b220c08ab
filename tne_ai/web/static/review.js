// tne-ai serve: the review page. Upload a full game record; the server reviews
// every decision in its process pool (the page polls the progress), then this
// page steps through the game: the board of each ply (drawn by the server on
// demand), the decision played against the engine's best, and a value chart.
// Plies count as `tne-ai review` and `--ply N` do: ply p is the position after
// p decisions, and the decision of ply p is the one made there (the p+1-th).
"use strict";
const SEAT_COLOURS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7"];
let doc = null, ply = 0, byPly = {}, boards = {};

const pct = (v) => (100 * v).toFixed(1) + "%";

$("reviewform").onsubmit = async (ev) => {
  ev.preventDefault();
  const file = $("reviewfile").files[0];
  if (!file) { say("Choose a game record file first."); return; }
  const f = ev.target, q = new URLSearchParams();
  if (f.seats.value) q.set("seats", f.seats.value);
  q.set("iterations", parseInt(f.iterations.value, 10) || 300);
  say("Uploading…");
  const r = await fetch("/api/review?" + q, {method: "POST", body: file});
  const out = await r.json();
  if (!r.ok) { say(out.error); return; }
  history.replaceState(null, "", "/review?id=" + encodeURIComponent(out.review));
  poll(out.review);
};

async function poll(id) {
  for (;;) {
    const r = await fetch("/api/review/" + encodeURIComponent(id));
    const out = await r.json();
    if (!r.ok) { say(out.error); return; }
    if (out.status === "error") { say(out.error); return; }
    if (out.status === "done") { say(""); start(out); return; }
    if (out.queued) say("Waiting for a free review slot (other reviews are being searched)…");
    else say("Reviewing… " + out.done + " of " + out.total + " decisions searched (" + out.iterations + " iterations each)");
    await new Promise((res) => setTimeout(res, 500));
  }
}

function start(d) {
  doc = d; byPly = {}; boards = {};
  for (const x of d.decisions) byPly[x.ply] = x;
  $("reviewmain").hidden = false;
  drawChart(); listMistakes(); go(0);
  learnSetup();
}

async function go(n) {
  if (!doc) return;
  ply = Math.max(0, Math.min(doc.plies, n));
  const shown = ply;
  $("plyno").textContent = "ply " + ply + " / " + doc.plies;
  renderDecision();
  markChart();
  if (!(shown in boards)) {
    const r = await fetch("/api/review/" + encodeURIComponent(doc.review) + "/board/" + shown);
    boards[shown] = r.ok ? await r.text() : "<p>" + r.status + "</p>";
  }
  if (shown === ply) $("board").innerHTML = boards[shown];     // the server's SVG (engine/svg.py): no scripts
}

// the decision of this ply: the one made from the position shown
function renderDecision() {
  const box = $("decision");
  box.replaceChildren();
  renderBestNote();
  if (ply === doc.plies) { box.append(el("p", {}, "The end of the record: " + doc.plies + " decisions.")); return; }
  const move = doc.moves[ply], d = byPly[ply];
  box.append(el("p", {"class": "played"}, "ply " + ply + ": seat " + move.seat + " played " + move.move + " from here"));
  if (!d) { box.append(el("p", {}, "(not reviewed: seat " + move.seat + " was not asked)")); return; }
  const t = el("table", {"class": "facts"});
  const row = (k, v, cls) => { const tr = el("tr", cls ? {"class": cls} : {}); tr.append(el("th", {}, k), el("td", {}, v)); t.append(tr); };
  row("engine's best", d.best + " (wins " + pct(d.best_win) + " of games from there)");
  row("played", d.played + " (wins " + pct(d.played_win) + ")");
  const equal = d.played !== d.best && d.equally_good.includes(d.played);
  row("loss", pct(d.loss) + " of win chance", d.mark ? "mark " + d.mark : "");
  if (d.accuracy !== null) row("accuracy", d.accuracy.toFixed(1) + "%");
  row("mark", d.mark || (d.played === d.best ? "agrees with the engine" : equal ? "as good as the engine's best" : "—"),
      d.mark ? "mark " + d.mark : "");
  if (d.equally_good.length > 1)
    row("equally good", d.equally_good.join(", ") + " (the search cannot tell them apart: their ranges overlap)");
  box.append(t);
}

// above the board: what its marks are, the decision played from it (ringed) and the engine's best instead (the
// server draws it as a dashed square, GET .../board/N)
function renderBestNote() {
  const note = $("bestnote");
  note.replaceChildren();
  if (ply === doc.plies) return;
  const move = doc.moves[ply], d = byPly[ply];
  note.append(el("span", {"class": "ring played"}), " played from here: " + move.move);
  if (!d) return;
  if (d.best === d.played) { note.append(" — the engine's best too"); return; }
  if (d.equally_good.includes(d.played)) { note.append(" — as good as the engine's best, " + d.best + ", as far as the search can tell"); return; }
  const named = el("strong", {"class": "best"}, d.best);
  note.append(" · ", el("span", {"class": "ring best"}), " the engine's best here: ", named);
}

// win chance over the game: best_win per reviewed decision, one line per seat
function drawChart() {
  const W = 460, H = 180, L = 34, R = 8, T = 8, B = 22;
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  svg.setAttribute("id", "chartsvg");
  const x = (p) => L + (W - L - R) * (doc.plies ? p / doc.plies : 0);
  const y = (v) => T + (H - T - B) * (1 - v);
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.append(e); return e;
  };
  add("rect", {x: L, y: T, width: W - L - R, height: H - T - B, fill: "#fafafa", stroke: "#bbb"});
  for (const v of [0, 0.5, 1]) {
    add("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#ddd"});
    add("text", {x: L - 4, y: y(v) + 4, "text-anchor": "end", "font-size": 11}, pct(v).replace(".0", ""));
  }
  add("text", {x: (L + W - R) / 2, y: H - 5, "text-anchor": "middle", "font-size": 11}, "ply (click to jump)");
  const seats = [...new Set(doc.decisions.map((d) => d.seat))].sort();
  for (const s of seats) {
    const pts = doc.decisions.filter((d) => d.seat === s).map((d) => x(d.ply).toFixed(1) + "," + y(d.best_win).toFixed(1));
    add("polyline", {points: pts.join(" "), fill: "none", stroke: SEAT_COLOURS[s], "stroke-width": 2, "class": "seat" + s});
    for (const d of doc.decisions.filter((d) => d.seat === s && d.mark))
      add("circle", {cx: x(d.ply), cy: y(d.played_value), r: 3.5, fill: SEAT_COLOURS[s], "class": "markdot"});
  }
  add("line", {id: "cursor", x1: x(0), x2: x(0), y1: T, y2: H - B, stroke: "#e69f00", "stroke-width": 2});
  svg.onclick = (ev) => {
    const box = svg.getBoundingClientRect();
    const px = (ev.clientX - box.left) * W / box.width;
    go(Math.round((px - L) / (W - L - R) * doc.plies));
  };
  const legend = el("p", {"class": "legend"});
  for (const s of seats) {
    const sw = el("span", {"class": "swatch"}); sw.style.background = SEAT_COLOURS[s];
    legend.append(sw, " seat " + s + "  ");
  }
  legend.append(" (the chance of winning after the engine's best decision; dots: marked decisions)");
  $("chart").replaceChildren(svg, legend);
}

function markChart() {
  const c = document.getElementById("cursor");
  if (!c) return;
  const W = 460, L = 34, R = 8, xx = L + (W - L - R) * (doc.plies ? ply / doc.plies : 0);
  c.setAttribute("x1", xx); c.setAttribute("x2", xx);
}

// one line per seat: the game accuracy (search.review.game_accuracy), or why there is none
function showAccuracy() {
  const box = $("accuracy");
  box.replaceChildren();
  for (const s of doc.summary) {
    const p = el("p", {"class": "accuracy", "data-seat": s.seat});
    p.append(el("strong", {}, "Seat " + s.seat + ": " + (s.accuracy === null ? "no accuracy" : "accuracy " + s.accuracy.toFixed(1) + "%")),
      s.accuracy === null ? " (" + s.accuracy_note + ")" : " over " + s.decisions + " decisions");
    box.append(p);
  }
  box.append(el("p", {"class": "caption"}, "100%: every decision the engine's best, or one the search cannot tell from it; " +
    "each decision scores by the win chance it lost (Lichess's curve: 5 points lost scores 80, 20 points 40)."));
}

function listMistakes() {
  showAccuracy();
  const box = $("mistakes");
  box.replaceChildren();
  for (const s of doc.summary) {
    box.append(el("h3", {}, "Seat " + s.seat + ": " + s.decisions + " decisions, " + s.agreed + " as the engine, " + s.equal + " as good, mean loss " + pct(s.mean_loss)));
    const ol = el("ol", {"class": "mistakes"});
    if (!s.largest.length) ol.append(el("li", {}, "no loss found"));
    for (const m of s.largest) {
      const li = el("li", {"class": "mistake", "data-ply": m.ply});
      const a = el("a", {href: "#"}, "ply " + m.ply + ": " + m.played + " (best " + m.best + "), loss " + pct(m.loss) + (m.mark ? " — " + m.mark : ""));
      a.onclick = (ev) => { ev.preventDefault(); go(m.ply); };
      li.append(a); ol.append(li);
    }
    box.append(ol);
  }
}

$("first").onclick = () => go(0);
$("prev").onclick = () => go(ply - 1);
$("next").onclick = () => go(ply + 1);
$("last").onclick = () => go(doc ? doc.plies : 0);
document.addEventListener("keydown", (ev) => {
  if (!doc || ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") return;
  const k = {ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: doc.plies}[ev.key];
  if (k !== undefined) { ev.preventDefault(); go(k); }
});
const id = new URLSearchParams(location.search).get("id");
if (id) poll(id);

// ---------------------------------------------------------------- Learn from your mistakes
// A seat's decisions marked mistake or blunder, one puzzle at a time: the position before the decision as that
// seat saw it (GET /api/review/ID/puzzle/PLY), a decision tried by clicking as on the play page or chosen from
// the list, valued by the server like the review valued the decision played (POST the same URL), then the verdict
// and the engine's best. Nothing of the answer is shown before a try.
let puz = null;             // {seat, list: [{ply, mark}], i, view, prefix, busy, answered}

function learnSetup() {
  const sel = $("learnseat");
  sel.replaceChildren(...doc.seats.map((s) => el("option", {value: s}, "seat " + s + (s === doc.human ? " (you)" : ""))));
  if (doc.seats.includes(doc.human)) sel.value = doc.human;    // a web game's record names its player's seat
  $("learnnote").textContent = "";
}

$("learnstart").onclick = async () => {
  const seat = parseInt($("learnseat").value, 10);
  const r = await fetch("/api/review/" + encodeURIComponent(doc.review) + "/puzzles?seat=" + seat);
  const out = await r.json();
  if (!r.ok) { $("learnnote").textContent = out.error; return; }
  if (!out.puzzles.length) {
    $("learnnote").textContent = "Seat " + seat + " made no mistake and no blunder in this review: no puzzle to learn from.";
    return;
  }
  puz = {seat: seat, list: out.puzzles, i: 0, view: null, prefix: null, busy: false};
  $("reviewmain").hidden = true; $("puzzlemain").hidden = false;
  puzzleShow(0);
};

async function puzzleShow(i) {
  puz.i = Math.max(0, Math.min(puz.list.length - 1, i));
  const p = puz.list[puz.i];
  $("puzzleno").textContent = "puzzle " + (puz.i + 1) + " of " + puz.list.length;
  $("puzzleprev").disabled = puz.i === 0;
  $("puzzlenext").disabled = puz.i === puz.list.length - 1;
  $("verdict").replaceChildren();
  const r = await fetch("/api/review/" + encodeURIComponent(doc.review) + "/puzzle/" + p.ply);
  const v = await r.json();
  if (!r.ok) { $("puzzletask").textContent = v.error; return; }
  if (puz.list[puz.i].ply !== v.ply) return;     // another puzzle was asked for meanwhile
  puz.view = v; puz.prefix = null; puz.answered = false;
  $("puzzletask").textContent = "Ply " + v.ply + ": seat " + v.seat + " played a " + v.mark +
    " here. Find a better decision (the board as seat " + v.seat + " saw it; bag " + v.bag_size + ").";
  $("puzzleprompt").textContent = v.prompt;
  $("puzzlelegal").replaceChildren(...v.legal.map((m) => el("option", {value: m}, m)));
  puzzleSeats();
  puzzleRender();
}

// the decisions the piece chosen allows, and their squares (the play page's rule, app.js targets)
function puzzleTargets() {
  const v = puz.view;
  if (v.phase === "action") return puz.prefix ? v.legal.filter((m) => m.startsWith(puz.prefix + " ") && squareOf(m)) : [];
  return v.legal.filter((m) => squareOf(m));
}

function puzzleRender() {
  const v = puz.view;
  $("puzzleboard").innerHTML = v.svg;              // the server's SVG (engine/svg.py): no scripts
  const squares = new Set(puzzleTargets().map(squareOf));
  document.querySelectorAll("#puzzleboard .sq").forEach((g) => { if (squares.has(g.dataset.sq)) g.classList.add("target"); });
  const hand = $("puzzlehand"), box = $("puzzlebuttons");
  hand.replaceChildren(); box.replaceChildren(); $("puzzleoptions").replaceChildren();
  const choose = (p) => { puz.prefix = puz.prefix === p ? null : p; puzzleRender(); };
  for (const c of v.hand === "-" ? "" : v.hand) {
    const can = v.legal.some((m) => m.startsWith("tile " + c + " "));
    const t = el("span", {"class": "tile " + c + (can ? "" : " off") + (puz.prefix === "tile " + c ? " chosen" : ""), title: "tile " + c}, c.toUpperCase());
    if (can) t.onclick = () => choose("tile " + c);
    hand.append(t);
  }
  const add = (label, cls, onclick) => { const b = el("button", {type: "button", "class": cls}, label); b.onclick = onclick; box.append(b); };
  if (v.phase === "action") {
    for (const c of "krbg")
      if (v.legal.some((m) => m.startsWith("leader " + c + " ")))
        add(c.toUpperCase(), "tile leader " + c + (puz.prefix === "leader " + c ? " chosen" : ""), () => choose("leader " + c));
    if (v.legal.some((m) => m.startsWith("cat "))) add("catastrophe", puz.prefix === "cat" ? "chosen" : "", () => choose("cat"));
  }
  // the decisions without a square (pass, withdraw, commit, war order…), swaps left to the list: there are many
  for (const m of v.legal.filter((m) => !squareOf(m) && !m.startsWith("swap ")))
    add(m, "", () => puzzleTry(m));
}

function puzzleSeats() {
  const t = $("puzzleseats");
  t.replaceChildren();
  const head = el("tr");
  for (const h of ["seat", "K", "R", "B", "G", "tr", "hand"]) head.append(el("th", {}, h));
  t.append(head);
  for (const s of puz.view.seats) {
    const tr = el("tr", {"class": s.you ? "you" : ""});
    for (const x of [s.dynasty + s.seat, s.scores.k, s.scores.r, s.scores.b, s.scores.g, s.treasures, s.hand_size])
      tr.append(el("td", {}, String(x)));
    t.append(tr);
  }
}

async function puzzleTry(move) {
  if (!puz || puz.busy) return;
  const v = puz.view;
  puz.busy = true; $("puzzletry").disabled = true;
  $("verdict").replaceChildren(el("p", {}, "Valuing " + move + " (" + doc.iterations + " iterations a search)…"));
  try {
    const r = await fetch("/api/review/" + encodeURIComponent(doc.review) + "/puzzle/" + v.ply,
      {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({seat: v.seat, move: move})});
    const out = await r.json();
    if (puz.view !== v) return;                    // another puzzle is shown now
    if (!r.ok) { $("verdict").replaceChildren(el("p", {"class": "error"}, out.error)); return; }
    puzzleVerdict(out);
  } finally { puz.busy = false; $("puzzletry").disabled = false; }
}

// the verdict in words, then the three win chances (search values without a map) with their 95% ranges, then the engine's best on the board
function puzzleVerdict(a) {
  const chance = (w) => pct(w.win) + " (" + pct(w.low) + "–" + pct(w.high) + ")";
  const words = {
    played: "That is the decision played in the game.",
    better: "Better: " + a.tried + " loses less than the game's " + a.played + ".",
    same: "About as good as the game's " + a.played + ": the search cannot tell them apart (the range of the difference holds 0).",
    worse: "Worse than the game's " + a.played + ".",
  }[a.verdict];
  const box = $("verdict");
  box.replaceChildren(el("p", {"class": "verdict " + a.verdict}, words + (a.is_best ? " It is the engine's best decision." : "")));
  const t = el("table", {"class": "facts"});
  const row = (k, m, w) => { const tr = el("tr"); tr.append(el("th", {}, k), el("td", {}, m), el("td", {}, chance(w))); t.append(tr); };
  const chances = a.units === "win chance";        // else search values: no calibration map ships for this board
  const head = el("tr"); head.append(el("th", {}, ""), el("th", {}, "decision"),
    el("th", {}, (chances ? "wins" : "search value") + " (95% range)")); t.append(head);
  row("you tried", a.tried, a.tried_win);
  row("the game", a.played, a.played_win);
  row("engine's best", a.best, a.best_win);
  box.append(t);
  box.append(el("p", {"class": "note"}, "Your try against the game's: " + (a.gain >= 0 ? "+" : "") + pct(a.gain) +
    (chances ? " of win chance (" : " of search value (") + pct(a.gain_low) + " to " + pct(a.gain_high) + ")" + (a.mark ? "; against the engine's best it would be marked " + a.mark : "") + "."));
  const again = el("button", {type: "button"}, "try another decision");
  again.onclick = () => { $("verdict").replaceChildren(); puz.prefix = null; puz.answered = false; puzzleRender(); };
  box.append(again);
  $("puzzleboard").innerHTML = a.svg;              // the try ringed, the engine's best as a dashed square
  puz.answered = true;                             // its squares are not for clicking: "try another decision"
  for (const id of ["puzzlehand", "puzzlebuttons", "puzzleoptions"]) $(id).replaceChildren();
}

$("puzzleboard").addEventListener("click", (ev) => {
  const g = ev.target.closest(".sq");
  if (!g || !puz || !puz.view || puz.busy || puz.answered) return;
  const here = puzzleTargets().filter((m) => squareOf(m) === g.dataset.sq);
  if (here.length === 1) puzzleTry(here[0]);
  else if (here.length > 1) {                      // e.g. two monuments on one block: choose
    const opts = $("puzzleoptions");
    opts.replaceChildren(...here.map((m) => { const b = el("button", {type: "button"}, m); b.onclick = () => puzzleTry(m); return b; }));
  }
});
$("puzzletry").onclick = () => puzzleTry($("puzzlelegal").value);
$("puzzleprev").onclick = () => puzzleShow(puz.i - 1);
$("puzzlenext").onclick = () => puzzleShow(puz.i + 1);
$("puzzleexit").onclick = () => { $("puzzlemain").hidden = true; $("reviewmain").hidden = false; puz = null; };
