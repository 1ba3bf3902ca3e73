// The seat page of a rulesengine playtest. It draws what the server sends for this seat
// (nothing else is ever sent to it) and sends the person's moves back. Every text from the
// rule file is set as text, never as HTML.
"use strict";

const token = decodeURIComponent(location.pathname.split("/").pop());
let socket = null;
let state = null;        // the last "state" message
let selection = [];      // selected cards: {key, name}
let retry = 500;         // reconnect back-off in ms
let closedForGood = false;

const $ = (id) => document.getElementById(id);

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(token)}`);
  socket.onopen = () => { retry = 500; setStatus(state ? statusText(state) : "connected"); };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = (event) => {
    if (event.code === 4404) {
      closedForGood = true;
      setStatus("this link is not a seat of this server");
      return;
    }
    setStatus("disconnected: reconnecting…");
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 8000);
  };
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  else flash("not connected to the server; your move was not sent");
}

function receive(message) {
  if (message.type === "error") { flash(message.message); return; }
  if (message.type === "handover") { showCurtain(message); return; }
  if (message.type === "state") {
    $("curtain").hidden = true;
    const fresh = !state || state.version !== message.version;
    state = message;
    if (fresh) selection = [];
    render();
  }
}

function flash(text) {
  const box = $("flash");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(flash.timer);
  flash.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

function setStatus(text, mine) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("turn", Boolean(mine));
}

function player(seat) { return `P${seat + 1}`; }

function statusText(s) {
  if (s.result) return `match over: ${s.result.text}`;
  if (s.current === s.seat) return "your turn";
  if (s.current >= 0) return `${player(s.current)} to move`;
  return "";
}

function showCurtain(message) {
  state = null;
  document.body.dataset.turn = "handover";
  document.body.dataset.version = String(message.version);
  $("curtain-text").textContent = `Pass the screen to ${player(message.seat)}.`;
  $("reveal").textContent = `I am ${player(message.seat)}: show my cards`;
  $("curtain").hidden = false;
  $("game").textContent = message.game;
  setStatus(`${player(message.seat)} to move`);
}

// ---- cards ------------------------------------------------------------------------------

function cardFace(card) {
  const node = el("div", "card");
  node.dataset.name = card.name;
  node.title = card.name;
  if (card.colour) node.style.color = card.colour;
  node.append(el("span", "rank", card.rank));
  node.append(el("span", card.symbol ? "pip" : "pip plain", card.symbol || card.rank));
  node.append(el("span", "suit-name", card.symbol ? "" : card.suit));
  return node;
}

function cardBack(small) { return el("div", small ? "card back small" : "card back"); }

function cardMoves() { return state.moves.filter((m) => m.cards.length > 0); }

function playableNames() {
  const names = new Set();
  for (const move of cardMoves()) for (const name of move.cards) names.add(name);
  return names;
}

function counts(names) {
  const out = new Map();
  for (const name of names) out.set(name, (out.get(name) || 0) + 1);
  return out;
}

function covers(move, chosen) {  // the move names every selected card (as many times)
  const have = counts(move.cards);
  for (const [name, n] of counts(chosen)) if ((have.get(name) || 0) < n) return false;
  return true;
}

function exact(move, chosen) { return move.cards.length === chosen.length && covers(move, chosen); }

function clickCard(key, name) {
  const at = selection.findIndex((s) => s.key === key);
  if (at >= 0) { selection.splice(at, 1); render(); return; }
  const chosen = [...selection.map((s) => s.name), name];
  const fitting = cardMoves().filter((m) => covers(m, chosen));
  if (fitting.length === 0) { flash(`no move plays ${chosen.join(" ")}`); return; }
  // one move plays exactly this one card, and no other move uses it: play it at once
  if (selection.length === 0 && fitting.length === 1 && fitting[0].cards.length === 1) {
    play(fitting[0]);
    return;
  }
  selection.push({ key, name });
  render();
}

function play(move) {
  send({ type: "act", action: move.id, version: state.version });
  selection = [];
}

function drawCards(container, zone, playable) {
  const row = el("div", "cards");
  if (!zone.visible) {
    const shown = Math.min(zone.count, zone.kind === "hand" ? 12 : 1);
    for (let i = 0; i < shown; i++) row.append(cardBack(zone.kind === "hand"));
    row.append(el("span", "count", zone.count === 1 ? "1 card" : `${zone.count} cards`));
  } else if (zone.cards.length === 0) {
    row.append(el("span", "empty", "empty"));
  } else {
    const cards = zone.kind === "pile" ? zone.cards.slice(-8) : zone.cards;
    const offset = zone.cards.length - cards.length;
    cards.forEach((card, i) => {
      const node = cardFace(card);
      const key = `${zone.name}#${offset + i}`;
      node.dataset.key = key;
      if (playable.has(card.name)) {
        node.classList.add("playable");
        node.setAttribute("role", "button");
        node.tabIndex = 0;
        node.addEventListener("click", () => clickCard(key, card.name));
        node.addEventListener("keydown", (event) => {
          if (event.key === "Enter" || event.key === " ") { event.preventDefault(); clickCard(key, card.name); }
        });
      }
      if (selection.some((s) => s.key === key)) node.classList.add("selected");
      row.append(node);
    });
    if (zone.kind === "pile" && zone.cards.length > 1) row.append(el("span", "count", `${zone.cards.length} cards, top on the right`));
  }
  container.append(row);
}

function drawZone(parent, zone, playable, label) {
  const box = el("div", `zone ${zone.kind}`);
  box.dataset.zone = zone.name;
  box.append(el("div", "zone-name", label || zone.name));
  drawCards(box, zone, playable);
  parent.append(box);
}

function drawZones(parent, zones, playable) {  // a player's zones side by side; empty ones left out
  const box = el("div", "zones");
  const filled = zones.filter((z) => z.count > 0);
  for (const zone of filled) drawZone(box, zone, playable);
  if (filled.length === 0) box.append(el("span", "empty", "no cards"));
  parent.append(box);
}

// ---- the page ---------------------------------------------------------------------------

function render() {
  const s = state;
  const playable = playableNames();
  const mine = s.current === s.seat && !s.result;
  document.title = `${s.game} — ${player(s.seat)}`;
  document.body.dataset.version = String(s.version);
  document.body.dataset.turn = s.result ? "over" : mine ? "mine" : "other";
  $("game").textContent = s.game;
  setStatus(statusText(s), mine);
  const facts = [`you are ${player(s.seat)}`, `round ${s.round}`];
  if (s.phase) facts.push(`phase ${s.phase}`);
  if (s.direction < 0) facts.push("play runs backwards");
  facts.push(`match ${s.match}`);
  facts.push(s.seed === null ? "seed shown when the match is over" : `seed ${s.seed}`);
  $("facts").textContent = facts.join(" · ");

  // other players: their zones (cards when visible, else counts) and their variables
  const others = $("others");
  others.replaceChildren();
  for (let p = 0; p < s.players; p++) {
    if (p === s.seat) continue;
    const box = el("div", "seat");
    box.dataset.seat = String(p);
    if (p === s.current) box.classList.add("current");
    if (!s.active[p]) box.classList.add("out");
    const name = el("div");
    name.append(el("span", "seat-name", player(p)), el("span", "seat-kind", s.people.includes(p) ? "person" : "bot"));
    box.append(name);
    drawZones(box, s.zones.filter((z) => z.owner === p), playable);
    for (const v of s.variables.per_player) box.append(el("div", "zone-name", `${v.name}: ${show(v.values[p])}`));
    others.append(box);
  }

  // the table: shared zones, rows and piles
  const table = $("table");
  table.replaceChildren();
  for (const zone of s.zones.filter((z) => z.owner < 0)) {
    if (!zone.visible && zone.count === 0) continue;  // an empty face-down zone tells nothing
    drawZone(table, zone, playable);
  }
  if (s.shown.length) drawZone(table, { name: "shown", kind: "row", visible: true, cards: s.shown }, playable, "shown to you");

  // the seat's own zones
  const own = $("mine");
  own.replaceChildren(el("h2", null, `Your cards (${player(s.seat)})`));
  own.classList.toggle("current", mine);
  drawZones(own, s.zones.filter((z) => z.owner === s.seat), playable);
  for (const v of s.variables.per_player) own.append(el("div", "zone-name", `${v.name}: ${show(v.values[s.seat])}`));

  drawMoves(mine);
  drawSide();
}

function show(value) {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.map(show).join(", ");
  return String(value);
}

function drawMoves(mine) {
  const s = state;
  const chosen = selection.map((x) => x.name);
  const buttons = $("move-buttons");
  buttons.replaceChildren();
  const hint = $("move-hint");
  if (!mine) {
    hint.textContent = s.result ? "the match is over" : `waiting for ${player(s.current)}`;
  } else if (chosen.length) {
    hint.textContent = `selected: ${chosen.join(" ")}; pick more cards or a move`;
  } else {
    hint.textContent = cardMoves().length ? "click a highlighted card, or a move" : "choose a move";
  }
  const shown = s.moves.filter((m) => chosen.length === 0 || covers(m, chosen));
  for (const move of shown) {
    const button = el("button", "move", move.label);
    button.type = "button";
    button.dataset.action = String(move.id);
    button.dataset.cards = JSON.stringify(move.cards);
    if (chosen.length && exact(move, chosen)) button.classList.add("exact");
    button.addEventListener("click", () => play(move));
    buttons.append(button);
  }
  const matches = s.moves.filter((m) => exact(m, chosen));
  $("selection-bar").hidden = chosen.length === 0;
  $("confirm").disabled = !(chosen.length && matches.length === 1);
}

function drawSide() {
  const s = state;
  $("result").textContent = s.result ? s.result.text : "";
  if (s.notice) flash(s.notice);
  $("undo").hidden = s.mode !== "solo";
  $("undo").disabled = !s.can_undo;
  $("new").disabled = !s.can_new_match;
  $("seed").hidden = !s.can_choose_seed;
  $("seed").disabled = !s.can_new_match || !s.can_choose_seed;
  const link = $("download");
  link.classList.toggle("off", !s.can_download);
  link.href = s.can_download ? `/replay/${encodeURIComponent(token)}` : "#";
  const list = $("variable-list");
  list.replaceChildren();
  for (const v of s.variables.shared) list.append(el("dt", null, v.name), el("dd", null, show(v.value)));
  if (s.last_move) list.append(el("dt", null, "last move"), el("dd", null, `${player(s.last_move.player)}: ${s.last_move.move}`));
  const log = $("log-lines");
  log.replaceChildren();
  log.start = s.log_total - s.log.length + 1;
  for (const line of s.log) log.append(el("li", null, line));
  log.scrollTop = log.scrollHeight;
}

$("confirm").addEventListener("click", () => {
  const chosen = selection.map((x) => x.name);
  const matches = state.moves.filter((m) => exact(m, chosen));
  if (matches.length === 1) play(matches[0]);
});
$("clear").addEventListener("click", () => { selection = []; render(); });
$("undo").addEventListener("click", () => send({ type: "undo" }));
$("new").addEventListener("click", () => {
  const typed = $("seed").value.trim();
  if (typed !== "" && !(/^-?\d{1,16}$/.test(typed) && Number.isSafeInteger(Number(typed)))) {
    flash("a seed is a whole number from -9007199254740991 to 9007199254740991");
    return;
  }
  send({ type: "new", seed: typed === "" ? null : Number(typed) });
  $("seed").value = "";
});
$("reveal").addEventListener("click", () => send({ type: "reveal" }));

if (!closedForGood) connect();
