// The pages' words in the reader's language. The words are the server's gettext catalogues (ids are the
// English texts, with {name} placeholders); the server picks the language from the Accept-Language this
// module sends: the switch's choice (kept in this origin's localStorage) first, then navigator.languages.
// English is the fallback, and a word with no translation is said in English.

const KEY = "matchlog.language";

/** @typedef {{language: string, languages: Record<string, string>, messages: Record<string, string>, name?: string}} Messages */

let spoken = "en";
/** @type {Record<string, string>} */
let shell = {};
/** @type {Record<string, string>} */
let names = { en: "English" };

/** The language the pages speak now (and ask the API to speak). */
export function language() {
  return spoken;
}

// The reader's preferences, the switch's choice first, as an Accept-Language header (at most ten tags).
function preferences() {
  /** @type {string[]} */
  const tags = [];
  let stored = null;
  try {
    stored = localStorage.getItem(KEY);
  } catch {
    stored = null;  // storage refused (a private window): the browser's languages alone
  }
  for (const tag of [stored, ...(navigator.languages || [navigator.language])]) {
    if (tag && /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag) && !tags.includes(tag)) tags.push(tag);
  }
  return tags.slice(0, 10).map((tag, i) => (i ? `${tag};q=${(1 - i / 10).toFixed(1)}` : tag)).join(", ") || "en";
}

/** @param {string} query @param {string} accept @returns {Promise<Messages>} */
async function fetchMessages(query, accept) {
  const response = await fetch(`/viewer/messages${query}`, { headers: { Accept: "application/json", "Accept-Language": accept } });
  if (!response.ok) return { language: "en", languages: names, messages: {} };
  return response.json();
}

/**
 * A message in the page's language, its {placeholders} filled (numbers formatted for the language).
 * @param {Record<string, string>} table @param {string} msgid @param {Record<string, unknown>} [values]
 */
function said(table, msgid, values) {
  const text = table[msgid] || msgid;
  if (!values) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? shown(values[name]) : whole));
}

/** @param {unknown} value */
function shown(value) {
  return typeof value === "number" ? number(value) : String(value);
}

/** The shell's words: a message id (its English), and the values of its placeholders. @param {string} msgid @param {Record<string, unknown>} [values] */
export function t(msgid, values) {
  return said(shell, msgid, values);
}

/** @typedef {(msgid: string, values?: Record<string, unknown>) => string} Translate */

/**
 * A game's board's words (its own catalogue's), in the page's language, and the game's name as its box says it.
 * @param {string} game @returns {Promise<{words: Translate, name: string}>}
 */
export async function gameWords(game) {
  const answer = await fetchMessages(`?game=${encodeURIComponent(game)}`, spoken);
  return { words: (msgid, values) => said(answer.messages, msgid, values), name: answer.name || game };
}

/** A number as the language writes it. @param {number} value */
export function number(value) {
  return new Intl.NumberFormat(spoken).format(value);
}

/** A date and time as the language writes it. @param {string} iso */
export function dateTime(iso) {
  const when = new Date(iso);
  return Number.isNaN(when.getTime()) ? iso : new Intl.DateTimeFormat(spoken, { dateStyle: "medium", timeStyle: "short" }).format(when);
}

// The HTML's own words: each element marked data-t says its text as a message, and the attributes its
// data-t-attrs names; the English stays in data-t (and data-t-<attribute>) for a later change of language.
function translateDocument() {
  for (const node of document.querySelectorAll("[data-t]")) {
    const element = /** @type {HTMLElement} */ (node);
    if (!element.dataset.t) element.dataset.t = (element.textContent || "").split(/\s+/).filter(Boolean).join(" ");
    element.textContent = said(shell, element.dataset.t);
  }
  for (const node of document.querySelectorAll("[data-t-attrs]")) {
    for (const attribute of (node.getAttribute("data-t-attrs") || "").split(/\s+/).filter(Boolean)) {
      const kept = `data-t-${attribute}`;
      if (!node.hasAttribute(kept)) node.setAttribute(kept, (node.getAttribute(attribute) || "").split(/\s+/).filter(Boolean).join(" "));
      node.setAttribute(attribute, said(shell, node.getAttribute(kept) || ""));
    }
  }
}

// The switch: a select of the languages the server speaks, each named in itself. A choice is kept and the
// page read again, so that everything on it, the server's texts too, comes in the new language.
function showSwitch() {
  const select = /** @type {HTMLSelectElement | null} */ (document.getElementById("language"));
  if (!select) return;
  select.replaceChildren(...Object.entries(names).map(([code, name]) => {
    const option = document.createElement("option");
    option.value = code;
    option.lang = code;
    option.textContent = name;
    return option;
  }));
  select.value = spoken;
  select.addEventListener("change", () => {
    try {
      localStorage.setItem(KEY, select.value);
    } catch {
      return;  // nowhere to keep it
    }
    location.reload();
  });
}

async function load() {
  const answer = await fetchMessages("", preferences()).catch(() => null);
  if (answer) {
    spoken = answer.language;
    shell = answer.messages;
    names = answer.languages;
  }
  document.documentElement.lang = spoken;
  translateDocument();
  showSwitch();
}

/** Resolves once the page's words are known: every page module awaits it before it writes a word. */
export const ready = load();
