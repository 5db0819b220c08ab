// tne-ai serve: the page. Plain JavaScript, no build step. The server sends the
// human's view (`state`), the board as SVG and the legal decisions in notation;
// this script only shows them and sends back the decision clicked.
"use strict";
let ws = null, view = null, gameId = null;
let hintFor = null;         // the view version a hint was asked for (a hint of another position is dropped)
let lastHint = null;        // the hint shown, if any
let prefix = null;          // the chosen piece, e.g. "tile r", "leader k", "cat"
let swapSet = null;         // tiles chosen for a swap (letters), or null

function button(label, onclick, parent) {
  const b = el("button", {type: "button"}, label);
  b.onclick = onclick;
  parent.appendChild(b);
  return b;
}
function send(msg) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg)); }
function play(move) { prefix = null; swapSet = null; say(""); send({type: "move", move: move}); }

function connect(id) {
  gameId = id;
  history.replaceState(null, "", "/?game=" + encodeURIComponent(id));
  $("record").href = "/api/games/" + encodeURIComponent(id) + "/record";
  if (ws) ws.close();
  const proto = location.protocol === "https:" ? "wss://" : "ws://";
  ws = new WebSocket(proto + location.host + "/api/games/" + encodeURIComponent(id) + "/ws");
  ws.onmessage = (ev) => receive(JSON.parse(ev.data));
  // the server says why it closed (4404 no such game, 4429 too slow, 1013 full): show it
  ws.onclose = (ev) => {
    $("status").textContent = "disconnected" + (ev.reason ? ": " + ev.reason : "") + " (reload the page to reconnect)";
  };
}

function receive(m) {
  if (m.type === "state") {
    // any change of position (a move by anyone, an undo) makes a hint shown or asked for stale
    if (!view || view.version !== m.version) clearHint();
    view = m; prefix = null; swapSet = null; render();
  }
  else if (m.type === "thinking") { $("status").textContent = "seat " + m.seat + " is thinking…"; }
  else if (m.type === "hint") { if (view && m.version === view.version && hintFor === m.version) showHint(m); }
  else if (m.type === "error") { say(m.message); }
  // "teaching" (a warning) needs nothing either: the state that follows holds it (view.teaching)
  // "event" (an engine's decision) needs nothing: the state that follows lists it, with a conflict's outcome
}

// the legal decisions the current selection allows, and their squares
function targets() {
  if (!view || !view.your_turn || teachingBusy()) return [];
  if (view.phase === "action") {
    if (!prefix) return [];
    return view.legal.filter((m) => m.startsWith(prefix + " ") && squareOf(m));
  }
  return view.legal.filter((m) => squareOf(m));
}

function render() {
  const v = view;
  $("play").hidden = false; $("movebox").hidden = false;
  $("board").innerHTML = v.svg;       // the server's own SVG (engine/svg.py): no scripts in it
  const t = targets(), squares = new Set(t.map(squareOf));
  document.querySelectorAll("#board .sq").forEach((g) => {
    if (squares.has(g.dataset.sq)) g.classList.add("target");
  });
  let status;
  if (v.over) status = "Game over (" + v.over.end_reason + "): " + v.over.ranks.map((r, s) => (s === v.seat ? "you" : "seat " + s) + " rank " + (r + 1)).join(", ");
  else if (v.checking) status = "Teaching mode: checking " + v.checking + "…";
  else if (v.teaching) status = "Teaching mode: " + v.teaching.move + " loses too much";
  else if (v.your_turn) status = "Your decision (seat " + v.seat + ")";
  else status = "Seat " + v.to_act + " to act" + (v.thinking !== null ? " (thinking…)" : "");
  $("status").textContent = status + " · bag " + v.bag_size;
  $("prompt").textContent = v.prompt;
  renderHand(); renderButtons(); renderConflict(); renderSeats(); renderMoves(); renderNews(); renderTeaching();
  $("undo").disabled = !v.can_undo;
  $("hint").disabled = !!v.over;
}

function renderHand() {
  const hand = $("hand");
  hand.replaceChildren();
  const v = view, letters = v.hand === "-" ? "" : v.hand;
  const chosen = swapSet ? swapSet.slice() : [];
  [...letters].forEach((c) => {
    const tile = el("span", {class: "tile " + c, title: "tile " + c}, c.toUpperCase());
    const i = chosen.indexOf(c);
    if (swapSet !== null && i >= 0) { tile.classList.add("chosen"); chosen.splice(i, 1); }
    else if (swapSet === null && prefix === "tile " + c) tile.classList.add("chosen");
    const can = v.legal.some((m) => m.startsWith("tile " + c + " "));
    if (swapSet === null && !can) tile.classList.add("off");
    tile.onclick = () => {
      if (swapSet !== null) {
        const j = swapSet.indexOf(c);
        const taken = swapSet.filter((x) => x === c).length;
        const have = [...letters].filter((x) => x === c).length;
        if (tile.classList.contains("chosen")) swapSet.splice(j, 1);
        else if (taken < have) swapSet.push(c);
        renderHand(); renderButtons();
      } else if (can) { prefix = prefix === "tile " + c ? null : "tile " + c; render(); }
    };
    hand.appendChild(tile);
  });
}

function renderButtons() {
  const box = $("buttons"), opts = $("options");
  box.replaceChildren(); opts.replaceChildren();
  const v = view;
  if (!v.your_turn || teachingBusy()) return;
  if (v.phase === "action") {
    const me = v.seats[v.seat];
    "krbg".split("").forEach((c) => {
      if (v.legal.some((m) => m.startsWith("leader " + c + " "))) {
        const onBoard = !me.leaders_in_supply.includes(c);
        const b = button(c.toUpperCase(), () => { prefix = prefix === "leader " + c ? null : "leader " + c; render(); }, box);
        b.className = "tile leader " + c + (prefix === "leader " + c ? " chosen" : "");
        b.title = (onBoard ? "move the " : "place the ") + "leader " + c.toUpperCase();
      }
    });
    if (v.legal.some((m) => m.startsWith("cat "))) button("catastrophe", () => { prefix = prefix === "cat" ? null : "cat"; render(); }, box);
    v.legal.filter((m) => m.startsWith("withdraw ")).forEach((m) => button(m, () => play(m), box));
    if (v.legal.some((m) => m.startsWith("swap "))) {
      if (swapSet === null) button("swap…", () => { swapSet = []; prefix = null; render(); }, box);
      else {
        const move = "swap " + "krbg".split("").map((c) => c.repeat(swapSet.filter((x) => x === c).length)).join("");
        const ok = button("swap " + (swapSet.join("") || "(click tiles)"), () => play(move), box);
        ok.disabled = !v.legal.includes(move);
        button("cancel", () => { swapSet = null; render(); }, box);
      }
    }
    if (v.legal.includes("pass")) button("pass", () => play("pass"), box);
  } else if (!v.phase.endsWith("attack") && !v.phase.endsWith("defend")) {
    // war order, monument, treasure, building, wonder: click a lit square, or one of these
    v.legal.forEach((m) => button(m, () => play(m), opts));
  }
}

function renderConflict() {
  const box = $("conflict"), c = view.conflict;
  box.replaceChildren();
  box.hidden = !c;
  if (!c) return;
  const a = c.attacker_base + (c.attacker_commit || 0);
  box.appendChild(el("p", {}, c.kind + " over the " + c.colour.toUpperCase() + " leader: attacker seat " + c.attacker +
    " at " + c.attacker_leader + " strength " + c.attacker_base + (c.attacker_commit !== null ? " + " + c.attacker_commit + " committed = " + a : "") +
    "; defender seat " + c.defender + " at " + c.defender_leader + " strength " + c.defender_base + "."));
  if (view.your_turn && !teachingBusy()) {
    box.appendChild(el("p", {}, "Commit " + c.tile_colour.toUpperCase() + " tiles:"));
    view.legal.filter((m) => m.startsWith("commit ")).forEach((m) => button(m, () => play(m), box));
  }
}

function renderSeats() {
  const t = $("seats");
  t.replaceChildren();
  const head = el("tr");
  // short headings (the full words in their titles) so the table fits the side column
  [["seat", "seat, with its dynasty: the mark on its leaders on the board"], ["player", ""],
   ["K", "black points (kings)"], ["R", "red points (priests)"], ["B", "blue points (farmers)"],
   ["G", "green points (traders)"], ["tr", "treasures taken"], ["cat", "catastrophes left"], ["hand", "tiles in hand"]]
    .forEach(([h, title]) => head.appendChild(el("th", title ? {title: title, class: "c" + h} : {}, h)));
  t.appendChild(head);
  view.seats.forEach((s) => {
    const tr = el("tr", {class: s.you ? "you" : ""});
    tr.appendChild(el("td", {class: "dynasty", title: "seat " + s.seat + "'s leaders carry " + s.dynasty + s.seat}, s.dynasty + s.seat));
    [s.player, s.scores.k, s.scores.r, s.scores.b, s.scores.g, s.treasures, s.catastrophes_left, s.hand_size]
      .forEach((x) => tr.appendChild(el("td", {}, String(x))));
    t.appendChild(tr);
  });
}

function renderMoves() {
  const ol = $("moves");
  ol.replaceChildren();
  view.moves.forEach((m) => {
    const li = el("li", {class: m.seat === view.seat ? "you" : ""}, "seat " + m.seat + ": " + m.move + (m.drew ? " (drew " + m.drew + ")" : ""));
    if (m.outcome) li.appendChild(el("div", {class: "outcome"}, m.outcome));
    ol.appendChild(li);
  });
  ol.scrollTop = ol.scrollHeight;
}

// the conflicts resolved since the human's previous decision, in words: a leader never leaves silently
function renderNews() {
  const box = $("news"), told = [];
  for (let i = view.moves.length - 1; i >= 0; i--) {
    const m = view.moves[i];
    if (m.outcome) told.unshift(m.outcome);
    if (m.seat === view.seat) break;
  }
  box.replaceChildren(...told.map((t) => el("p", {class: "outcome"}, t)));
  box.hidden = !told.length;
}

// ---- teaching mode: the new-game form's field (#teachfield), the warning (#teaching)

// whether a decision of the human's waits for teaching mode (checked, or warned of): no other decision meanwhile
function teachingBusy() { return !!(view && (view.checking || view.teaching)); }

// the form's teaching setting: null (off) or the threshold typed (as typed when it is no number: the server says why)
function teachSetting() {
  const f = $("newgame"), t = parseFloat(f.teachthreshold.value);
  return f.teach.checked ? (Number.isFinite(t) ? t : f.teachthreshold.value) : null;
}

// the form's field shows the game's setting, and a change of it switches the game in play
function renderTeachField() {
  const f = $("newgame");
  if (document.activeElement === f.teachthreshold) return;     // not while the player types a threshold
  f.teach.checked = view.teach.on;
  if (view.teach.on) f.teachthreshold.value = view.teach.threshold.toFixed(2);
}
function sendTeachSetting() {
  if (!view || view.over) return;
  const t = teachSetting();
  send(t === null ? {type: "teach", on: false} : {type: "teach", on: true, threshold: t});
}

function renderTeaching() {
  renderTeachField();
  const box = $("teaching"), t = view.teaching;
  box.replaceChildren();
  box.hidden = !t;
  if (!t) return;
  box.appendChild(el("p", {class: "warning"}, "Teaching mode: " + t.text + "."));
  const pct = (x) => Math.round(100 * x) + "%";
  if (t.units === "win chance")
    box.appendChild(el("p", {class: "note"}, "Your chance of winning after " + t.move + ": " + pct(t.played_win) +
      "; after " + t.best + " (dashed square on the board): " + pct(t.best_win) + ". Warned because the loss's 95% " +
      "lower bound reaches " + t.threshold.toFixed(2) + " (" + t.iterations + " iterations a search)."));
  const answer = (a) => () => send({type: "teach_answer", answer: a});
  button("Take it back", answer("back"), box).className = "back";
  button("Play " + t.move + " anyway", answer("play"), box).className = "play";
  button("Play " + t.best, answer("best"), box).className = "best";
}

function clearHint() {
  hintFor = null; lastHint = null;
  $("hintout").replaceChildren();
  $("hintout").hidden = true;
}

function showHint(h) {
  lastHint = h;
  const out = $("hintout");
  out.replaceChildren();
  out.hidden = false;
  const pct = (x) => Math.round(100 * x);
  const chance = (w) => pct(w.win) + "% (" + pct(w.low) + "–" + pct(w.high) + "%)";
  const value = (c) => c.value.toFixed(3) + " (" + c.low.toFixed(3) + "–" + c.high.toFixed(3) + ")";
  out.appendChild(el("p", {class: "chance"}, h.win_chance
    ? "You win " + chance(h.win_chance) + " of games from here, by the engine's search (" + h.iterations + " iterations)."
    : "Search value " + h.value.toFixed(3) + " (no win-chance map for this game)."));
  if (!h.candidates.length) return;
  out.appendChild(el("p", {class: "caption"}, (h.win_chance
    ? "Best first: your chance of winning after each decision, the engine playing every seat from there"
    : "Best first: the search's value after each decision (1 = a sure win)") +
    "; in brackets the range the search supports (95% confidence), which more search narrows."));
  if (h.equal_best && h.equal_best.length > 1)
    out.appendChild(el("p", {class: "equal"}, "Equally good, as far as this search can tell (their ranges overlap " +
      "the best one's): " + h.equal_best.join(", ") + "."));
  const list = el("ol", {class: "candidates"});
  h.candidates.forEach((c) => {
    const li = el("li");
    const b = button(c.move, () => { if (view.legal.includes(c.move)) play(c.move); }, li);
    b.title = "principal variation: " + c.pv.join("; ");
    li.appendChild(el("span", {class: "stat"}, " " + (c.win_chance ? "wins " + chance(c.win_chance) : "value " + value(c)) +
      ", " + c.visits + " visits"));
    list.appendChild(li);
  });
  out.appendChild(list);
}

$("board").addEventListener("click", (ev) => {
  const g = ev.target.closest(".sq");
  if (!g || !view || !view.your_turn) return;
  const here = targets().filter((m) => squareOf(m) === g.dataset.sq);
  if (here.length === 1) play(here[0]);
  else if (here.length > 1) {           // e.g. two monuments possible on one block: choose
    const opts = $("options");
    opts.replaceChildren();
    here.forEach((m) => button(m, () => play(m), opts));
  }
});
$("hint").onclick = () => {
  if (!view) return;
  hintFor = view.version;
  $("hintout").hidden = false;
  $("hintout").textContent = "thinking…";
  send({type: "hint"});
};
$("undo").onclick = () => send({type: "undo"});
$("newgame").onsubmit = async (ev) => {
  ev.preventDefault();
  const f = ev.target, amount = parseInt(f.amount.value, 10);
  const body = {players: +f.players.value, human: Math.min(+f.human.value, +f.players.value - 1),
                board: f.board.value, variants: ["english", "buildings", "wonder"].filter((n) => f[n].checked),
                engines: {[f.limit.value]: amount}};
  body.teach = teachSetting();
  withLevel(body, f);
  const r = await fetch("/api/games", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const j = await r.json();
  if (!r.ok) { say(j.error); return; }
  connect(j.game);
};
$("loadfile").onchange = async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  const f = $("newgame");
  const teach = teachSetting() === null ? "" : "&teach=" + encodeURIComponent(teachSetting());
  const r = await fetch("/api/games/load?" + loadLimit(f) + teach, {method: "POST", body: await file.text()});
  const j = await r.json();
  if (!r.ok) { say(j.error); return; }
  connect(j.game);
};
$("newgame").teach.onchange = sendTeachSetting;
$("newgame").teachthreshold.onchange = () => { if ($("newgame").teach.checked) sendTeachSetting(); };
// The level picker: below 10 a level sets the engines' budget, so the iterations field stands aside;
// it starts at the server's default level (tne-ai serve --level).
function withLevel(body, f) {
  const level = +f.level.value;
  if (level < 10) { body.level = level; delete body.engines; }
  return body;
}
function loadLimit(f) {
  return +f.level.value < 10 ? "level=" + f.level.value : f.limit.value + "=" + parseInt(f.amount.value, 10);
}
function levelChanged() {
  const f = $("newgame"), full = +f.level.value === 10;
  f.limit.disabled = !full;
  f.amount.disabled = !full;
}
async function initLevel() {
  const f = $("newgame");
  f.level.onchange = levelChanged;
  try {
    const r = await fetch("/api/levels");
    if (r.ok) f.level.value = String((await r.json()).default);
  } catch (e) { /* the form keeps level 10 */ }
  levelChanged();
}
initLevel();
setInterval(() => send({type: "ping", t: Date.now()}), 30000);
const start = new URLSearchParams(location.search).get("game");
if (start) connect(start);
