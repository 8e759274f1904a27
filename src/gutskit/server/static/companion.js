// Companion mode on a phone (docs/companion.md, "On phones"): the cards are dealt at a real
// table; this phone is the player's fist and chips. Between rounds the dealer says the cards
// are dealt; the declaration is the table's usual sealed one (app.js); at a showdown the
// players in enter their cards with a big card picker (the host may enter any seat's, the
// ghost hand, the community card, or name the winners); the host calls a misdeal or undoes
// the last round. Everything the table may do comes from the server's
// TableView.companion (gutskit.server.companion, on the table driver): nothing is decided here.
import { cardHtml, escapeHtml as esc, handText } from "./cards.js";
import { t, tn } from "./i18n.js";

const RANKS = ["A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2"];
const SUITS = [["s", "♠"], ["h", "♥"], ["d", "♦"], ["c", "♣"]];

let ctx = null; // { S, send, render, toast, ask }
// The card picker: what is being entered (a seat, "ghost" or "community"), the cards picked
// so far and the rank waiting for its suit. Reset when the round changes.
let pick = { round: null, conflicts: 0, target: null, cards: [], rank: null, chosen: false };
let named = { round: null, open: false, high: new Set(), low: new Set(), losers: new Set() };

/** Give the module the app's state and helpers (once, at start). */
export function setup(context) {
  ctx = context;
}

/** A new table view arrived: when this showdown's entries conflicted (the server cleared
 * them all: showdown.conflicts went up), every phone says so in its language. Which card
 * and whose entry is never known here (docs/protocol.md, "Companion mode"). */
export function onTable(previous, next) {
  const before = previous?.companion?.showdown;
  const now = next?.companion?.showdown;
  if (before && now && previous.round === next.round && now.conflicts > before.conflicts) {
    ctx.toast(t("comp_conflict"));
  }
}

const table = () => ctx.S.table;
const room = () => ctx.S.room;
const names = () => table().names;
const nameList = (seats) => seats.map((s) => names()[s]).join(", ");

/** True while the server counts "3, 2, 1" under "1-2-3 drop" (TableView.companion.count):
 * every phone shows the server's number; the fists open when the server opens them. */
export function counting() {
  return ctx?.S?.table?.companion?.count != null;
}

function countHtml() {
  const n = table().companion.count;
  ctx.S.countShown = table().round; // for the end-to-end tests: the count was shown
  return `<div class="comp-count" id="comp-count" role="status" aria-live="assertive" data-count="${n}">${esc(String(n))}</div>`;
}

function needed(target) {
  const rules = room().rules;
  return target === "community" ? 1 : rules.cards_per_hand;
}

/** The companion part of "my area": deal, showdown, host tools. */
export function meHtml() {
  const tab = table();
  const view = tab.companion;
  if (!view) return "";
  const parts = [];
  if (tab.phase === "deal") parts.push(dealHtml(tab, view));
  else if (tab.phase === "declare") {
    if (counting()) parts.push(countHtml());
    else if (view.may_count) {
      parts.push(`<button type="button" class="comp-big" id="comp-count-start" data-round="${tab.round}">${esc(t("comp_count_button"))}</button>`);
    }
    if (ctx.S.seat != null && tab.dealt_in[ctx.S.seat]) {
      parts.push(`<p class="comp-hint" id="comp-look">${esc(t(room().rules.declaration === "drop" ? "comp_look_drop" : "comp_look"))}</p>`);
    }
  } else if (tab.phase === "showdown") {
    parts.push(showdownHtml(tab, view));
  }
  if (ctx.S.host) parts.push(hostHtml(tab, view));
  return `<section class="companion" id="companion" data-phase="${esc(tab.phase)}">${parts.join("")}</section>`;
}

function dealHtml(tab, view) {
  const dealer = names()[tab.dealer];
  const next = tab.round + 1;
  const parts = [];
  parts.push(`<p class="comp-dealer" id="comp-dealer">${esc(t("comp_dealer_deals", { name: dealer, n: next }))}</p>`);
  if (tab.next_antes) {
    const total = tab.next_antes.reduce((a, b) => a + b, 0);
    parts.push(`<p class="hint" id="comp-antes">${esc(tn("comp_antes_due", total, { chips: total }))}</p>`);
  }
  if (view.may_deal) {
    parts.push(`<button type="button" class="primary comp-big" id="comp-dealt" data-round="${next}">${esc(t("comp_dealt_button"))}</button>`);
  } else if (room().status === "playing") {
    parts.push(`<p class="hint" id="comp-wait-dealer">${esc(t("comp_wait_dealer", { name: dealer }))}</p>`);
  }
  return parts.join("");
}

/** Who may this phone enter cards for now: its own seat, or (host) every seat needed and
 * the ghost hand / community card. */
function targets(tab, needs) {
  const me = ctx.S.seat;
  const list = [];
  if (ctx.S.host) { // its own cards first, then the others' from the dealer's left
    if (me != null && needs.seats.includes(me)) list.push(`seat:${me}`);
    for (const seat of needs.seats) if (seat !== me) list.push(`seat:${seat}`);
    if (needs.ghost) list.push("ghost");
    if (needs.community) list.push("community");
  } else if (me != null && needs.seats.includes(me)) list.push(`seat:${me}`);
  return list;
}

function entered(needs, target) {
  if (target === "ghost") return needs.ghost_entered;
  if (target === "community") return needs.community_entered;
  return needs.entered.includes(Number(target.split(":")[1]));
}

function targetName(target) {
  if (target === "ghost") return t("ghost");
  if (target === "community") return t("community");
  return names()[Number(target.split(":")[1])];
}

function myEntry(needs, target) {
  if (target === "ghost") return needs.my_ghost;
  if (target === "community") return needs.my_community;
  const seat = Number(target.split(":")[1]);
  return needs.mine.find((e) => e.seat === seat)?.cards ?? null;
}

function showdownHtml(tab, view) {
  const needs = view.showdown;
  if (!needs) return "";
  const parts = [`<h3 class="comp-title" id="comp-showdown">${esc(t("comp_showdown"))}</h3>`];
  if (needs.conflicts) parts.push(`<p class="comp-conflict" id="comp-conflict" role="alert">${esc(t("comp_conflict"))}</p>`);
  const missing = needs.seats.filter((s) => !needs.entered.includes(s));
  const extras = [needs.ghost && !needs.ghost_entered ? t("ghost") : null,
    needs.community && !needs.community_entered ? t("community") : null].filter(Boolean);
  const waiting = [...missing.map((s) => names()[s]), ...extras];
  if (waiting.length) parts.push(`<p class="hint" id="comp-waiting">${esc(t("comp_waiting_cards", { names: waiting.join(", ") }))}</p>`);
  if (needs.entered.length) parts.push(`<p class="hint" id="comp-entered">${esc(t("comp_entered", { names: nameList(needs.entered) }))}</p>`);
  const list = targets(tab, needs);
  // What to enter next: the first entry still missing, unless the player chose one (to
  // correct it) or is in the middle of one.
  // after a conflict every entry is cleared: start again from this phone's first target
  // (the host's own cards), never from whichever seat the picker had moved on to
  const stale = pick.round !== tab.round || pick.conflicts !== needs.conflicts
    || !list.includes(pick.target)
    || (!pick.chosen && !pick.cards.length && entered(needs, pick.target));
  if (stale) {
    const first = list.find((x) => !entered(needs, x)) ?? list[0] ?? null;
    pick = { round: tab.round, conflicts: needs.conflicts, target: first, cards: [], rank: null, chosen: false };
  }
  if (list.length > 1) {
    parts.push(`<p class="comp-row-label" id="comp-targets-label">${esc(t("comp_enter_for"))}</p>`);
    parts.push(`<div class="comp-targets" role="group" aria-label="${esc(t("comp_enter_for"))}">${list.map((x) => `<button type="button"
      class="comp-target${x === pick.target ? " chosen" : ""}${entered(needs, x) ? " done" : ""}" data-comp-target="${esc(x)}">${esc(targetName(x))}${entered(needs, x) ? " ✓" : ""}</button>`).join("")}</div>`);
  }
  if (pick.target) parts.push(pickerHtml(needs));
  if (ctx.S.host) parts.push(winnersHtml(tab, needs));
  return parts.join("");
}

function pickerHtml(needs) {
  const target = pick.target;
  const k = needed(target);
  const mine = myEntry(needs, target);
  const own = target === `seat:${ctx.S.seat}`;
  const title = own ? t("comp_show_yours")
    : target.startsWith("seat:") ? t("comp_show_for", { name: targetName(target) }) : targetName(target);
  const slots = [];
  for (let i = 0; i < k; i += 1) {
    const card = pick.cards[i];
    slots.push(card
      ? `<button type="button" class="comp-slot filled" data-comp-remove="${i}" aria-label="${esc(t("comp_remove"))}">${cardHtml(card, "big")}</button>`
      : `<span class="comp-slot empty" aria-hidden="true">${i + 1}</span>`);
  }
  const full = pick.cards.length >= k;
  const taken = new Set(pick.cards);
  const ranks = RANKS.map((r) => `<button type="button" class="comp-rank${pick.rank === r ? " chosen" : ""}" data-comp-rank="${r}"${full ? " disabled" : ""}>${r === "T" ? "10" : r}</button>`).join("");
  const suits = SUITS.map(([s, symbol]) => `<button type="button" class="comp-suit ${s === "h" || s === "d" ? "red" : "black"}" data-comp-suit="${s}" aria-label="${esc(t(`suit.${s}`))}"${
    !pick.rank || full || taken.has(pick.rank + s) ? " disabled" : ""}>${symbol}</button>`).join("");
  return `<div class="comp-picker" id="comp-picker" data-target="${esc(target)}">
    <h4>${esc(title)}</h4>
    ${mine ? `<p class="hint" id="comp-mine">${esc(t("comp_you_entered", { cards: handText(mine) }))}</p>` : ""}
    <div class="comp-slots" id="comp-slots">${slots.join("")}</div>
    <div class="comp-ranks" role="group" aria-label="${esc(t("comp_pick_rank"))}">${ranks}</div>
    <div class="comp-suits" role="group" aria-label="${esc(t("comp_pick_suit"))}">${suits}</div>
    <div class="comp-actions">
      <button type="button" class="primary comp-big" id="comp-send"${full && ctx.S.status === "open" ? "" : " disabled"}>${esc(t("comp_send"))}</button>
      <button type="button" id="comp-clear"${pick.cards.length ? "" : " disabled"}>${esc(t("comp_clear"))}</button>
    </div></div>`;
}

/** The host names the winners instead of entering cards (Hi-Lo: each side; single loser:
 * the worst hand too). The candidates are the seats the showdown is about. */
function winnersHtml(tab, needs) {
  if (named.round !== tab.round) named = { round: tab.round, open: false, high: new Set(), low: new Set(), losers: new Set() };
  const rules = room().rules;
  const everyone = needs.in_seats.length ? needs.in_seats : needs.seats;
  // Hi-Lo: each side's candidates are the seats that declared it or both (the server says)
  const candidates = (key) => (rules.hi_lo && key === "high" ? needs.high_seats
    : rules.hi_lo && key === "low" ? needs.low_seats : everyone);
  const group = (key, label) => `<div class="comp-group" role="group" aria-label="${esc(label)}"><span class="label">${esc(label)}</span>
    ${candidates(key).map((s) => `<button type="button" class="comp-name${named[key].has(s) ? " chosen" : ""}" data-comp-name="${key}:${s}" aria-pressed="${named[key].has(s)}">${esc(names()[s])}</button>`).join("")}</div>`;
  const groups = [];
  if (!rules.hi_lo || needs.high_seats.length) groups.push(group("high", rules.hi_lo ? t("comp_high_winners") : t("comp_winners")));
  if (rules.hi_lo && needs.low_seats.length) groups.push(group("low", t("comp_low_winners")));
  if (rules.losers_pay === "worst") groups.push(group("losers", t("comp_losers")));
  const ghostNote = needs.ghost ? `<p class="hint">${esc(t("comp_ghost_won_hint"))}</p>` : "";
  return `<details class="comp-winners" id="comp-winners"${named.open ? " open" : ""}><summary>${esc(t("comp_name_winners"))}</summary>
    ${groups.join("")}${ghostNote}
    <button type="button" class="primary" id="comp-confirm-winners">${esc(t("comp_confirm_winners"))}</button></details>`;
}

function hostHtml(tab, view) {
  const buttons = [];
  if (view.may_misdeal) buttons.push(`<button type="button" class="danger" id="comp-misdeal">${esc(t("comp_misdeal"))}</button>`);
  if (view.may_undo) buttons.push(`<button type="button" id="comp-undo">${esc(t("comp_undo", { n: tab.round }))}</button>`);
  return buttons.length ? `<div class="comp-host" id="comp-host">${buttons.join("")}</div>` : "";
}

function sendCards() {
  const tab = table();
  const target = pick.target;
  const message = { type: "show_cards", round: tab.round };
  if (target === "ghost") message.ghost = pick.cards;
  else if (target === "community") message.community = pick.cards;
  else {
    message.seat = Number(target.split(":")[1]);
    message.cards = pick.cards;
  }
  if (ctx.send(message)) pick = { ...pick, cards: [], rank: null, target: null, chosen: false };
}

/** Bind the companion buttons (after each render). */
export function bind() {
  const on = (id, handler) => { const el = document.getElementById(id); if (el) el.onclick = handler; };
  const S = ctx.S;
  on("comp-count-start", (event) => ctx.send({ type: "count", round: Number(event.currentTarget.dataset.round) }));
  on("comp-dealt", (event) => ctx.send({ type: "deal", round: Number(event.currentTarget.dataset.round) }));
  on("comp-misdeal", async () => { // the round asked about, not one dealt meanwhile
    const round = S.table.round;
    if (await ctx.ask(t("comp_confirm_misdeal"), t("comp_misdeal"))) ctx.send({ type: "misdeal", round });
  });
  on("comp-undo", async () => {
    const round = S.table.round;
    if (await ctx.ask(t("comp_confirm_undo", { n: round }), t("comp_undo", { n: round }))) ctx.send({ type: "undo_round", round });
  });
  on("comp-send", sendCards);
  on("comp-clear", () => { pick = { ...pick, cards: [], rank: null }; ctx.render(); });
  on("comp-confirm-winners", () => {
    const message = { type: "name_winners", round: S.table.round, winners: [...named.high], low_winners: [...named.low] };
    if (S.room.rules.losers_pay === "worst") message.losers = [...named.losers];
    ctx.send(message);
  });
  const details = document.getElementById("comp-winners");
  if (details) details.ontoggle = () => { named.open = details.open; };
  for (const el of document.querySelectorAll("[data-comp-target]")) {
    el.onclick = () => { pick = { ...pick, target: el.dataset.compTarget, cards: [], rank: null, chosen: true }; ctx.render(); };
  }
  for (const el of document.querySelectorAll("[data-comp-rank]")) {
    el.onclick = () => { pick = { ...pick, rank: el.dataset.compRank }; ctx.render(); };
  }
  for (const el of document.querySelectorAll("[data-comp-suit]")) {
    el.onclick = () => {
      if (!pick.rank) return;
      const card = pick.rank + el.dataset.compSuit;
      if (!pick.cards.includes(card) && pick.cards.length < needed(pick.target)) pick = { ...pick, cards: [...pick.cards, card], rank: null };
      ctx.render();
    };
  }
  for (const el of document.querySelectorAll("[data-comp-remove]")) {
    el.onclick = () => { pick = { ...pick, cards: pick.cards.filter((_, i) => i !== Number(el.dataset.compRemove)) }; ctx.render(); };
  }
  for (const el of document.querySelectorAll("[data-comp-name]")) {
    el.onclick = () => {
      const [key, seat] = el.dataset.compName.split(":");
      const set = named[key];
      if (set.has(Number(seat))) set.delete(Number(seat));
      else set.add(Number(seat));
      ctx.render();
    };
  }
}
