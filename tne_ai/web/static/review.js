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
