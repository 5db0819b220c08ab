// tne-ai serve: the watch page. The server computes the decisions (or replays
// an uploaded record) as fast as it can and streams each over a WebSocket; this
// page keeps them in a queue and shows one every `delay` ms (pause, step).
"use strict";
let ws = null, queue = [], end = null, paused = false, timer = null, shown = 0;

const delay = () => parseInt($("delay").value, 10);

function connect(id) {
  if (ws) ws.close();
  queue = []; end = null; shown = 0;
  $("moves").replaceChildren(); $("record").hidden = true; say(""); $("watchside").hidden = false;
  history.replaceState(null, "", "/watch?id=" + encodeURIComponent(id));
  const proto = location.protocol === "https:" ? "wss://" : "ws://";
  ws = new WebSocket(proto + location.host + "/ws/watch/" + encodeURIComponent(id));
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "decision") queue.push(m);
    else if (m.type === "end") end = m;
    schedule();
  };
  ws.onclose = (ev) => { if (ev.code === 4404) say("no such game (the server may have restarted)"); };
}

function schedule() {
  $("delayms").textContent = delay() + " ms";
  $("queue").textContent = queue.length ? queue.length + " decision(s) waiting" : "";
  if (timer !== null || paused) return;
  if (queue.length) timer = setTimeout(() => { timer = null; showNext(); schedule(); }, shown ? delay() : 0);
  else if (end) finish();
}

function showNext() {
  const m = queue.shift();
  if (!m) return;
  shown++;
  $("board").innerHTML = m.svg;          // the server's SVG (engine/svg.py): no scripts in it
  if (m.move) {
    const li = el("li", {"class": "seat" + m.seat}, "seat " + m.seat + ": " + m.move);
    $("moves").append(li);
    li.scrollIntoView({block: "nearest"});
  }
  $("status").textContent = m.over ? "game over" : "decision " + m.ply + " · seat " + m.to_act + " to act";
}

function finish() {
  const e = end;
  end = null;
  if (e.svg) $("board").innerHTML = e.svg;
  let text = e.over ? "Game over (" + e.end_reason + "): " + e.ranks.map((r, s) => "seat " + s + " rank " + (r + 1)).join(", ")
                    : "Stopped after " + e.plies + " decisions";
  if (e.error) text += " · " + e.error;
  $("status").textContent = text;
  if (e.record) { $("record").href = e.record; $("record").hidden = false; }
}

$("delay").oninput = () => { $("delayms").textContent = delay() + " ms"; };
$("pause").onclick = () => {
  paused = !paused;
  $("pause").textContent = paused ? "Resume" : "Pause";
  if (paused && timer !== null) { clearTimeout(timer); timer = null; }
  schedule();
};
$("step").onclick = () => { if (queue.length) showNext(); else if (end) finish(); schedule(); };

$("watchform").onsubmit = async (ev) => {
  ev.preventDefault();
  const f = ev.target;
  const body = {players: parseInt(f.players.value, 10), board: f.board.value,
                variants: ["english", "buildings", "wonder"].filter((v) => f[v].checked),
                iterations: parseInt(f.iterations.value, 10) || 100};
  const r = await fetch("/api/watch", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const out = await r.json();
  if (!r.ok) { say(out.error); return; }
  connect(out.watch);
};
$("watchfile").onchange = async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  const r = await fetch("/api/watch/load", {method: "POST", body: file});
  const out = await r.json();
  ev.target.value = "";
  if (!r.ok) { say(out.error); return; }
  connect(out.watch);
};
const id = new URLSearchParams(location.search).get("id");
if (id) connect(id);
