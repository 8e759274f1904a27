// Playing cards as HTML: rank and suit symbol, red or black; backs for unseen cards.
import { t } from "./i18n.js";

const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const RED = new Set(["d", "h"]);

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (ch) => (
    { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch]));
}

/** The spoken name of a card such as "Td" ("ten of diamonds" in the page's language). */
export function cardLabel(name) {
  return t("card_label", { rank: t(`rank.${name[0]}`), suit: t(`suit.${name[1]}`) });
}

/** One face-up card. `extra`: more CSS classes. */
export function cardHtml(name, extra = "") {
  const rank = name[0] === "T" ? "10" : name[0];
  const suit = name[1];
  const colour = RED.has(suit) ? "red" : "black";
  return `<span class="card ${colour} ${extra}" role="img" aria-label="${escapeHtml(cardLabel(name))}"`
    + ` data-card="${escapeHtml(name)}"><span class="rank">${rank}</span>`
    + `<span class="suit" aria-hidden="true">${SUITS[suit] ?? "?"}</span></span>`;
}

/** A face-down card. */
export function backHtml(extra = "") {
  return `<span class="card back ${extra}" aria-hidden="true"></span>`;
}

/** A hand: a list of card names or a space-separated string. */
export function handHtml(cards, extra = "") {
  const list = typeof cards === "string" ? cards.split(/\s+/).filter(Boolean) : cards;
  return list.map((c) => cardHtml(c, extra)).join("");
}

/** A hand as plain text with suit symbols ("A♥ 10♦ 7♣") for logs. */
export function handText(cards) {
  const list = typeof cards === "string" ? cards.split(/\s+/).filter(Boolean) : cards;
  return list.map((c) => `${c[0] === "T" ? "10" : c[0]}${SUITS[c[1]] ?? "?"}`).join(" ");
}
