// Translations: static/i18n/<code>.json, English as the fallback for any missing key.
// The language comes from the saved choice, else the browser's languages, else English.

export const LANGUAGES = {
  en: "English",
  de: "Deutsch",
  fr: "Français",
  et: "Eesti",
  id: "Bahasa Indonesia",
};

const STORE_KEY = "gutskit.lang";
let dict = {};
let fallback = {};
let current = "en";

async function fetchDict(code) {
  const response = await fetch(`/static/i18n/${code}.json`);
  if (!response.ok) throw new Error(`no translation ${code}`);
  return response.json();
}

/** The language to start with: the saved choice, else the browser's first known one. */
export function pickLanguage() {
  const saved = localStorage.getItem(STORE_KEY);
  if (saved && saved in LANGUAGES) return saved;
  const wanted = navigator.languages?.length ? navigator.languages : [navigator.language || "en"];
  for (const tag of wanted) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base in LANGUAGES) return base;
    if (base === "in") return "id"; // the old code of Indonesian
  }
  return "en";
}

/** Load language `code` (and remember the choice when `save`). */
export async function setLanguage(code, save = false) {
  if (!(code in LANGUAGES)) code = "en";
  if (!Object.keys(fallback).length) fallback = await fetchDict("en");
  dict = code === "en" ? fallback : await fetchDict(code);
  current = code;
  document.documentElement.lang = code;
  if (save) localStorage.setItem(STORE_KEY, code);
}

export function language() {
  return current;
}

/** The text of `key` with `{name}` placeholders filled from `params`. */
export function t(key, params = {}) {
  const text = dict[key] ?? fallback[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** Like t() with a count `n`: `key_one` when the language's plural rule puts `n` in its
 * "one" category (Intl.PluralRules: 1 in English, German, Estonian; 0 and 1 in French; never
 * in Indonesian), else `key_other`. */
export function tn(key, n, params = {}) {
  const one = `${key}_one`;
  const single = new Intl.PluralRules(current).select(n) === "one";
  const chosen = single && (one in dict || one in fallback) ? one : `${key}_other`;
  return t(chosen, { n, ...params });
}

/** SessionEnded.reason in the reader's language. The reason is the English text the core
 * (gutskit.core.table, gutskit.core.engine) or the server (gutskit.server.rooms) wrote into
 * the hand history; the ones gutskit writes are translated, any other is shown as written. */
const END_REASONS = {
  "the host ended the session": "end.host",
  "the table agreed to stop": "end.agreed",
  "fewer than two players left with chips": "end.no_chips",
  "fewer than two players left at the table": "end.no_players",
  "uncontested win after matched rounds (end_on_uncontested)": "end.uncontested",
};

export function endReason(reason) {
  const key = END_REASONS[reason];
  if (key) return t(key);
  const idle = /^the room was idle for ([\d.]+) minutes$/.exec(reason);
  return idle ? t("end.idle", { minutes: idle[1] }) : reason;
}

/** Whether `key` has a translation (or an English text). */
export function has(key) {
  return key in dict || key in fallback;
}
