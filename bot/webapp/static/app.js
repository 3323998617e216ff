// Tavolo's Mini App: the seat's table drawn from the state the bot sends, every tap sent back
// as the hand's own operation. Nothing here decides a rule: the bot checks every tap.
"use strict";

const tg = (window.Telegram && window.Telegram.WebApp) || null;
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
// The Italian deck's figures: fante, cavallo, re (jack, knight, king).
const FIGURES = { it: { J: "F", Q: "C", K: "R" }, en: { J: "J", Q: "Kn", K: "K" } };

let session = sessionStorage.getItem("tavolo.session") || "";
let matchId = null;
let state = null;
let busy = false;
let live = null;
let ticking = null;
let drawn = "";  // the state the page shows (but the time left, which only ticks)
let dragged = false;  // a card is being dragged: a new state waits for the drop

function chosenMatch() {
  const given = new URLSearchParams(location.search).get("m");
  const start = tg && tg.initDataUnsafe ? tg.initDataUnsafe.start_param || "" : "";
  const text = given || start.replace(/^m/, "");
  return /^\d{1,18}$/.test(text) ? text : null;
}

async function api(path, body, again = true) {
  const options = { headers: { Authorization: "Bearer " + session } };
  if (body !== undefined) {
    options.method = "POST";
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch("api/" + path, options);
  const data = await response.json().catch(() => ({}));
  if (response.status === 401 && again && path !== "session" && (await signIn())) {
    return api(path, body, false);  // once: a session that expired is traded again
  }
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

async function signIn() {
  if (!tg || !tg.initData) return false;
  try {
    const data = await api("session", { initData: tg.initData });
    session = data.session;
    sessionStorage.setItem("tavolo.session", session);
    return true;
  } catch (error) {
    show(error.message);
    return false;
  }
}

function show(text) {
  const toast = $("toast");
  if (!text) return;
  toast.textContent = text;
  toast.hidden = false;
  clearTimeout(show.timer);
  show.timer = setTimeout(() => (toast.hidden = true), 3500);
}

// --- cards ------------------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.setAttribute("class", value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function face(code) {
  const stands = code.startsWith("JK=") ? code.slice(3) : null;
  if (code === "JK" || stands) return { joker: true, stands };
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

function italianSuit(suit) {
  // Coins, cups, batons and swords, drawn as simple shapes (the Italian deck of Scopone).
  const g = el("svg:g", { class: "pip it-" + suit });
  if (suit === "D") {
    g.append(el("svg:circle", { cx: 30, cy: 52, r: 15 }), el("svg:circle", { cx: 30, cy: 52, r: 8, class: "inner" }));
  } else if (suit === "H") {
    g.append(el("svg:path", { d: "M16 38h28c0 14-6 20-11 21v8h7v5H20v-5h7v-8c-5-1-11-7-11-21z" }));
  } else if (suit === "C") {
    g.append(el("svg:path", { d: "M26 34c3-3 7-3 9 0l-2 40h-6z" }), el("svg:circle", { cx: 30, cy: 35, r: 6 }));
  } else {
    g.append(el("svg:path", { d: "M29 30h2l2 34h-6z" }), el("svg:rect", { x: 21, y: 62, width: 18, height: 4 }), el("svg:rect", { x: 28, y: 66, width: 4, height: 8 }));
  }
  return g;
}

function cardSvg(code, italian) {
  const f = face(code);
  const svg = el("svg:svg", { viewBox: "0 0 60 90", class: "face", "aria-hidden": "true" });
  svg.append(el("svg:rect", { x: 1, y: 1, width: 58, height: 88, rx: 6, class: "paper" }));
  if (f.joker) {
    // A star and the word, drawn: no emoji font is needed to see a joker.
    svg.append(el("svg:polygon", { class: "joker", points: "30,22 35,37 51,37 38,46 43,61 30,52 17,61 22,46 9,37 25,37" }));
    svg.append(el("svg:text", { x: 30, y: 14, "text-anchor": "middle", class: "jolly", text: state && state.lang === "en" ? "JOKER" : "JOLLY" }));
    if (f.stands) svg.append(el("svg:text", { x: 30, y: 80, "text-anchor": "middle", class: "stands", text: f.stands.slice(0, -1) + SUITS[f.stands.slice(-1)] }));
    return svg;
  }
  const lang = state && state.lang === "en" ? "en" : "it";
  const rank = italian ? FIGURES[lang][f.rank] || f.rank : f.rank;
  const red = !italian && (f.suit === "H" || f.suit === "D");
  svg.append(el("svg:text", { x: 6, y: 20, class: "rank" + (red ? " red" : ""), text: rank }));
  if (italian) svg.append(italianSuit(f.suit));
  else {
    svg.append(el("svg:text", { x: 7, y: 36, class: "small" + (red ? " red" : ""), text: SUITS[f.suit] }));
    svg.append(el("svg:text", { x: 32, y: 66, "text-anchor": "middle", class: "big" + (red ? " red" : ""), text: SUITS[f.suit] }));
  }
  return svg;
}

function cardButton(card, italian, extra) {
  const classes = ["card"];
  if (card.selected) classes.push("lifted");
  if (card.new) classes.push("new");
  if (extra) classes.push(extra);
  const label = card.label + (card.selected ? " ✓" : "");
  const node = el(card.tap ? "button" : "div", {
    class: classes.join(" "),
    "aria-label": label,
    "aria-pressed": card.tap && "selected" in card ? String(!!card.selected) : null,
    "data-card": card.card,
    role: card.tap ? null : "img",
    onclick: card.tap ? () => act(card.tap) : null,
  });
  node.append(cardSvg(card.card, italian));
  return node;
}

// --- the table ------------------------------------------------------------------------------

// A state from the bot: drawn unless the page shows it already (a tap's answer and the live
// channel's news often bring the same), and never under a finger dragging a card.
function take(next) {
  const key = JSON.stringify({ ...next, left: null });
  if (key === drawn && state) return;
  state = next;
  if (dragged) return;
  drawn = key;
  render();
}

function render() {
  const s = state;
  const italian = s.game === "scopone";
  document.documentElement.lang = s.lang;
  $("title").textContent = s.title;
  $("cockpit-title").textContent = s.words.details;
  $("table").setAttribute("aria-label", s.words.area_table);
  $("hand").setAttribute("aria-label", s.words.area_hand);
  $("text").textContent = s.text;
  const table = $("table");
  const hand = $("hand");
  const actions = $("actions");
  table.replaceChildren();
  hand.replaceChildren();
  actions.replaceChildren();
  const t = s.table || {};
  $("players").replaceChildren(...(t.players || []).filter((p) => !p.me).map((p) => player(p, s.words)));
  if (t.stock) table.append(stock(t.stock, s.words));
  if (t.discard) table.append(el("div", { class: "pile", id: "discard" }, cardButton(t.discard, italian, "top"), el("span", { class: "count", text: s.words.discard + " · " + t.discard.count })));
  if (t.table) table.append(el("div", { class: "cards row", id: "board", "aria-label": s.words.table }, ...t.table.map((c) => cardButton(c, true))));
  if (t.melds && t.melds.length) table.append(el("div", { id: "melds", "aria-label": s.words.melds }, ...t.melds.map((m) => meld(m))));
  if (t.staged && t.staged.length) table.append(el("div", { id: "staged", "aria-label": s.words.staged }, ...t.staged.map((m) => el("div", { class: "meld staged" }, ...m.map((c) => cardButton(c, false))))));
  if (t.choices) table.append(el("div", { id: "choices", "aria-label": s.words.choose }, ...t.choices.map((c) => choice(c))));
  for (const card of t.hand || []) hand.append(cardButton(card, italian));
  hand.classList.toggle("reorder", !!t.reorder);
  for (const a of s.actions) actions.append(el("button", { class: "action", "data-op": a.op, text: a.label, onclick: () => act(a) }));
  if (!render.done) $("cockpit").open = true;  // open at first; the player may fold it
  render.done = true;
  turnLine();
}

function player(p, words) {
  // Another player: the name, the cards in hand (a card's back with the count), opened, turn.
  const facts = [p.name, p.cards + " " + words.cards];
  if (p.opened) facts.push(words.opened);
  if (p.turn) facts.push(words.turn);
  const back = el("svg:svg", { viewBox: "0 0 60 90", class: "face back", "aria-hidden": "true" });
  back.append(el("svg:rect", { x: 1, y: 1, width: 58, height: 88, rx: 6 }));
  return el("div", { class: "player" + (p.turn ? " turn" : ""), role: "img", "aria-label": facts.join(", ") },
    el("span", { class: "mini" }, back), el("span", { class: "count", text: String(p.cards) }),
    el("span", { class: "name", text: p.name + (p.opened ? " ✓" : "") }));
}

function stock(pile, words) {
  const back = el("svg:svg", { viewBox: "0 0 60 90", class: "face back", "aria-hidden": "true" });
  back.append(el("svg:rect", { x: 1, y: 1, width: 58, height: 88, rx: 6 }));
  const label = words.stock + " · " + pile.count;
  const node = el(pile.tap ? "button" : "div", { class: "card stock", id: "stock", "aria-label": label, onclick: pile.tap ? () => act(pile.tap) : null }, back);
  return el("div", { class: "pile" }, node, el("span", { class: "count", text: label }));
}

function meld(m) {
  const label = m.number + ") " + m.owner + " · " + m.value;
  const cards = m.cards.map((c) => cardButton(c, false, "small"));
  return el(m.tap ? "button" : "div", { class: "meld", "data-meld": m.number, "aria-label": label, onclick: m.tap ? () => act(m.tap) : null }, el("span", { class: "number", text: m.number }), ...cards);
}

function choice(c) {
  return el("button", { class: "choice", "aria-label": c.card.label + " → " + c.takes.map((x) => x.label).join(", "), onclick: () => act(c.tap) }, cardButton(c.card, true, "small"), el("span", { text: "→" }), ...c.takes.map((x) => cardButton(x, true, "small")));
}

function turnLine() {
  const s = state;
  clearInterval(ticking);
  let left = s.left;
  const line = () => {
    const time = left === null ? "" : " · " + Math.floor(left / 60) + ":" + String(Math.max(0, left) % 60).padStart(2, "0");
    $("turn").textContent = (s.running ? (s.my_turn ? s.words.your_turn : s.words.waiting) : s.words.over) + (s.my_turn ? time : "");
  };
  line();
  if (left !== null && s.my_turn) ticking = setInterval(() => { left = Math.max(0, left - 1); line(); }, 1000);
}

// --- taps -----------------------------------------------------------------------------------

async function act(tap) {
  if (busy || !state) return;
  busy = true;
  try {
    const data = await api("matches/" + matchId + "/act", { op: tap.op, arg: tap.arg, context: state.context });
    show(data.answer);
    take(data.state);
  } catch (error) {
    show(error.message);
  } finally {
    busy = false;
  }
}

// Drag a card of the hand to a new place: the whole order goes to the bot.
function dragging() {
  const hand = $("hand");
  let held = null;
  let startX = 0;
  hand.addEventListener("pointerdown", (event) => {
    const card = event.target.closest(".card");
    if (!card || !hand.classList.contains("reorder")) return;
    held = card;
    startX = event.clientX;
    dragged = true;
  });
  hand.addEventListener("pointercancel", () => {
    if (held) held.style.transform = "";
    held = null;
    dragged = false;
  });
  hand.addEventListener("pointermove", (event) => {
    if (!held) return;
    if (Math.abs(event.clientX - startX) > 12) held.classList.add("dragged");
    if (held.classList.contains("dragged")) held.style.transform = "translateX(" + (event.clientX - startX) + "px)";
  });
  hand.addEventListener("pointerup", (event) => {
    const card = held;
    held = null;
    dragged = false;
    if (!card || !card.classList.contains("dragged")) {
      if (state) take(state);  // what came meanwhile
      return;
    }
    card.style.transform = "";
    const cards = [...hand.querySelectorAll(".card")];
    const rest = cards.filter((c) => c !== card);
    let index = rest.findIndex((c) => event.clientX < c.getBoundingClientRect().left + c.getBoundingClientRect().width / 2);
    if (index < 0) index = rest.length;
    rest.splice(index, 0, card);
    card.addEventListener("click", (e) => e.stopImmediatePropagation(), { capture: true, once: true });
    act({ op: "or", arg: rest.map((c) => c.dataset.card).join(" ") });
  });
}

// --- live -----------------------------------------------------------------------------------

async function refresh() {
  try {
    take(await api("matches/" + matchId));
  } catch (error) {
    show(error.message);
  }
}

// The live channel: a short ticket opens it (a session never goes in an address); when the
// bot ends it (every few minutes, or once the match is over) a new ticket reopens it.
async function listen() {
  if (live) live.close();
  live = null;
  if (state && !state.running) return;
  let ticket;
  try {
    ticket = (await api("matches/" + matchId + "/ticket", {})).ticket;
  } catch (error) {
    setTimeout(listen, 5000);
    return;
  }
  live = new EventSource("api/matches/" + matchId + "/live?ticket=" + encodeURIComponent(ticket));
  live.addEventListener("changed", () => refresh());
  live.addEventListener("open", () => refresh());
  live.addEventListener("error", () => {
    if (live && live.readyState === EventSource.CLOSED) setTimeout(listen, 1000);
  });
}

async function start() {
  if (tg) {
    tg.ready();
    tg.expand();
  }
  dragging();
  matchId = chosenMatch();
  if (!matchId) return show("?");
  // Telegram's data names who is here now: a session kept from before may be someone else's.
  if ((tg && tg.initData) || !session) {
    if (!(await signIn())) return;
  }
  await refresh();
  listen();
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
}

start();
