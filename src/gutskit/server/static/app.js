// The gutskit browser table: lobby (create a room), room (join, seats, host controls),
// the table (sealed declaration, countdown, simultaneous reveal, showdown), ledger, hand
// log, rules. Speaks the WebSocket protocol of docs/protocol.md (version 5). No build step.
import { cardHtml, backHtml, escapeHtml as esc, handHtml, handText } from "./cards.js";
import { LANGUAGES, endReason, has, language, pickLanguage, setLanguage, t, tn } from "./i18n.js";
import { Connection } from "./net.js";
import { play, played, setSound, soundOn, unlock } from "./sound.js";
import * as companion from "./companion.js";

// docs/protocol.md: one frame (a JSON array of messages) per change; after the first
// table view, only what changed in it ("patch"); version 4: no fairness "opening" pushed
// (the table never shows it; fairness.json, the download, has them)
const PROTOCOL = 5;
// The bots a host may seat, by style and strength (protocol.BotStyle): "standard" is the
// rule-of-thumb bot's wire value, shown as its i18n label bot.standard ("rule of thumb").
const BOT_STYLES = ["equilibrium", "standard", "exploitative", "cautious", "loose"];
const KEYS = { in: "i", out: "o", high: "h", low: "l", both: "b" };
const REVEAL_MS = 1400; // the fists open, then the showdown hands turn over
// The emoji reactions the server takes (protocol.REACTIONS) and the chat line's length.
const REACTIONS = ["👍", "👏", "😂", "😮", "😢", "🔥", "🍀", "🙈"];
const MAX_CHAT = 200;
const REACTION_MS = 4000; // a reaction shows beside its seat this long

const S = {
  roomId: null,
  token: null,
  seat: null,
  host: false,
  room: null,
  table: null,
  events: [],
  historyLoaded: false,
  deadline: null,
  revealAt: 0,
  revealRound: null,
  roundDealer: null, // {round, seat}: the dealer of the round being played (setTable)
  ledger: null,
  rulesMeta: null,
  hands: new Map(),
  commitments: {},
  seeded: new Set(),
  conn: null,
  status: "connecting",
  statuses: [],
  kicked: false,
  noRoom: false,
  sent: new Map(),
  actionPrefix: Math.random().toString(36).slice(2, 8),
  actionCount: 0,
  timedOut: {}, // round -> seats the declaration timer counted out ("timeout" messages)
  frozenLeft: null, // seconds left on the countdown when the connection dropped
  coach: localStorage.getItem("gutskit.coach") === "1", // the "Coach" switch
  advice: null, // the last "coach" message (docs/protocol.md)
  chat: [], // chat lines and reactions ("chat" messages), oldest first
  reactions: {}, // seat -> { emoji, at } (shown beside the seat for REACTION_MS)
  request: null, // our seat request waiting for the host or the next session ("seat_pending")
  askToken: null, // its token: after a server restart our hello takes the request back
  chair: null, // the free chair picked in the seat picker (0-9; null: the lowest free)
};
const CHAIRS = 10; // chairs around a table, 0-9 clockwise (protocol.SEATS)

const $ = (selector) => document.querySelector(selector);

// ---------------------------------------------------------------------------------------
// Start.

async function main() {
  await setLanguage(pickLanguage());
  renderLanguageSwitch();
  renderCoachSwitch();
  renderSoundSwitch();
  const match = location.pathname.match(/^\/r\/([A-Za-z0-9_-]+)\/?$/);
  if (match) startRoom(match[1]);
  else startHome(location.pathname.startsWith("/r/") ? location.pathname : null);
  document.addEventListener("keydown", onKey);
  setInterval(tick, 200);
}

function renderLanguageSwitch() {
  const select = $("#lang");
  select.innerHTML = Object.entries(LANGUAGES)
    .map(([code, name]) => `<option value="${code}"${code === language() ? " selected" : ""}>${name}</option>`)
    .join("");
  select.onchange = async () => {
    await setLanguage(select.value, true);
    translateStatic();
    if (S.roomId) {
      for (const el of document.querySelectorAll("[data-html]")) el.dataset.html = "";
      renderRoom();
    } else startHome();
  };
  translateStatic();
}

/** The sound switch (sound.js): off by default on phones, remembered. */
function renderSoundSwitch() {
  const box = $("#sound");
  box.checked = soundOn();
  box.onchange = () => setSound(box.checked);
  document.addEventListener("pointerdown", unlock, { once: true }); // audio needs a gesture
}

function renderCoachSwitch() {
  const box = $("#coach");
  box.checked = S.coach;
  box.onchange = () => {
    S.coach = box.checked;
    localStorage.setItem("gutskit.coach", S.coach ? "1" : "0");
    if (S.roomId) renderRoom();
  };
}

/** The coach's advice on this round's hand as plain text ("" when there is none to show). */
function coachText() {
  const a = S.advice;
  if (!S.coach || !a || !S.table || a.round !== S.table.round) return "";
  const hand = handText(a.hand);
  if (a.in_probability == null) return t("coach_none", { hand, note: a.note });
  let ev = "?";
  if (a.ev != null) {
    ev = decimals(a.ev, 3, true);
    if (!a.exact && a.ev_se != null) ev += ` ± ${decimals(a.ev_se, 3)}`;
  }
  return t("coach_advice", { hand, p: decimals(100 * a.in_probability, 1), ev });
}

/** `x` with `digits` decimals in the page language's number format ("1,493" in German);
 * `sign`: "+" before a positive number too. */
function decimals(x, digits, sign = false) {
  return new Intl.NumberFormat(language(), {
    minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false,
    signDisplay: sign ? "exceptZero" : "auto",
  }).format(x);
}

function translateStatic() {
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  document.title = S.roomId ? `${t("room")} · gutskit` : "gutskit";
}

/** Replace `el`'s HTML only when it changed; keep the focus on an element with an id.
 * An element with an id that is the same as before (its HTML, attributes and children
 * alike) is kept, not replaced by its copy: a button pressed while a frame re-renders its
 * panel is still the one under the pointer at the release, so the click is made (the press
 * on the old button and the release on its copy made no click: a join lost in CI). */
function patch(el, html) {
  if (!el || el.dataset.html === html) return;
  const focused = document.activeElement;
  const focusId = focused && el.contains(focused) ? focused.id : null;
  const fresh = document.createElement("template");
  fresh.innerHTML = html;
  for (const node of fresh.content.querySelectorAll("[id]")) {
    const old = el.querySelector(`#${CSS.escape(node.id)}`); // (none once moved with a kept parent)
    if (old && old.outerHTML === node.outerHTML) node.replaceWith(old);
  }
  el.replaceChildren(fresh.content);
  el.dataset.html = html;
  // The Content-Security-Policy allows no inline style attribute: positions are set here.
  el.querySelectorAll("[data-x]").forEach((node) => {
    node.style.setProperty("--x", `${node.dataset.x}%`);
    node.style.setProperty("--y", `${node.dataset.y}%`);
  });
  if (focusId) document.getElementById(focusId)?.focus();
}

/** Render `el` as `shell` (HTML with empty `<div data-part="NAME"></div>` slots, replaced
 * only when it changed) and patch each slot with `parts[NAME]` on its own: a part that did
 * not change keeps its elements. So a frame that changes one part (a seat's presence dot,
 * the rules' words, a seat joining) never replaces a button of another part under the
 * pointer: a click whose press and release straddle such a re-render was lost (the press
 * on the old button, the release on its copy: no click; e2e, session 6 and 11). */
function patchParts(el, shell, parts) {
  if (!el) return;
  if (el.dataset.shell !== shell) {
    el.innerHTML = shell;
    el.dataset.shell = shell;
    delete el.dataset.html;
  }
  for (const slot of el.querySelectorAll("[data-part]")) patch(slot, parts[slot.dataset.part] ?? "");
}

function toast(text, kind = "error") {
  const box = $("#toast");
  box.textContent = text;
  box.className = `toast show ${kind}`;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.className = "toast"; }, 4500);
}

/** Ask before what cannot be undone (end the session, remove a seat, leave the table, a
 * companion's misdeal or undo): a dialog in the page, in the app's style (the page's
 * Content-Security-Policy allows no inline script or style). Escape or Cancel answers no.
 * `text`: the question; `okLabel`: the confirming button's words. Resolves to true when
 * confirmed; false at once while another question is open. */
function ask(text, okLabel) {
  let box = document.getElementById("confirm");
  if (!box) {
    box = document.createElement("dialog");
    box.id = "confirm";
    box.className = "confirm";
    box.setAttribute("aria-labelledby", "confirm-text");
    box.innerHTML = `<p id="confirm-text"></p><form method="dialog" class="confirm-buttons">
      <button type="submit" value="no" id="confirm-cancel"></button>
      <button type="submit" value="yes" id="confirm-ok" class="danger"></button></form>`;
    document.body.append(box);
  }
  if (box.open) return Promise.resolve(false);
  box.querySelector("#confirm-text").textContent = text;
  box.querySelector("#confirm-cancel").textContent = t("cancel");
  box.querySelector("#confirm-ok").textContent = okLabel;
  box.returnValue = "";
  return new Promise((resolve) => {
    box.addEventListener("close", () => resolve(box.returnValue === "yes"), { once: true });
    box.showModal();
    box.querySelector("#confirm-cancel").focus(); // Enter does not end anything by mistake
  });
}

function errorText(code, message) {
  if (code === "seat_taken" || code === "already_asked") return t(`err.${code}`); // chairs are shown 1-10
  return has(`err.${code}`) ? `${t(`err.${code}`)} (${message})` : message;
}

async function getJson(url, options) {
  const response = await fetch(url, options);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(data.message || data.detail || response.statusText);
    error.code = data.code;
    throw error;
  }
  return data;
}

// ---------------------------------------------------------------------------------------
// Home: create a room.

/** The home page; `badLink`: a room link that is not one (said at the link form). */
async function startHome(badLink = null) {
  const main = $("#main");
  if (!S.rulesMeta) {
    try {
      S.rulesMeta = await getJson("/api/rules");
    } catch (error) {
      main.innerHTML = `<p class="panel">${esc(error.message)}</p>`;
      return;
    }
  }
  const meta = S.rulesMeta;
  const presets = Object.entries(meta.presets)
    .map(([name, p]) => `<option value="${esc(name)}">${esc(name)} — ${esc(p.description)}</option>`)
    .join("");
  const savedName = localStorage.getItem("gutskit.name") || "";
  main.innerHTML = `
  <section class="home">
    <div class="hero">
      <h1>${esc(t("home_title"))}</h1>
      <p>${esc(t("home_intro"))}</p>
    </div>
    <form id="create" class="panel create" novalidate>
      <h2>${esc(t("create_room"))}</h2>
      <label>${esc(t("your_name"))}
        <input id="host-name" name="host_name" required maxlength="24" autocomplete="nickname" value="${esc(savedName)}"></label>
      <label>${esc(t("preset"))}
        <select id="preset" name="preset">${presets}</select></label>
      <div class="row3">
        <label>${esc(t("buy_in"))}<input id="buy-in" type="number" min="1" max="${meta.max_chips}" value="100" required></label>
        <label>${esc(t("decision_seconds"))}<input id="decision-seconds" type="number" min="1" max="600" step="1" value="30" required></label>
        <label>${esc(t("reveal_seconds"))}<input id="reveal-seconds" type="number" min="0" max="60" step="0.5" value="3" required></label>
      </div>
      <label class="companion-switch"><input type="checkbox" id="companion-mode">
        <span><strong>${esc(t("comp_switch"))}</strong><small>${esc(t("comp_switch_help"))}</small></span></label>
      <label class="companion-switch"><input type="checkbox" id="approve-seats">
        <span><strong>${esc(t("approve_switch"))}</strong><small>${esc(t("approve_switch_help"))}</small></span></label>
      <label>${esc(t("seed_reveal"))}
        <select id="seed-reveal"><option value="shown">${esc(t("seed_shown"))}</option>
        <option value="round">${esc(t("seed_round"))}</option>
        <option value="session">${esc(t("seed_session"))}</option></select></label>
      <details class="house-rules">
        <summary>${esc(t("house_rules"))}</summary>
        <div id="rule-fields" class="rule-fields"></div>
      </details>
      <p id="create-error" class="error" role="alert"></p>
      <button id="create-button" class="primary" type="submit">${esc(t("create_button"))}</button>
    </form>
    <form id="open-room" class="panel">
      <h2>${esc(t("have_link"))}</h2>
      <label>${esc(t("room_link"))}<input id="room-link" placeholder="http://…/r/…"></label>
      <p id="link-error" class="error" role="alert"></p>
      <button type="submit">${esc(t("open_room"))}</button>
    </form>
  </section>`;
  const presetSelect = $("#preset");
  presetSelect.value = "default" in meta.presets ? "default" : presetSelect.value;
  const fill = () => renderRuleFields(meta.presets[presetSelect.value]?.rules ?? {});
  presetSelect.onchange = fill;
  fill();
  $("#create").onsubmit = (event) => { event.preventDefault(); createRoom(); };
  $("#companion-mode").onchange = (event) => { // no timer, no deck at a real table
    for (const id of ["#decision-seconds", "#reveal-seconds", "#seed-reveal"]) {
      $(id).closest("label").hidden = event.target.checked;
    }
  };
  const linkError = $("#link-error");
  if (badLink) {
    linkError.textContent = t("bad_link", { link: badLink });
    $("#open-room").scrollIntoView({ block: "center" });
  }
  $("#open-room").onsubmit = (event) => {
    event.preventDefault();
    const text = $("#room-link").value.trim();
    const m = text.match(/\/r\/([A-Za-z0-9_-]+)\/?$/) || text.match(/^([A-Za-z0-9_-]+)$/);
    if (m) location.href = `/r/${m[1]}`;
    else linkError.textContent = t("bad_link", { link: text });
  };
}

function renderRuleFields(values) {
  const meta = S.rulesMeta;
  const rows = Object.entries(meta.rules).map(([name, info]) => {
    const value = values[name] ?? info.default;
    const id = `rule-${name}`;
    const label = `<span class="rule-name">${esc(ruleLabel(name))}</span>`;
    const help = `<small id="${id}-help">${esc(info.description || "")}</small>`;
    let input;
    if (meta.choices?.[name]) {
      input = `<select id="${id}" data-rule="${name}" aria-describedby="${id}-help">${meta.choices[name]
        .map((c) => `<option value="${esc(JSON.stringify(c))}"${c === value ? " selected" : ""}>${esc(ruleValue(name, c))}</option>`)
        .join("")}</select>`;
    } else if (typeof info.default === "boolean") {
      input = `<input type="checkbox" id="${id}" data-rule="${name}" aria-describedby="${id}-help"${value ? " checked" : ""}>`;
    } else {
      const min = ["ante", "pot_cap", "min_buy_in"].includes(name) ? 1 : 0; // the server refuses less
      input = `<input type="number" min="${min}" id="${id}" data-rule="${name}" aria-describedby="${id}-help" value="${value ?? ""}" placeholder="${esc(t("none"))}">`;
    }
    return `<label class="rule" for="${id}">${label}${input}${help}</label>`;
  });
  $("#rule-fields").innerHTML = rows.join("");
}

function ruleLabel(name) {
  return has(`rule.${name}`) ? t(`rule.${name}`) : name.replaceAll("_", " ");
}

/** A rule's value in words (static/i18n: `rule.<key>.<value>` for the rules that take one
 * of a few values, `rule_yes` / `rule_no` for switches, `none` for no value, else the
 * number); tests/test_web.py checks every rule of core/rules.py has its words. */
function ruleValue(name, value) {
  if (value === null || value === undefined) return t("none");
  if (typeof value === "boolean") return t(value ? "rule_yes" : "rule_no");
  return has(`rule.${name}.${value}`) ? t(`rule.${name}.${value}`) : String(value);
}

/** A whole number typed with more digits than a JavaScript number holds exactly (beyond
 * 2^53): kept as its digits, so that the server reads (and, past its limit, quotes) what was
 * typed (fresh8: a buy-in of 20 nines was sent as 100000000000000000000). */
class TypedDigits {
  constructor(digits) { this.digits = digits; }
}

/** A number field's value: a Number, or its TypedDigits when a JavaScript number would
 * round it. */
function typedNumber(text) {
  const value = Number(text);
  return /^[0-9]+$/.test(text) && !Number.isSafeInteger(value) ? new TypedDigits(text) : value;
}

/** JSON text of `value`, every TypedDigits written as its digits (a JSON number). */
function exactJson(value) {
  const digits = [];
  const marked = JSON.stringify(value, (key, item) =>
    item instanceof TypedDigits ? `\u0000${digits.push(item.digits) - 1}\u0000` : item);
  return marked.replace(/"\\u0000(\d+)\\u0000"/g, (whole, index) => digits[Number(index)]);
}

function collectRules() {
  const preset = $("#preset").value;
  const base = S.rulesMeta.presets[preset]?.rules ?? {};
  const rules = { preset };
  for (const el of document.querySelectorAll("[data-rule]")) {
    const name = el.dataset.rule;
    let value;
    if (el.tagName === "SELECT") value = JSON.parse(el.value);
    else if (el.type === "checkbox") value = el.checked;
    else value = el.value === "" ? null : typedNumber(el.value);
    if (JSON.stringify(value) !== JSON.stringify(base[name] ?? S.rulesMeta.rules[name].default)) {
      rules[name] = value;
    }
  }
  return rules;
}

async function createRoom() {
  const name = $("#host-name").value.trim();
  const problem = $("#create-error");
  if (!name) {
    problem.textContent = t("need_name");
    $("#host-name").focus();
    return;
  }
  const body = {
    host_name: name,
    rules: collectRules(),
    buy_in: typedNumber($("#buy-in").value),
    decision_seconds: Number($("#decision-seconds").value),
    reveal_seconds: Number($("#reveal-seconds").value),
    seed_reveal: $("#seed-reveal").value,
  };
  if ($("#companion-mode").checked) body.companion = true; // a real table deals
  if ($("#approve-seats").checked) body.approve_seats = true; // the host approves who sits down
  $("#create-button").disabled = true;
  try {
    const created = await getJson("/api/rooms", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: exactJson(body),
    });
    localStorage.setItem("gutskit.name", name);
    localStorage.setItem(tokenKey(created.room_id), created.token);
    location.href = `/r/${created.room_id}`;
  } catch (error) {
    problem.textContent = errorText(error.code, error.message);
    $("#create-button").disabled = false;
  }
}

// ---------------------------------------------------------------------------------------
// Room: connection and messages.

const tokenKey = (roomId) => `gutskit.seat.${roomId}`;
const askKey = (roomId) => `gutskit.ask.${roomId}`;

/** Our seat request is answered (seated, refused, gone): forget its token. */
function forgetAsk() {
  S.askToken = null;
  localStorage.removeItem(askKey(S.roomId));
}

function startRoom(roomId) {
  S.roomId = roomId;
  S.token = localStorage.getItem(tokenKey(roomId));
  S.askToken = localStorage.getItem(askKey(roomId));
  translateStatic();
  $("#main").innerHTML = `
  <section class="room" id="room">
    <div id="banner" class="banner" role="status" aria-live="polite"></div>
    <div id="lobby"></div>
    <div id="play" class="play" hidden>
      <div class="table-col">
        <div class="felt" id="felt">
          <div id="seats" class="seats"></div>
          <div id="center" class="center" aria-live="polite"></div>
        </div>
        <div id="me" class="my-area"></div>
      </div>
      <aside class="side">
        <div id="sit-panel"></div>
        <div id="host-panel"></div>
        <details class="panel" id="ledger-panel" open><summary data-i18n="ledger">${esc(t("ledger"))}</summary><div id="ledger"></div></details>
        <details class="panel" id="log-panel" open><summary data-i18n="hand_log">${esc(t("hand_log"))}</summary><ol id="log" class="log" reversed></ol></details>
        <details class="panel" id="rules-panel"><summary data-i18n="rules_summary">${esc(t("rules_summary"))}</summary><div id="rules"></div></details>
      </aside>
    </div>
    <section class="panel chat" id="chat-panel" aria-labelledby="chat-title">
      <h3 id="chat-title" data-i18n="chat">${esc(t("chat"))}</h3>
      <ol id="chat-log" class="chat-log" aria-live="polite"></ol>
      <div id="chat-controls"></div>
    </section>
  </section>`;
  S.conn = new Connection(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/${roomId}`, {
    hello: () => ({ type: "hello", protocol: PROTOCOL, token: S.token || S.askToken }),
    onMessage,
    onFrame: () => { // once per frame, after all of its messages
      if (S.ledgerDue) { S.ledgerDue = false; loadLedger(); } // stacks moved: the ledger too
      renderRoom();
    },
    onStatus: (status) => {
      // While disconnected the countdown stops (the welcome after the reconnect sets it).
      if (status !== "open" && S.deadline != null && S.frozenLeft == null) {
        S.frozenLeft = Math.max(0, (S.deadline - performance.now()) / 1000);
      }
      S.status = status;
      S.statuses.push(status);
      renderRoom();
    },
  });
  S.conn.open();
  companion.setup({ S, send, render: renderRoom, toast, ask });
  getJson("/api/rules").then((meta) => { S.rulesMeta = meta; renderRoom(); }).catch(() => {});
  window.gutskit = { state: S, drop: () => S.conn.drop(), sounds: played, patch }; // for the end-to-end tests
}

function onMessage(m) {
  switch (m.type) {
    case "welcome":
      S.seat = m.seat;
      S.host = m.host;
      S.room = m.room;
      setTable(m.table);
      S.chat = m.chat || [];
      S.chatShown = null;
      S.request = null; // a request lives with its connection (a reconnect asks again);
      // after a server restart our hello took it back ("seat_pending" follows), or the
      // host granted it meanwhile: its token is our seat's now
      if (m.seat != null && S.askToken && !S.token) {
        S.token = S.askToken;
        localStorage.setItem(tokenKey(S.roomId), S.token);
      }
      if (m.seat != null) forgetAsk();
      loadHistory();
      loadLedger();
      break;
    case "seated":
      S.seat = m.seat;
      S.token = m.token;
      S.request = null;
      localStorage.setItem(tokenKey(S.roomId), m.token);
      forgetAsk();
      sendClientSeed();
      break;
    case "room": {
      const before = S.room?.status;
      S.room = m.room;
      if (S.seat != null && m.room.status !== "lobby" && m.room.seats[S.seat]?.kicked) {
        // Our seat left the table (leave) or was removed: we watch from now on.
        S.seat = null;
        S.token = null;
        localStorage.removeItem(tokenKey(S.roomId));
      }
      if (before !== m.room.status) loadLedger();
      break;
    }
    case "presence": // who is connected (the rest of the room is unchanged)
      if (S.room) {
        S.room = { ...S.room, spectators: m.spectators,
          seats: S.room.seats.map((seat, i) => ({ ...seat, connected: m.connected[i] ?? seat.connected })) };
      }
      break;
    case "state":
      setTable(m.table);
      break;
    case "patch": // protocol 3: the fields of our table that changed (a merge patch)
      if (S.table) setTable({ ...S.table, ...m.table }, !("time_left" in m.table));
      break;
    case "event":
      addEvent(m.seq, m.event);
      break;
    case "commitment":
      S.commitments[m.round] = { commitment: m.commitment, seed: S.commitments[m.round]?.seed ?? null };
      S.nextCommitted = Math.max(S.nextCommitted ?? 0, m.round);
      sendClientSeed();
      break;
    case "reveal":
      S.commitments[m.round] = { commitment: m.commitment, seed: m.seed };
      break;
    case "session": // the commitment to the session header (docs/fairness.md)
      S.sessionHash = m.hash;
      break;
    case "ack":
      S.sent.delete(m.action_id);
      break;
    case "timeout":
      S.timedOut[m.round] = m.seats;
      break;
    case "coach":
      S.advice = m;
      break;
    case "chat":
      if (!S.chat.some((c) => c.seq === m.seq)) S.chat.push(m);
      if (S.chat.length > 200) S.chat.splice(0, S.chat.length - 200);
      if (m.emoji) {
        S.reactions[m.seat] = { emoji: m.emoji, at: performance.now() };
        setTimeout(renderRoom, REACTION_MS + 50);
      }
      break;
    case "seat_pending": // our request waits for the host, or for the next session
      S.request = m;
      if (m.token) {
        S.askToken = m.token;
        localStorage.setItem(askKey(S.roomId), m.token);
      }
      break;
    case "seat_refused":
      S.request = null;
      forgetAsk();
      toast(t("seat_refused"), "info");
      break;
    case "rematch": // the host opened the next session in a new room: everyone goes there
      followRematch(m);
      break;
    case "kicked":
      S.seat = null;
      S.host = false;
      S.token = null;
      S.kicked = true;
      localStorage.removeItem(tokenKey(S.roomId));
      toast(t("you_were_kicked"), "info");
      break;
    case "error":
      onError(m);
      break;
    default:
      break;
  }
}

// Our randomness for the next deal (seed_reveal "shown", docs/fairness.md): one fresh
// seed per committed round, sent after its commitment; the server mixes it into the deal.
function sendClientSeed() {
  const round = S.nextCommitted;
  if (S.seat == null || !round || S.seeded.has(round) || S.room?.seed_reveal !== "shown") return;
  if (S.room?.status === "over") return;
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const seed = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  S.seeded.add(round);
  S.conn.send({ type: "client_seed", round, seed });
}

/** Go to the rematch's room with our seat's token (the same token is valid there; a
 * granted request brings its own new token). */
function followRematch(m) {
  const token = m.token || (S.seat != null ? S.token : null);
  if (token) localStorage.setItem(tokenKey(m.room_id), token);
  forgetAsk();
  S.conn.stop();
  location.href = `/r/${m.room_id}`;
}

function onError(m) {
  // A client seed that came too late or twice (another tab): the deal goes on without it.
  if (m.code === "already_seeded" || (m.code === "stale_round" && !m.action_id)) return;
  if (m.code === "bad_token") {
    // The seat was revoked or belongs to another room: watch instead. (A seat request's
    // token after our connection closed: the request went with it, as it always did.)
    const seatLost = S.token != null;
    S.token = null;
    localStorage.removeItem(tokenKey(S.roomId));
    forgetAsk();
    S.conn.send({ type: "hello", protocol: PROTOCOL, token: null });
    if (seatLost) toast(t("seat_lost"), "info");
    return;
  }
  if (m.code === "no_room" || m.code === "room_closed" || m.code === "room_set_aside") {
    S.noRoom = m.code; // the banner says which; the connection is not retried
    S.conn.stop();
    return;
  }
  if (m.action_id) S.sent.delete(m.action_id);
  if (m.code === "stale_round") return; // a late click; the state that follows is the truth
  // companion: the entries conflicted; every phone says so from its state (setTable), in
  // its own language, naming no card (the server's English message adds nothing)
  if (m.code === "entries_conflict") { toast(t("comp_conflict")); return; }
  toast(errorText(m.code, m.message));
}

/** Take `table` as ours; `keepClock`: a patch that did not set the clock again (the
 * countdown goes on to the deadline we have). */
function setTable(table, keepClock = false) {
  const previous = S.table;
  if (table?.my_turn && !(previous?.my_turn && previous.round === table.round)) play("turn");
  S.table = table;
  if (!keepClock) {
    S.deadline = table && table.time_left != null ? performance.now() + table.time_left * 1000 : null;
    S.frozenLeft = null;
  }
  if (!table) return;
  if (previous && previous.round !== table.round) S.revealRound = null;
  // The dealer of the round being played: the table's moves to the next dealer when the
  // round is resolved; the badge stays with this one while its result is on the table.
  if (table.phase !== "deal" && table.phase !== "over") S.roundDealer = { round: table.round, seat: table.dealer };
  if (S.room?.companion) companion.onTable(previous, table);
  const wanted = [];
  if (table.hand?.length) wanted.push(table.hand.join(" "));
  const result = table.last_result;
  if (result?.shown) {
    const extra = result.community ? ` ${result.community}` : "";
    for (const hand of result.shown) if (hand) wanted.push(hand + extra);
  }
  if (result?.ghost) wanted.push(result.ghost + (result.community ? ` ${result.community}` : ""));
  describeHands(wanted);
}

function addEvent(seq, event) {
  const gap = S.historyLoaded && seq > S.events.length;
  if (!S.events[seq]) { // news, not a reload: the reveal, a win of yours
    if (event.type === "DeclarationsRevealed") play("reveal");
    if (event.type === "RoundResolved" && S.seat != null && event.won?.[S.seat] > 0) setTimeout(() => play("win"), 450);
  }
  S.events[seq] = event;
  if (event.type === "DeclarationsRevealed") {
    S.revealAt = performance.now();
    S.revealRound = S.table?.round ?? null;
  }
  if (event.type === "HandShown") describeHands([event.hand]);
  S.ledgerDue = true; // every event may move chips (antes, matches, rebuys, share-out)
  if (gap) loadHistory();
}

async function loadHistory() {
  const query = S.token ? `?token=${encodeURIComponent(S.token)}` : "";
  try {
    const response = await fetch(`/api/rooms/${S.roomId}/history.jsonl${query}`);
    if (!response.ok) return;
    const lines = (await response.text()).split("\n").filter((line) => line.trim());
    lines.forEach((line, seq) => { if (!S.events[seq]) S.events[seq] = JSON.parse(line); });
    S.historyLoaded = true;
    renderRoom();
  } catch {
    // the next reconnect tries again
  }
}

async function loadLedger() {
  S.ledgerAsked = (S.ledgerAsked ?? 0) + 1;
  const asked = S.ledgerAsked;
  try {
    const ledger = await getJson(`/api/rooms/${S.roomId}/ledger.json`);
    if (asked !== S.ledgerAsked) return; // a later answer is on its way: never show an older one
    S.ledger = ledger;
    renderRoom();
  } catch {
    // kept from the last time
  }
}

async function describeHands(hands) {
  const missing = [...new Set(hands)].filter((h) => !S.hands.has(h));
  if (!missing.length || !S.roomId) return;
  for (const h of missing) S.hands.set(h, null);
  const query = missing.map((h) => `cards=${encodeURIComponent(h)}`).join("&");
  try {
    const data = await getJson(`/api/rooms/${S.roomId}/hands?${query}`);
    data.hands.forEach((d, i) => S.hands.set(missing[i], d));
    renderRoom();
  } catch {
    for (const h of missing) S.hands.delete(h);
  }
}

/** The hand in the page's language: the category with the rank names of that language
 * ("Paar Zehner, Kicker Ass", "Paire de dix", "Straße bis Drei"); English: the server's
 * own description. */
function handName(cards) {
  const d = S.hands.get(cards);
  if (!d) return "";
  if (language() === "en") return d.description;
  const [top, kicker] = d.ranks;
  const key = d.category === "pair" && kicker ? "hand.pair_kicker" : `hand.${d.category}`;
  return t(key, {
    top: t(`rank.${top}`), tops: t(`ranks.${top}`), kicker: kicker ? t(`rank.${kicker}`) : "",
    list: d.ranks.map((r) => t(`rank.${r}`)).join(", "),
  });
}

function send(message) {
  if (!S.conn.send(message)) {
    toast(t("not_connected"));
    return false;
  }
  return true;
}

function act(type, fields) {
  const table = S.table;
  S.actionCount += 1;
  const actionId = `${S.actionPrefix}-${table.round}-${S.actionCount}`;
  if (send({ type, round: table.round, action_id: actionId, ...fields })) S.sent.set(actionId, type);
}

function declare(declaration) {
  const table = S.table;
  if (!table || !table.my_turn || !table.legal_declarations.includes(declaration) || S.status !== "open") return;
  act("declare", S.coach ? { declaration, coach: true } : { declaration });
}

function passCard(card) {
  const table = S.table;
  if (!table || table.phase !== "pass" || table.passed_card || S.status !== "open") return;
  act("pass_card", { card });
}

function onKey(event) {
  if (!S.table || event.ctrlKey || event.metaKey || event.altKey) return;
  if (document.getElementById("confirm")?.open) return; // a question is asked: no key plays
  const target = event.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
  const key = event.key.toLowerCase();
  for (const [declaration, letter] of Object.entries(KEYS)) {
    if (key === letter && S.table.legal_declarations.includes(declaration) && S.table.my_turn) {
      event.preventDefault();
      declare(declaration);
      return;
    }
  }
}

function tick() {
  if (S.deadline != null) {
    const left = S.frozenLeft ?? Math.max(0, (S.deadline - performance.now()) / 1000);
    const total = S.room?.decision_seconds || 30;
    // The centre's countdown and the one on every seat the table waits for.
    for (const el of document.querySelectorAll("#countdown, .seat-clock")) {
      el.classList.toggle("stopped", S.frozenLeft != null);
      const secs = el.classList.contains("seat-clock") ? `${Math.ceil(left)}` : t("seconds_left", { s: Math.ceil(left) });
      el.querySelector(".secs").textContent = secs;
      el.dataset.left = String(Math.ceil(left));
      el.querySelector(".bar span").style.width = `${Math.min(100, (100 * left) / total)}%`;
      el.classList.toggle("urgent", left <= 5);
    }
  }
  const banner = document.getElementById("retry-in");
  if (banner && S.conn) banner.textContent = t("retry_in", { s: Math.max(0, Math.ceil((S.conn.retryAt - Date.now()) / 1000)) });
}

// ---------------------------------------------------------------------------------------
// Room: rendering.

function renderRoom() {
  if (!S.roomId) return;
  translateStatic();
  patch($("#banner"), bannerHtml());
  const room = S.room;
  if (!room) return;
  const lobby = room.status === "lobby";
  $("#play").hidden = lobby;
  renderLobby(lobby);
  renderChat();
  if (!lobby && S.table) {
    patch($("#seats"), seatsHtml());
    patch($("#center"), centerHtml());
    patch($("#me"), meHtml());
    const advice = $("#coach-advice");
    if (advice) advice.textContent = coachText();
    renderSitPanel();
    patch($("#host-panel"), hostPanelHtml());
    patch($("#ledger"), ledgerHtml());
    patch($("#log"), logHtml());
    patch($("#rules"), rulesHtml());
  }
  bindRoom();
  tick(); // new clocks show their seconds at once
}

/** The chat: each line is built as DOM nodes with textContent (never as HTML); the form
 * and the reactions for a seat that may write (spectators read; a muted seat is told). */
function renderChat() {
  const log = $("#chat-log");
  if (!log) return;
  const last = S.chat.length ? S.chat[S.chat.length - 1].seq : 0;
  if (S.chatShown !== last) {
    S.chatShown = last;
    const nodes = S.chat.slice(-100).map((c) => {
      const li = document.createElement("li");
      li.dataset.chatSeq = String(c.seq);
      li.dataset.chatSeat = String(c.seat);
      const who = document.createElement("strong");
      who.textContent = `${c.name}:`;
      const what = document.createElement("span");
      what.className = c.emoji ? "chat-emoji" : "chat-text";
      what.textContent = c.emoji || c.text || "";
      li.append(who, " ", what);
      return li;
    });
    log.replaceChildren(...nodes);
    log.scrollTop = log.scrollHeight;
  }
  const mine = S.seat != null ? S.room.seats[S.seat] : null;
  let html;
  if (!mine || mine.kicked) html = `<p class="hint" id="chat-note">${esc(t("chat_spectator"))}</p>`;
  else if (mine.muted) html = `<p class="hint" id="chat-note" data-muted="1">${esc(t("chat_muted"))}</p>`;
  else {
    const off = S.status === "open" ? "" : " disabled";
    html = `<div class="reactions" role="group" aria-label="${esc(t("reactions"))}">${REACTIONS.map((e, i) =>
      `<button type="button" class="small react" id="react-${i}" data-react="${e}"${off}>${e}</button>`).join("")}</div>
      <form id="chat-form" class="chat-form"><input id="chat-input" maxlength="${MAX_CHAT}" autocomplete="off"
        aria-label="${esc(t("chat_placeholder"))}" placeholder="${esc(t("chat_placeholder"))}">
      <button type="submit" id="chat-send"${off}>${esc(t("chat_send"))}</button></form>`;
  }
  patch($("#chat-controls"), html);
}

function bannerHtml() {
  if (S.noRoom === "room_closed") {
    const base = `/api/rooms/${S.roomId}`;
    return `<p class="state bad" id="room-gone" data-code="room_closed">${esc(t("room_closed"))}
      <a href="${base}/ledger.csv" download>${esc(t("download_ledger"))}</a>
      <a href="${base}/history.jsonl" download>${esc(t("download_history"))}</a>
      <a href="/">${esc(t("create_room"))}</a></p>`;
  }
  if (S.noRoom) {
    const text = S.noRoom === "room_set_aside" ? t("room_set_aside") : t("no_room");
    return `<p class="state bad" id="room-gone" data-code="${esc(S.noRoom)}">${esc(text)} <a href="/">${esc(t("create_room"))}</a></p>`;
  }
  const parts = [];
  if (S.status === "waiting") {
    parts.push(`<p class="state bad"><strong>${esc(t("disconnected"))}</strong> <span id="retry-in"></span>
      <button id="retry-now" type="button">${esc(t("retry_now"))}</button></p>`);
  } else if (S.status === "connecting") {
    parts.push(`<p class="state warn">${esc(t("connecting"))}</p>`);
  } else if (S.status === "closed") {
    parts.push(`<p class="state bad">${esc(t("connection_closed"))}</p>`);
  }
  if (S.room?.paused) parts.push(`<p class="state warn">${esc(t("paused"))}</p>`);
  const request = S.request && (S.room?.seat_requests || []).find((r) => r.request === S.request.request);
  if (request) {
    const key = !request.next_game ? "seat_waiting_host" : request.approved ? "seat_next_granted" : "seat_next_waiting_host";
    parts.push(`<p class="state info" id="seat-request-state" data-request-state="${key}">${esc(t(key, { n: request.chair + 1 }))}</p>`);
  }
  if (S.room?.next_room) {
    parts.push(`<p class="state info" id="next-room">${esc(t("rematch_open"))} <a href="/r/${esc(S.room.next_room)}" id="next-room-link">${esc(t("rematch_go"))}</a></p>`);
  }
  if (S.room?.previous_room && S.room.status === "lobby") {
    parts.push(`<p class="state info" id="rematch-of" data-carried="${S.room.ledger_carried ? 1 : 0}">${esc(t(S.room.ledger_carried ? "rematch_of_carried" : "rematch_of_reset"))}</p>`);
  }
  if (S.room?.status === "over") parts.push(`<p class="state over">${esc(t("session_over"))}</p>`);
  if (S.room && S.seat == null && S.status === "open" && !request) {
    parts.push(`<p class="state info">${esc(S.kicked ? t("you_were_kicked") : t("watching"))}</p>`);
  }
  return parts.join("");
}

function inviteUrl() {
  return `${location.origin}/r/${S.roomId}`;
}

/** The lobby (`lobby`: the room is in it; else emptied), in parts patched each on its
 * own (patchParts): the seats, the host's or joiner's controls, the rules. */
function renderLobby(lobby) {
  const el = $("#lobby");
  if (!lobby) {
    if (el.dataset.shell) {
      el.innerHTML = "";
      delete el.dataset.shell;
    }
    return;
  }
  patchParts(el, `<div class="lobby panel"><div data-part="head"></div><div data-part="seats"></div>
    <div data-part="actions"></div><div data-part="rules"></div></div>`, lobbyParts());
}

function lobbyParts() {
  const room = S.room;
  const chairs = chairsHtml(); // (first: it forgets a chair picked that was taken meanwhile)
  const seats = room.seats.map((s) => `
    <li class="lobby-seat">
      <span class="dot ${s.connected ? "on" : "off"}" title="${esc(s.connected ? t("online") : t("offline"))}"></span>
      <span class="name">${esc(s.name)}</span>
      ${s.host ? `<span class="tag">${esc(t("host"))}</span>` : ""}
      ${s.bot ? `<span class="tag bot-style" data-bot-style="${esc(s.bot_style ?? "")}">${esc(t(`bot.${s.bot_style ?? "standard"}`))}</span>` : ""}
      ${s.seat === S.seat ? `<span class="tag you">${esc(t("you"))}</span>` : ""}
      ${s.muted ? `<span class="tag muted" data-muted-seat="${s.seat}">${esc(t("muted"))}</span>` : ""}
      ${S.host && !s.host && !s.bot ? muteButton(s) : ""}
      ${S.host && !s.host ? `<button type="button" id="kick-${s.seat}" data-kick="${s.seat}" class="small">${esc(t("kick"))}</button>` : ""}
    </li>`).join("");
  let actions = "";
  if (S.seat == null && S.request) {
    actions = "";
  } else if (S.seat == null) {
    actions = joinFormHtml(room.approve_seats ? "ask_seat" : "take_seat");
  } else if (S.host) {
    actions = `<div class="host-lobby">
      ${room.companion ? `<p class="hint" id="comp-lobby-hint">${esc(t("comp_lobby_hint"))}</p>` : `<label>${esc(t("bot_style"))}<select id="bot-style">${BOT_STYLES.map((b) => `
        <option value="${b}"${b === (S.botStyle ?? "standard") ? " selected" : ""}>${esc(t(`bot.${b}`))}</option>`).join("")}</select></label>
      <button type="button" id="add-bot">${esc(t("add_bot"))}</button>`}
      <button type="button" id="start" class="primary"${room.seats.length < 2 ? " disabled" : ""}>${esc(t("start"))}</button>
      ${room.seats.length < 2 ? `<p class="hint">${esc(t("need_two"))}</p>` : ""}</div>`;
  } else {
    actions = `<p>${esc(t("wait_for_host"))}</p><button type="button" id="leave">${esc(t("leave_seat"))}</button>`;
  }
  return {
    head: `<h2>${esc(t("lobby"))}${room.companion ? ` <span class="tag comp-badge" id="comp-badge">${esc(t("comp_badge"))}</span>` : ""}</h2>
    <div class="invite">
      <label for="invite">${esc(t("invite_link"))}</label>
      <div class="copyrow"><input id="invite" readonly value="${esc(inviteUrl())}">
      <button type="button" id="copy-invite">${esc(t("copy"))}</button></div>
      <p class="hint">${esc(t("invite_hint"))}</p>
      <img id="invite-qr" class="qr" src="/api/rooms/${esc(S.roomId)}/qr.svg" width="164" height="164"
        alt="${esc(t("qr_title"))}" title="${esc(t("qr_title"))}">
    </div>`,
    seats: `<h3>${esc(tn("seats_taken", room.seats.length))}</h3>
    ${chairs}
    <ul class="lobby-seats">${seats}</ul>
    ${S.host ? seatRequestsHtml() : ""}`,
    actions,
    rules: `<h3>${esc(t("rules_summary"))}</h3>
    ${rulesHtml()}`,
  };
}

/** The name field and the button that sends `join` with the chair picked (none: the lowest
 * free one). The name typed is not in the HTML (it would change it at every key, and the
 * next frame would replace the form): bindRoom fills a new field with it. */
function joinFormHtml(label) {
  const chosen = S.chair != null ? ` <span class="hint" id="chosen-chair">${esc(t("chair_picked", { n: S.chair + 1 }))}</span>` : "";
  return `<form id="join" class="join">
      <label>${esc(t("your_name"))}<input id="join-name" required maxlength="24" autocomplete="nickname"></label>
      <button id="join-button" class="primary" type="submit">${esc(t(label))}</button>${chosen}</form>`;
}

/** The ten chairs around the table, clockwise from chair 1 at the bottom (the seat order
 * of the session is the chairs' order: the dealer button moves clockwise). A spectator
 * picks a free chair; a chair asked for shows the name waiting. */
function chairsHtml() {
  const room = S.room;
  const lobby = room.status === "lobby";
  const held = new Map();
  for (const s of room.seats) {
    if (lobby || !s.kicked) held.set(s.chair, { name: s.name, me: s.seat === S.seat, host: s.host, bot: s.bot });
  }
  for (const r of room.seat_requests || []) {
    held.set(r.chair, { name: r.name, waiting: true, approved: r.approved, me: S.request?.request === r.request });
  }
  const picking = S.seat == null && !S.request && !room.next_room;
  if (S.chair != null && held.has(S.chair)) S.chair = null; // taken meanwhile
  const out = [];
  for (let chair = 0; chair < CHAIRS; chair += 1) {
    const angle = Math.PI / 2 + (chair * 2 * Math.PI) / CHAIRS;
    const at = `data-x="${(50 + 43 * Math.cos(angle)).toFixed(1)}" data-y="${(50 + 38 * Math.sin(angle)).toFixed(1)}"`;
    const number = `<span class="chair-no">${chair + 1}</span>`;
    const h = held.get(chair);
    if (h) {
      const classes = ["chair", h.waiting ? "waiting" : "taken"];
      if (h.me) classes.push("me");
      const tag = h.waiting ? `<span class="chair-tag">${esc(t(h.approved ? "chair_next" : "chair_waiting"))}</span>`
        : h.host ? `<span class="chair-tag">${esc(t("host"))}</span>` : h.bot ? `<span class="chair-tag">${esc(t("bot"))}</span>` : "";
      out.push(`<li class="${classes.join(" ")}" ${at} data-chair-name="${esc(h.name)}" data-chair-at="${chair}">${number}<span class="chair-name">${esc(h.name)}</span>${tag}</li>`);
    } else if (picking) {
      const chosen = S.chair === chair;
      out.push(`<li class="chair free${chosen ? " chosen" : ""}" ${at} data-chair-at="${chair}"><button type="button" id="chair-${chair}" data-chair="${chair}" aria-pressed="${chosen}">
        ${number}<span class="chair-name">${esc(t(chosen ? "chair_chosen" : "chair_free"))}</span></button></li>`);
    } else {
      out.push(`<li class="chair empty" ${at} data-chair-at="${chair}">${number}<span class="chair-name">${esc(t("chair_empty"))}</span></li>`);
    }
  }
  return `<div class="chair-table" id="chair-table"><div class="chair-felt" aria-hidden="true"><span>${esc(t("chairs_hint"))}</span></div>
    <ol class="chairs" aria-label="${esc(t("chairs"))}">${out.join("")}</ol></div>`;
}

/** A spectator of a session in play (or over): ask for a seat at the next session (the
 * chairs and the form patched each on its own, as the lobby's: patchParts). */
function renderSitPanel() {
  const room = S.room;
  const el = $("#sit-panel");
  if (S.seat != null || room.status === "lobby" || room.next_room) {
    if (el.dataset.shell) {
      el.innerHTML = "";
      delete el.dataset.shell;
    }
    return;
  }
  patchParts(el, `<details class="panel sit" id="sit-next" open><summary>${esc(t("sit_next"))}</summary>
    <p class="hint">${esc(t(room.approve_seats ? "sit_next_hint_host" : "sit_next_hint"))}</p>
    <div data-part="chairs"></div><div data-part="form"></div></details>`,
  { chairs: chairsHtml(), form: S.request ? "" : joinFormHtml("ask_next_seat") });
}

/** The host's list of seat requests: approve or deny each one waiting. */
function seatRequestsHtml() {
  const requests = S.room.seat_requests || [];
  if (!requests.length) return "";
  const items = requests.map((r) => `<li data-seat-request="${r.request}">${esc(t(r.next_game ? "seat_request_next" : "seat_request", { name: r.name, n: r.chair + 1 }))}
    ${r.approved ? `<span class="tag">${esc(t("chair_next"))}</span>` : `<button type="button" class="small" id="approve-seat-${r.request}" data-approve-seat="${r.request}">${esc(t("approve"))}</button>
    <button type="button" class="small" id="deny-seat-${r.request}" data-deny-seat="${r.request}">${esc(t("deny"))}</button>`}</li>`).join("");
  return `<h4>${esc(t("seat_requests"))}</h4><ul class="rebuy-list" id="seat-requests">${items}</ul>`;
}

function revealedDeclarations() {
  // The last DeclarationsRevealed of the current round (after its CardsDealt), if any.
  const table = S.table;
  if (!table || table.phase === "declare" || table.phase === "pass") return null;
  if (companion.counting()) return null; // companion, "1-2-3 drop": the count runs first
  for (let i = S.events.length - 1; i >= 0; i -= 1) {
    const e = S.events[i];
    if (!e) continue;
    if (e.type === "DeclarationsRevealed") return e.declarations;
    // a new deal, or the round was thrown in / undone (companion): its fists are gone
    if (e.type === "CardsDealt" || e.type === "Misdealt" || e.type === "RoundUndone") return null;
  }
  return null;
}

/** True when the table's last result is of the round its counter shows: the last
 * RoundResolved, not counting an undone round (companion: the counter goes back with it),
 * comes before any later deal or misdeal. */
function resultOfThisRound() {
  let undone = 0; // undone rounds being skipped, back to their deal
  for (let i = S.events.length - 1; i >= 0; i -= 1) {
    const e = S.events[i];
    if (!e) continue;
    if (e.type === "RoundUndone") undone += 1;
    else if (undone) { if (e.type === "CardsDealt") undone -= 1; }
    else if (e.type === "RoundResolved") return true;
    else if (e.type === "CardsDealt" || e.type === "Misdealt") return false;
  }
  return false;
}

function seatPosition(seat, n) {
  const me = S.seat ?? 0;
  const rel = (seat - me + n) % n;
  const angle = Math.PI / 2 + (rel * 2 * Math.PI) / n;
  return { x: 50 + 44 * Math.cos(angle), y: 50 + 40 * Math.sin(angle) };
}

function seatsHtml() {
  const table = S.table;
  const room = S.room;
  const n = table.names.length;
  const revealed = revealedDeclarations();
  const result = freshResult(table);
  const payouts = table.phase === "over" ? lastEvent("SessionEnded")?.payouts : null;
  const animate = performance.now() - S.revealAt < REVEAL_MS + 600;
  // Between rounds, while the last round's result is shown, the button stays with that
  // round's dealer (the table's is already the next one): it moves with the next deal.
  // Not at a companion's real table: there the next dealer is asked to deal now.
  const dealer = !room.companion && table.phase === "deal" && S.roundDealer?.round === table.round && resultOfThisRound()
    ? S.roundDealer.seat : table.dealer;
  const out = [];
  for (let seat = 0; seat < n; seat += 1) {
    const info = room.seats[seat] || {};
    const pos = seatPosition(seat, n);
    const classes = ["seat"];
    if (seat === S.seat) classes.push("me");
    if (table.eliminated[seat]) classes.push("eliminated");
    if (info.kicked) classes.push("kicked");
    if (!info.connected) classes.push("offline");
    let fist = "";
    let cards = "";
    let delta = "";
    const dealt = table.dealt_in[seat];
    if (revealed && revealed[seat] != null) {
      const d = revealed[seat];
      const isIn = d !== "out";
      classes.push(isIn ? "is-in" : "is-out");
      fist = `<span class="fist open ${isIn ? "in" : "out"}${animate ? " animate" : ""}">
        <span class="chip-dot" aria-hidden="true"></span><span class="word">${esc(t(`decl.${d}`))}</span></span>`;
    } else if (table.phase === "declare" && dealt && seat !== S.seat && table.declarations[seat]) {
      // Sequential declaration: each call is public as it is made.
      const d = table.declarations[seat];
      classes.push(d !== "out" ? "is-in" : "is-out");
      fist = `<span class="fist open ${d !== "out" ? "in" : "out"}"><span class="chip-dot" aria-hidden="true"></span>`
        + `<span class="word">${esc(t(`decl.${d}`))}</span></span>`;
      cards = backHtml("small").repeat(S.room.rules.cards_per_hand);
    } else if ((table.phase === "declare" || table.phase === "pass" || companion.counting()) && dealt) {
      const sealed = table.declared[seat];
      const own = seat === S.seat && table.declarations[seat];
      fist = sealed
        ? `<span class="fist closed"><span class="word">${esc(own ? t("sealed_own", { d: t(`decl.${own}`) }) : t("sealed"))}</span></span>`
        : (table.to_act || []).includes(seat)
          ? `<span class="fist thinking"><span class="word">${esc(table.phase === "pass" ? t("passing") : t("thinking"))}</span></span>`
          : `<span class="fist waits"><span class="word">${esc(t("waits_turn"))}</span></span>`;
      if (seat !== S.seat) cards = backHtml("small").repeat(S.room.rules.cards_per_hand);
    }
    if (result) {
      const shown = result.shown?.[seat];
      if (shown && revealed && seat !== S.seat) { // your own shown hand stays in your area
        cards = handHtml(shown, `small${animate ? " flip" : ""}`);
        const desc = handName(shown + (result.community ? ` ${result.community}` : ""));
        if (desc) cards += `<span class="desc">${esc(desc)}</span>`;
      }
      if (result.won?.[seat] > 0) {
        classes.push("winner");
        delta += `<span class="delta plus">+${result.won[seat]}</span>`;
      }
      if (result.matched?.[seat] > 0) delta += `<span class="delta minus">−${result.matched[seat]} ${esc(t("matched_short"))}</span>`;
    }
    const volunteered = shownByChoice()[seat];
    if (volunteered && seat !== S.seat) {
      cards = `<span class="shown-by-choice" data-shown-seat="${seat}">${handHtml(volunteered, "small")}</span>`;
      const desc = handName(volunteered);
      if (desc) cards += `<span class="desc">${esc(desc)}</span>`;
    }
    if (payouts?.[seat] > 0) delta += `<span class="delta plus share">+${payouts[seat]} ${esc(t("share_short"))}</span>`;
    const badges = [
      seat === dealer ? `<span class="dealer" title="${esc(t("dealer"))}" aria-label="${esc(t("dealer"))}">D</span>` : "",
      info.host ? `<span class="tag">${esc(t("host"))}</span>` : "",
      info.bot ? `<span class="tag bot-style" data-bot-style="${esc(info.bot_style ?? "")}">${esc(info.bot_style ? t(`bot.${info.bot_style}`) : t("bot"))}</span>` : "",
      info.away ? `<span class="tag away" data-away="${seat}">${esc(info.back_next_game ? t("back_next_game") : t("away"))}</span>` : "",
      seat === S.seat ? `<span class="tag you">${esc(t("you"))}</span>` : "",
      info.muted ? `<span class="tag muted" data-muted-seat="${seat}">${esc(t("muted"))}</span>` : "",
    ].join("");
    const reaction = S.reactions[seat];
    const bubble = reaction && performance.now() - reaction.at < REACTION_MS
      ? `<span class="reaction" data-reaction-seat="${seat}" aria-hidden="true">${esc(reaction.emoji)}</span>` : "";
    out.push(`<div class="${classes.join(" ")}" data-x="${pos.x.toFixed(1)}" data-y="${pos.y.toFixed(1)}" data-seat="${seat}">
      <div class="seat-head"><span class="dot ${info.connected ? "on" : "off"}" title="${esc(info.connected ? t("online") : t("offline"))}"></span>
        <span class="name">${esc(table.names[seat])}</span>${badges}${bubble}</div>
      <div class="stack"><span class="num">${table.stacks[seat]}</span> ${esc(t("chips"))}${table.eliminated[seat] ? ` · ${esc(t("eliminated"))}` : ""}${info.kicked ? ` · ${esc(t("kicked"))}` : ""}</div>
      <div class="seat-fist">${fist}</div>${seatClock(seat)}
      <div class="seat-cards">${cards}</div>
      <div class="seat-delta">${delta}</div>
    </div>`);
  }
  return out.join("");
}

/** The decision clock on a seat the table waits for (`to_act`; the server's `time_left`,
 * docs/protocol.md "Decision clock"); filled in by tick(). */
function seatClock(seat) {
  const table = S.table;
  if (!(table.phase === "declare" || table.phase === "pass") || S.deadline == null || S.room.paused) return "";
  if (!(table.to_act || []).includes(seat)) return "";
  return `<div class="seat-clock" data-clock-seat="${seat}" role="timer" aria-label="${esc(t("timer"))}"><span class="secs"></span><span class="bar"><span></span></span></div>`;
}

function centerHtml() {
  const table = S.table;
  const rules = S.room.rules;
  const parts = [`<div class="pot"><span class="label">${esc(t("pot"))}</span> <span class="num" id="pot">${table.pot}</span></div>`];
  if (table.reserve || rules.pot_cap_mode === "reserve") {
    parts.push(`<div class="reserve">${esc(t("reserve"))} <span class="num" id="reserve">${table.reserve}</span></div>`);
  }
  const roundText = table.round ? `${t("round_n", { n: table.round })} · ${t("game_n", { n: table.game })}` : t("no_round_yet");
  parts.push(`<div class="round" data-round="${table.round}" data-phase="${table.phase}">${esc(roundText)}</div>`);
  if (table.phase === "declare" || table.phase === "pass") {
    const waiting = table.dealt_in.filter((d, s) => d && !(table.phase === "pass" ? table.passed?.[s] : table.declared[s])).length;
    parts.push(`<div class="waiting" id="waiting">${esc(tn(table.phase === "pass" ? "waiting_pass" : "waiting_for", waiting))}</div>`);
    // Whose turn it is, as the server's table driver says (`turn`: sequential declaration
    // only; under simultaneous or drop declaration, the last seat left is not "its turn").
    if (table.phase === "declare" && table.my_turn) parts.push(`<div class="turn" id="turn">${esc(t("your_turn"))}</div>`);
    else if (table.phase === "declare" && table.turn != null) {
      parts.push(`<div class="turn" id="turn">${esc(t("turn_of", { name: table.names[table.turn] }))}</div>`);
    }
    if (S.room.paused) parts.push(`<div class="countdown paused">${esc(t("paused"))}</div>`);
    else if (S.deadline != null) {
      parts.push(`<div class="countdown" id="countdown" role="timer" aria-label="${esc(t("timer"))}"><span class="secs"></span><span class="bar"><span></span></span></div>`);
    }
  }
  const result = table.phase === "over" ? freshResult(table) : table.last_result;
  if (table.community) parts.push(`<div class="extra" id="community" data-extra="community">${esc(t("community"))} ${handHtml(table.community, "small")}</div>`);
  if (table.ghost) parts.push(`<div class="extra" id="ghost" data-extra="ghost">${esc(t("ghost"))} ${handHtml(table.ghost, "small")}</div>`);
  if (result) {
    const fresh = table.phase === "deal" || table.phase === "over";
    // the round the result is of, named (the dealer badge moves with the next deal)
    const label = fresh && table.round && resultOfThisRound() ? t("result_of_round", { n: table.round })
      : fresh ? t("this_round") : t("last_round");
    parts.push(`<div class="result${fresh ? " fresh" : ""}" id="result"><span class="label">${esc(label)}</span>
      ${[...resultLines(result, table.names, lastDeclarations()), ...(result.outcome === "void" && table.phase !== "over" ? [voidAntesLine(result, table)] : [])]
    .slice(0, table.phase === "over" ? -1 : undefined) // at the end the pot is shared out
    .map((l) => `<p>${esc(l)}</p>`).join("")}</div>`);
  }
  if (table.phase === "over") {
    const ended = lastEvent("SessionEnded");
    const share = ended ? shareOut(ended.payouts, table.names) : "";
    parts.push(`<div class="over" id="over">${esc(t("session_over"))}${share ? `<p id="share-out">${esc(share)}</p>` : ""}</div>`);
  }
  return parts.join("");
}

/** The last round's result while it is the news: between rounds, and at the end of the
 * session when that round ended it (not when the host stopped play later). */
function freshResult(table) {
  const result = table.last_result;
  if (table.phase === "deal") return result;
  return table.phase === "over" && result?.session_over ? result : null;
}

/** The hands shown by choice after this round's uncontested win (HandShown events since
 * the last deal), by seat; between rounds only. */
function shownByChoice() {
  const out = {};
  const table = S.table;
  if (!table || !(table.phase === "deal" || table.phase === "over")) return out;
  for (let i = S.events.length - 1; i >= 0; i -= 1) {
    const e = S.events[i];
    if (!e) continue;
    if (e.type === "CardsDealt") break;
    if (e.type === "HandShown") out[e.seat] = e.hand;
  }
  return out;
}

function lastEvent(type) {
  for (let i = S.events.length - 1; i >= 0; i -= 1) if (S.events[i]?.type === type) return S.events[i];
  return null;
}

/** "Share-out: Ana 1, Ben 1": what was left in the pot and reserve at the end. */
function shareOut(payouts, names) {
  const list = (payouts || []).map((chips, s) => (chips > 0 ? `${names[s]} ${chips}` : null)).filter(Boolean);
  return list.length ? t("share_out", { list: list.join(", ") }) : "";
}

/** " (timer)" after a seat the declaration timer counted out in `round`. */
function timedOut(round, seat) {
  return Boolean(S.timedOut[round]?.includes(seat));
}

function timerMark(round, seat) {
  return timedOut(round, seat) ? ` ${t("by_timer")}` : "";
}

/** The declarations revealed before the last RoundResolved (Hi-Lo: who played which side). */
function lastDeclarations() {
  let resolved = false;
  for (let i = S.events.length - 1; i >= 0; i -= 1) {
    const e = S.events[i];
    if (e?.type === "RoundResolved") resolved = true;
    else if (resolved && e?.type === "DeclarationsRevealed") return e.declarations;
  }
  return null;
}

/** After a void round: what the re-deal's antes are, as the server says (between rounds:
 * `next_antes`; once dealt: the AntesPosted event of the re-deal, none = the pot stayed). */
function voidAntesLine(r, table) {
  let amounts = null;
  if (table.phase === "deal") amounts = table.next_antes;
  else {
    for (let i = S.events.length - 1; i >= 0; i -= 1) {
      const e = S.events[i];
      if (!e || e.type === "RoundResolved") break;
      if (e.type === "AntesPosted") amounts = e.amounts;
    }
  }
  if (!amounts) return t("res_void_no_ante", { pot: r.pot_after });
  const list = amounts.map((chips, s) => (chips > 0 ? `${table.names[s]} ${chips}` : null)).filter(Boolean).join(", ");
  return t("res_void_antes", { list });
}

/** Two shown hands with the same category and ranks (the server's description of each):
 * when the core put one above the other, the suits decided (RULES.md suit_tiebreak). */
function sameRanks(a, b) {
  const x = S.hands.get(a);
  const y = S.hands.get(b);
  return Boolean(x && y && x.category === y.category && JSON.stringify(x.ranks) === JSON.stringify(y.ranks));
}

/** The result of round `r` (a RoundResolved) in words, every figure from the event: who
 * won what (a tie and the chips of a split that stay in the pot said as such; Hi-Lo: each
 * side with its chips), who matched, a Both that failed and on which side, and when equal
 * ranks were separated by the suits. */
function resultLines(r, names, decls = null) {
  const lines = [];
  const who = (seats) => (seats?.length ? seats.map((s) => names[s]).join(", ") : t("nobody"));
  const cardsOf = (seat) => (r.shown?.[seat] ? r.shown[seat] + (r.community ? ` ${r.community}` : "") : null);
  const withHand = (seat) => {
    const shown = cardsOf(seat);
    const desc = shown ? handName(shown) : "";
    return desc ? ` (${desc})` : "";
  };
  // the suits decided a side: a winner and a beaten contender hold the same ranks
  const bySuit = (winners, contenders) => winners.some((w) => contenders.some((c) => !winners.includes(c)
    && cardsOf(w) && cardsOf(c) && sameRanks(cardsOf(w), cardsOf(c))));
  const hiLo = Boolean(r.high_pot || r.low_pot);
  if (r.outcome === "void") {
    lines.push(t("res_void"));
    for (const s of r.ante_payers || []) lines.push(t("res_pays_antes", { name: names[s] }));
  } else if (r.outcome === "uncontested") {
    for (const s of r.winners) lines.push(t("res_uncontested", { name: names[s], chips: r.won[s] }));
  } else {
    if (r.ghost_won) lines.push(t("res_ghost_won"));
    if (hiLo) {
      // Hi-Lo: who took each side and how much; a tie on a side said as such
      lines.push(t("res_split", { high: r.high_pot, low: r.low_pot }));
      if (r.high_winners.length > 1) lines.push(t("res_tie_high", { names: who(r.high_winners) }));
      if (r.low_winners.length > 1) lines.push(t("res_tie_low", { names: who(r.low_winners) }));
      for (const s of r.winners) {
        const high = r.high_winners.includes(s);
        const low = r.low_winners.includes(s);
        const key = high && low ? "res_both_ways" : high ? "res_high_chips" : "res_low_chips";
        lines.push(t(key, { name: names[s], chips: r.won[s] }) + withHand(s));
      }
      if (decls) {
        const side = (d) => r.shown.map((_, s) => s).filter((s) => decls[s] === d || decls[s] === "both");
        if (bySuit(r.high_winners, side("high"))) lines.push(t("res_by_suit_high"));
        if (bySuit(r.low_winners, side("low"))) lines.push(t("res_by_suit_low"));
      }
    } else {
      if (r.winners.length > 1) lines.push(t("res_tie", { names: who(r.winners) }));
      for (const s of r.winners) lines.push(t("res_wins", { name: names[s], chips: r.won[s] }) + withHand(s));
      const contenders = (r.shown || []).map((h, s) => (h ? s : null)).filter((s) => s != null);
      if (bySuit(r.winners, contenders)) lines.push(t("res_by_suit"));
    }
  }
  r.matched.forEach((chips, s) => {
    if (chips <= 0) return;
    const d = hiLo ? decls?.[s] : null;
    if (d === "high" || d === "low") { // a side loser matches its side only
      lines.push(t(`res_matches_${d}`, { name: names[s], chips }) + withHand(s));
    } else if (d === "both") { // a Both must win or tie both ways, else it loses both
      // the side(s) the core found the Both hand did not win or tie (none when the table
      // named the winners: no hand was compared)
      const failed = [];
      if (r.failed_high?.includes(s)) failed.push(t("res_side_high", { names: who(r.high_winners) }));
      if (r.failed_low?.includes(s)) failed.push(t("res_side_low", { names: who(r.low_winners) }));
      lines.push((failed.length ? t("res_both_failed_on", { name: names[s], chips, sides: failed.join(t("res_and")) })
        : t("res_both_failed", { name: names[s], chips })) + withHand(s));
    } else lines.push(t("res_matches", { name: names[s], chips }) + withHand(s));
  });
  for (const s of r.eliminated || []) lines.push(t("res_eliminated", { name: names[s] }));
  // the chips of the pot nobody took stay in it (a split's odd chip: odd_chip = "carry"):
  // what the next pot holds beyond the matches (pot_after + to_reserve = kept + matches)
  if (r.outcome === "showdown" && !r.ghost_won) {
    const kept = r.pot_after + (r.to_reserve || 0) - r.matched.reduce((a, b) => a + b, 0);
    if (kept > 0) lines.push(tn("res_carried", kept, { chips: kept }));
  }
  if (r.to_reserve) lines.push(tn("res_to_reserve", r.to_reserve, { chips: r.to_reserve }));
  lines.push(t("res_pot_after", { pot: r.pot_after }));
  return lines;
}

function meHtml() {
  const table = S.table;
  if (S.seat == null) return ""; // a spectator: "You are watching." is in the banner
  const parts = [];
  const hand = table.hand;
  if (S.room.companion) parts.push(companion.meHtml()); // a real table deals
  if (hand && hand.length) {
    const desc = handName(hand.join(" "));
    const passing = table.phase === "pass" && !table.passed_card;
    const offline = S.status !== "open" ? " disabled" : "";
    const cards = passing
      ? hand.map((c) => `<button type="button" class="card-button" id="pass-${c}" data-pass="${c}" aria-label="${esc(t("pass_this"))}"${offline}>${cardHtml(c, "big")}</button>`).join("")
      : handHtml(hand, "big");
    parts.push(`<div class="my-hand" id="my-hand" aria-label="${esc(t("your_cards"))}">${cards}</div>`);
    if (desc) parts.push(`<div class="my-desc">${esc(desc)}</div>`);
    if (passing) {
      const n = table.names.length;
      let left = (S.seat + 1) % n;
      while (!table.dealt_in[left] && left !== S.seat) left = (left + 1) % n;
      parts.push(`<p class="prompt">${esc(t("choose_pass", { name: table.names[left] }))}</p>`);
    }
    if (table.passed_card) parts.push(`<p class="hint">${esc(t("you_pass", { card: handText([table.passed_card]) }))}</p>`);
    if (table.received_card) parts.push(`<p class="hint">${esc(t("you_received", { card: handText([table.received_card]) }))}</p>`);
  } else if (hand && !hand.length && table.phase === "declare" && !S.room.companion) {
    parts.push(`<div class="my-hand" id="my-hand">${backHtml("big").repeat(S.room.rules.cards_per_hand)}</div><p class="hint">${esc(t("no_peek"))}</p>`);
  }
  let byHand = parts.length; // where the coach's note goes: right under the hand
  if (table.phase === "declare" && table.dealt_in[S.seat]) {
    const mine = table.declarations[S.seat];
    const buttons = table.legal_declarations.map((d) => `<button type="button" id="declare-${d}" data-declare="${d}"
      class="declare ${d}${mine === d ? " chosen" : ""}"${table.my_turn && S.status === "open" ? "" : " disabled"} aria-keyshortcuts="${KEYS[d].toUpperCase()}">
      ${esc(t(`decl.${d}`))} <kbd>${KEYS[d].toUpperCase()}</kbd></button>`).join("");
    parts.push(`<div class="declare-row" role="group" aria-label="${esc(t("declaration"))}">${buttons}</div>`);
    if (mine) parts.push(`<p class="sealed-note" id="my-declaration">${esc(t("you_declared", { d: t(`decl.${mine}`) }))}</p>`);
    else if (table.my_turn) parts.push(...matchHints(table));
  } else if (table.phase === "deal" || table.phase === "over") {
    const result = table.last_result;
    const shown = result?.shown?.[S.seat];
    if (shown && revealedDeclarations()) {
      const animate = performance.now() - S.revealAt < REVEAL_MS + 600;
      const desc = handName(shown + (result.community ? ` ${result.community}` : ""));
      // labelled: between rounds it is the hand just played, not the new deal
      parts.push(`<p class="hint my-shown-label" id="my-shown-label">${esc(t("your_hand_round", { n: table.round }))}</p>`);
      parts.push(`<div class="my-hand" id="my-shown">${handHtml(shown, `big${animate ? " flip" : ""}`)}</div>`);
      if (desc) parts.push(`<div class="my-desc">${esc(desc)}</div>`);
      byHand = parts.length;
    }
    if (table.can_show) {
      parts.push(`<div class="show-row"><button type="button" id="show-hand">${esc(t("show_hand"))}</button>
        <span class="hint">${esc(t("show_hand_hint"))}</span></div>`);
    } else if (shownByChoice()[S.seat]) {
      parts.push(`<p class="hint" id="shown-note">${esc(t("you_showed"))}</p>`);
    }
    if (table.phase === "deal" && !S.room.paused && !S.room.companion) parts.push(`<p class="hint">${esc(t("next_deal"))}</p>`);
  }
  parts.push(rebuyHtml(table));
  parts.push(seatActionsHtml());
  // Filled with textContent by renderRoom (coachText), never as HTML.
  if (S.coach) parts.splice(byHand, 0, `<p class="hint coach-note" id="coach-advice" aria-live="polite"></p>`);
  return parts.join("");
}

/** Away / back / leave for one's own seat during the session (docs/protocol.md). */
function seatActionsHtml() {
  const mine = S.room.seats[S.seat];
  if (S.room.status !== "playing" || !mine || mine.kicked) return "";
  const off = S.status === "open" ? "" : " disabled";
  const parts = [];
  if (mine.away) {
    parts.push(`<p class="hint" id="away-note">${esc(t("away_hint"))}</p>`);
    parts.push(mine.back_next_game
      ? `<span class="tag" id="back-pending">${esc(t("back_next_game"))}</span>`
      : `<button type="button" id="come-back"${off}>${esc(t("come_back"))}</button>`);
  } else {
    parts.push(`<button type="button" id="sit-out"${off}>${esc(t("sit_out"))}</button>`);
  }
  if (!mine.host) parts.push(`<button type="button" id="leave-table" class="danger"${off}>${esc(t("leave_table"))}</button>`);
  return `<div class="seat-actions" id="seat-actions">${parts.join("")}</div>`;
}

/** What you would pay if beaten (per declaration; Hi-Lo: per side) and, when the match is
 * more than your stack, what the rules in force do then: all from the server's
 * `matches` (gutskit.core.table.match_quotes), never worked out here. */
function matchHints(table) {
  const quotes = table.matches || [];
  const lines = quotes.map((q) => {
    const d = t(`decl.${q.declaration}`);
    if (q.least !== q.most) return t("match_side", { d, chips: q.least, most: q.most });
    return t("match_if_beaten", { d, chips: q.most });
  });
  const out = lines.map((l) => `<p class="hint match-hint">${esc(l)}</p>`);
  const stack = table.stacks[S.seat];
  const worst = quotes.reduce((a, q) => (a && a.most >= q.most ? a : q), null);
  if (worst && worst.most > stack) {
    let key = "warn_debt";
    if (worst.eliminated) key = "warn_eliminate";
    else if (worst.pays < worst.most) key = "warn_table_stakes";
    const text = tn(key, stack, { chips: worst.most, stack, pays: worst.pays, after: stack - worst.pays });
    out.push(`<p class="warning" id="stack-warning" role="alert">${esc(text)}</p>`);
  }
  return out;
}

/** The rebuy button (when the server says the rules allow one now) or the state of your
 * request. */
function rebuyHtml(table) {
  if (S.seat == null || S.room.status !== "playing") return "";
  const mine = (S.room.rebuy_requests || []).find((r) => r.seat === S.seat);
  if (mine) {
    return `<p class="hint" id="rebuy-pending">${esc(t(mine.approved ? "rebuy_approved" : "rebuy_pending", { chips: mine.chips }))}</p>`;
  }
  if (table.rebuy == null) return "";
  return `<div class="rebuy-row"><label>${esc(t("rebuy_chips"))}
    <input id="rebuy-chips" type="number" min="${table.rebuy}" max="${S.rulesMeta ? S.rulesMeta.max_chips : ""}" step="1" value="${table.rebuy}"></label>
    <button type="button" id="rebuy">${esc(t("rebuy_ask"))}</button>
    <span class="hint">${esc(t("rebuy_hint", { chips: table.rebuy }))}</span></div>`;
}

function hostPanelHtml() {
  if (!S.host) return "";
  if (S.room.status === "over") {
    if (S.room.next_room) return "";
    return `<details class="panel host" open><summary>${esc(t("host_controls"))}</summary>
      <h4>${esc(t("rematch"))}</h4><p class="hint">${esc(t("rematch_hint"))}</p>
      <div class="host-buttons"><button type="button" id="rematch-carried" class="primary">${esc(t("rematch_carried"))}</button>
      <button type="button" id="rematch-reset">${esc(t("rematch_reset"))}</button></div>
      ${seatRequestsHtml()}</details>`;
  }
  if (S.room.status !== "playing") return "";
  const seats = S.room.seats.filter((s) => !s.host && !s.kicked).map((s) => `<li>${esc(s.name)}
    <span>${s.bot ? "" : muteButton(s)}
    <button type="button" class="small" id="kick-${s.seat}" data-kick="${s.seat}">${esc(t("kick"))}</button></span></li>`).join("");
  return `<details class="panel host" open><summary>${esc(t("host_controls"))}</summary>
    <div class="host-buttons">
    ${S.room.paused
      ? `<button type="button" id="resume">${esc(t("resume"))}</button>`
      : `<button type="button" id="pause">${esc(t("pause"))}</button>`}
    <button type="button" id="end-session" class="danger">${esc(t("end_session"))}</button></div>
    ${rebuyRequestsHtml()}
    ${seatRequestsHtml()}
    <ul class="kick-list">${seats}</ul></details>`;
}

/** The host's mute / unmute switch of a seat's chat. */
function muteButton(s) {
  return `<button type="button" class="small" id="mute-${s.seat}" data-mute="${s.seat}" data-muted="${s.muted ? "1" : "0"}"
    aria-pressed="${s.muted ? "true" : "false"}">${esc(t(s.muted ? "unmute" : "mute"))}</button>`;
}

/** The host approves or denies each seat's rebuy request. */
function rebuyRequestsHtml() {
  const requests = S.room.rebuy_requests || [];
  if (!requests.length) return "";
  const names = S.table?.names ?? S.room.seats.map((s) => s.name);
  const items = requests.map((r) => `<li>${esc(t(r.approved ? "rebuy_request_approved" : "rebuy_request", { name: names[r.seat], chips: r.chips }))}
    ${r.approved ? "" : `<button type="button" class="small" id="approve-rebuy-${r.seat}" data-approve-rebuy="${r.seat}">${esc(t("approve"))}</button>
    <button type="button" class="small" id="deny-rebuy-${r.seat}" data-deny-rebuy="${r.seat}">${esc(t("deny"))}</button>`}</li>`).join("");
  return `<h4>${esc(t("rebuy_requests"))}</h4><ul class="rebuy-list" id="rebuy-requests">${items}</ul>`;
}

function ledgerHtml() {
  const ledger = S.ledger;
  if (!ledger) return "";
  const signed = (x) => `<td class="num ${x > 0 ? "plus" : x < 0 ? "minus" : ""}">${x > 0 ? "+" : ""}${x}</td>`;
  const carried = ledger.carried; // a rematch: the nets of the earlier sessions and the totals
  const rows = ledger.rows.map((r) => `<tr${r.seat == null ? ' class="earlier"' : ""}><td>${esc(r.name)}</td><td class="num">${r.buy_in}</td>
    <td class="num">${r.cash_out}</td>${signed(r.net)}${carried ? `${signed(r.carried)}${signed(r.total)}` : ""}</tr>`).join("");
  const transfers = ledger.transfers.map((x) => `<li>${esc(t("pays", { payer: x.payer, payee: x.payee, chips: x.chips }))}</li>`).join("");
  const token = S.token ? `?token=${encodeURIComponent(S.token)}` : "";
  return `<table class="ledger" id="ledger-table"><thead><tr><th>${esc(t("player"))}</th><th>${esc(t("buy_in"))}</th>
    <th>${esc(t("stack"))}</th><th>${esc(t("net"))}</th>${carried ? `<th>${esc(t("ledger_earlier"))}</th><th>${esc(t("ledger_total"))}</th>` : ""}</tr></thead><tbody>${rows}</tbody>
    <tfoot><tr><td>${esc(t("in_pot"))}</td><td></td><td class="num" id="ledger-pot">${ledger.pot}</td><td></td>${carried ? "<td></td><td></td>" : ""}</tr>${ledger.reserve || S.room?.rules?.pot_cap_mode === "reserve"
    ? `<tr><td>${esc(t("reserve"))}</td><td></td><td class="num" id="ledger-reserve">${ledger.reserve}</td><td></td>${carried ? "<td></td><td></td>" : ""}</tr>` : ""}</tfoot></table>
    ${ledger.final ? `<h4>${esc(t("settle_up"))}</h4><ul class="transfers" id="transfers">${transfers || `<li>${esc(t("nothing_owed"))}</li>`}</ul>` : ""}
    <p class="downloads"><a href="/api/rooms/${S.roomId}/ledger.csv" download id="dl-ledger">${esc(t("download_ledger"))}</a>
    <a href="/api/rooms/${S.roomId}/history.jsonl${token}" download id="dl-history">${esc(t("download_history"))}</a>
    ${S.room.companion // a real table deals: no deck to prove; the session as a `guts referee` file
    ? `<a href="/api/rooms/${S.roomId}/referee.json${token}" download id="dl-referee">${esc(t("comp_download_referee"))}</a>`
    : `<a href="/api/rooms/${S.roomId}/fairness.json${token}" download id="dl-fairness">${esc(t("download_fairness"))}</a>`}</p>
    ${S.room.previous_room ? `<p class="downloads"><a href="/r/${esc(S.room.previous_room)}" id="previous-room">${esc(t("previous_session"))}</a></p>` : ""}`;
}

function logLine(e, names, round, decls = null) {
  const who = (s) => names[s] ?? `#${s}`;
  switch (e.type) {
    case "SessionStarted": return t("log_started", { names: e.names.join(", ") });
    case "AntesPosted": {
      const total = e.amounts.reduce((a, b) => a + b, 0);
      return t(e.new_game ? "log_antes_new" : "log_antes", { chips: total }) + (e.refill ? ` ${t("log_refill", { chips: e.refill })}` : "");
    }
    case "CardsDealt": {
      const own = S.seat != null ? e.hands[S.seat] : null;
      return t("log_dealt", { n: round }) + (own ? ` ${t("log_your_cards", { cards: handText(own) })}` : "");
    }
    // A seat the timer counted out did not act: its line says so (the "timeout" message
    // follows the change's events; the deadline and to_act are everyone's, so it is public).
    case "DeclarationSealed":
      return timedOut(round, e.seat) ? t("log_timed_out", { name: who(e.seat) }) : t("log_sealed", { name: who(e.seat) });
    case "Declared":
      return timedOut(round, e.seat) ? t("log_timed_out", { name: who(e.seat) }) : t("log_declared", { name: who(e.seat), d: t(`decl.${e.declaration}`) });
    case "DeclarationsRevealed":
      return t("log_revealed", { list: e.declarations.map((d, s) => (d ? `${who(s)} ${t(`decl.${d}`)}${timerMark(round, s)}` : null)).filter(Boolean).join(", ") });
    case "RoundResolved": {
      const shown = (e.shown || []).map((h, s) => (h ? `${who(s)}: ${handText(h)}` : null)).filter(Boolean);
      return [...(shown.length ? [t("log_shown", { list: shown.join("; ") })] : []), ...resultLines(e, names, decls)].join(" · ");
    }
    case "SessionEnded": {
      const share = shareOut(e.payouts, names);
      return t("log_ended", { reason: endReason(e.reason) }) + (share ? ` ${share}` : "");
    }
    case "Rebought": return tn("log_rebought", e.chips, { name: who(e.seat), chips: e.chips });
    case "SatOut": return t("log_sat_out", { name: who(e.seat) });
    case "SeatAway": return t("log_seat_away", { name: who(e.seat) });
    case "SeatBack": return t("log_seat_back", { name: who(e.seat) });
    case "SeatLeft": return t("log_seat_left", { name: who(e.seat) });
    case "SeatRemoved": return t("log_seat_removed", { name: who(e.seat) });
    case "HandShown": return t("log_hand_shown", { name: who(e.seat), cards: handText(e.hand) });
    case "Misdealt": return t("log_misdeal");
    case "CardsShown": return t("log_cards_shown");
    case "WinnersNamed": {
      const parts = [tn("log_winners_named", Math.max(e.winners.length, 1), { names: e.winners.map(who).join(", ") || t("ghost") })];
      if (e.low_winners?.length) parts.push(t("log_low_named", { names: e.low_winners.map(who).join(", ") }));
      if (e.losers?.length) parts.push(t("log_losers_named", { names: e.losers.map(who).join(", ") }));
      return parts.join(" ");
    }
    case "RoundUndone": return t("log_round_undone", { n: e.round });
    case "PassSealed":
    case "PassChosen": return t("log_pass_chosen", { name: who(e.seat) });
    case "PassSeen":
      return e.passed ? t("log_pass_seen", { passed: handText([e.passed]), received: handText([e.received]) }) : t("log_passed");
    default: return e.type;
  }
}

function logHtml() {
  const names = S.table?.names ?? S.room.seats.map((s) => s.name);
  const lines = [];
  let round = 0;
  let decls = null; // the round's revealed declarations (Hi-Lo: who played which side)
  S.events.forEach((e) => {
    if (!e) return;
    if (e.type === "CardsDealt") round += 1;
    if (e.type === "RoundUndone") round = e.round - 1; // companion: dealt again, same number
    if (e.type === "DeclarationsRevealed") decls = e.declarations;
    if (e.type === "DeclarationsRevealed" && companion.counting()) return; // not before the count ends
    lines.push(`<li class="log-${e.type}">${esc(logLine(e, names, round, decls))}</li>`);
  });
  return lines.reverse().slice(0, 300).join("");
}

function rulesHtml() {
  // Every house rule in words (ruleLabel / ruleValue): the main ones first, then the
  // others where they differ from the default.
  const room = S.room;
  const r = room.rules;
  const items = [
    [ruleLabel("cards_per_hand"), ruleValue("cards_per_hand", r.cards_per_hand)],
    [ruleLabel("ante"), r.ante],
    [t("buy_in"), room.buy_in],
    [ruleLabel("declaration"), ruleValue("declaration", r.declaration)],
    [ruleLabel("pot_cap"), ruleValue("pot_cap", r.pot_cap)],
  ];
  // no clock at a real table: a companion room never counts anyone out (the server runs no
  // timer there, docs/protocol.md), so its timer field is not shown
  if (!room.companion) items.push([t("timer"), t("seconds", { s: room.decision_seconds })]);
  const variants = ["hi_lo", "pass_the_trash", "community_card", "ghost_hand", "no_peek"].filter((v) => r[v]);
  if (variants.length) items.push([t("variants"), variants.map(ruleLabel).join(", ")]);
  const meta = S.rulesMeta;
  const shown = new Set(["cards_per_hand", "ante", "declaration", "pot_cap", "hi_lo", "pass_the_trash", "community_card", "ghost_hand", "no_peek"]);
  const others = meta ? Object.entries(r).filter(([k, v]) => !shown.has(k) && meta.rules[k] && JSON.stringify(v) !== JSON.stringify(meta.rules[k].default)) : [];
  for (const [k, v] of others) items.push([ruleLabel(k), ruleValue(k, v)]);
  return `<dl class="rules" id="rules-list">${items.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(String(v))}</dd>`).join("")}</dl>`;
}

function bindRoom() {
  const on = (id, handler) => { const el = document.getElementById(id); if (el) el.onclick = handler; };
  if (S.room?.companion && S.table) companion.bind();
  on("retry-now", () => S.conn.retryNow());
  on("copy-invite", async () => {
    const input = $("#invite");
    try {
      await navigator.clipboard.writeText(input.value);
      toast(t("copied"), "info");
    } catch {
      input.select();
    }
  });
  on("add-bot", () => send({ type: "add_bot", style: $("#bot-style").value }));
  const botStyle = document.getElementById("bot-style");
  if (botStyle) botStyle.onchange = () => { S.botStyle = botStyle.value; }; // kept when the lobby re-renders
  on("start", () => send({ type: "start" }));
  on("leave", () => send({ type: "leave" }));
  on("sit-out", () => send({ type: "sit_out" }));
  on("show-hand", () => send({ type: "show_hand" }));
  on("come-back", () => send({ type: "come_back" }));
  on("leave-table", async () => { if (await ask(t("confirm_leave"), t("leave_table"))) send({ type: "leave" }); });
  on("pause", () => send({ type: "pause" }));
  on("resume", () => send({ type: "resume" }));
  on("end-session", async () => { if (await ask(t("confirm_end"), t("end_session"))) send({ type: "end_session" }); });
  for (const el of document.querySelectorAll("[data-kick]")) {
    el.onclick = async () => {
      const seat = Number(el.dataset.kick);
      if (await ask(t("confirm_kick", { name: S.room.seats[seat]?.name ?? seat }), t("kick"))) send({ type: "kick", seat });
    };
  }
  for (const el of document.querySelectorAll("[data-declare]")) el.onclick = () => declare(el.dataset.declare);
  on("rebuy", () => send({ type: "rebuy", chips: Number($("#rebuy-chips").value) }));
  for (const el of document.querySelectorAll("[data-approve-rebuy]")) {
    el.onclick = () => send({ type: "approve_rebuy", seat: Number(el.dataset.approveRebuy) });
  }
  for (const el of document.querySelectorAll("[data-deny-rebuy]")) {
    el.onclick = () => send({ type: "deny_rebuy", seat: Number(el.dataset.denyRebuy) });
  }
  for (const el of document.querySelectorAll("[data-pass]")) el.onclick = () => passCard(el.dataset.pass);
  for (const el of document.querySelectorAll("[data-react]")) el.onclick = () => send({ type: "react", emoji: el.dataset.react });
  for (const el of document.querySelectorAll("[data-mute]")) {
    el.onclick = () => send({ type: "mute", seat: Number(el.dataset.mute), muted: el.dataset.muted !== "1" });
  }
  const chatForm = document.getElementById("chat-form");
  if (chatForm) {
    chatForm.onsubmit = (event) => {
      event.preventDefault();
      const input = $("#chat-input");
      const text = input.value.trim();
      if (text && send({ type: "chat", text: text.slice(0, MAX_CHAT) })) input.value = "";
    };
  }
  for (const el of document.querySelectorAll("[data-chair]")) {
    el.onclick = () => {
      const chair = Number(el.dataset.chair);
      S.chair = S.chair === chair ? null : chair;
      renderRoom();
    };
  }
  for (const el of document.querySelectorAll("[data-approve-seat]")) {
    el.onclick = () => send({ type: "approve_seat", request: Number(el.dataset.approveSeat) });
  }
  for (const el of document.querySelectorAll("[data-deny-seat]")) {
    el.onclick = () => send({ type: "deny_seat", request: Number(el.dataset.denySeat) });
  }
  on("rematch-carried", () => send({ type: "rematch", ledger: "carried" }));
  on("rematch-reset", () => send({ type: "rematch", ledger: "reset" }));
  const join = document.getElementById("join");
  const joinName = document.getElementById("join-name");
  if (joinName && !joinName.dataset.filled) { // a new field: the name typed so far, or the last one used
    joinName.value = S.joinName ?? (localStorage.getItem("gutskit.name") || "");
    joinName.dataset.filled = "1";
  }
  if (joinName) joinName.oninput = () => { S.joinName = joinName.value; }; // kept when the room re-renders
  if (join) {
    join.onsubmit = (event) => {
      event.preventDefault();
      const name = $("#join-name").value.trim();
      if (!name) return;
      localStorage.setItem("gutskit.name", name);
      const message = { type: "join", name };
      if (S.chair != null) message.seat = S.chair;
      send(message);
    };
  }
}

main();
