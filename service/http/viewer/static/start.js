// Start a match from the catalogue (GET /v1/games), your matches (the seats this browser holds) and the
// lobby's open seats. Every rule of what may be created is the server's: the page shows its refusals.
import { byId, element, games as catalogue, getJson, postJson, showProblem, statusWord } from "./api.js";
import { number, ready, t } from "./i18n.js";
import { held, remember, rememberCreated } from "./seats.js";

/** @typedef {import("./matchlog").components["schemas"]["Game"]} Game */
/** @typedef {import("./matchlog").components["schemas"]["Match"]} Match */
/** @type {Game[]} */
let games = [];

const gameSelect = /** @type {HTMLSelectElement} */ (byId("game"));
const countSelect = /** @type {HTMLSelectElement} */ (byId("count"));

function chosen() {
  return games.find((g) => g.id === gameSelect.value) || games[0];
}

function showCounts() {
  const game = chosen();
  const before = Number(countSelect.value) || 2;
  countSelect.replaceChildren(...game.player_counts.map((/** @type {number} */ n) => element("option", { value: String(n) }, number(n))));
  countSelect.value = String(game.player_counts.includes(before) ? before : game.player_counts.includes(2) ? 2 : game.player_counts[0]);
  byId("game-description").textContent = game.description;
  showSeats();
  showOptions();
}

function showSeats() {
  const game = chosen();
  const list = byId("seat-list");
  const count = Number(countSelect.value);
  list.replaceChildren(...Array.from({ length: count }, (_, seat) => {
    const kind = /** @type {HTMLSelectElement} */ (element("select", { id: `seat-${seat}-kind`, "aria-label": t("Seat {seat}: who plays it", { seat }) },
      element("option", { value: "me" }, t("Me")),
      element("option", { value: "person" }, t("A person I send a link to")),
      element("option", { value: "open" }, t("An open seat (anyone may join)")),
      ...game.bots.map((bot) => element("option", { value: `bot:${bot}` }, t("The {bot} bot", { bot })))));
    kind.value = seat === 0 ? "me" : game.bots.length ? `bot:${game.bots[0]}` : "person";
    const name = element("input", { id: `seat-${seat}-name`, "aria-label": t("Seat {seat}: name", { seat }), value: seat === 0 ? t("me") : t("player {number}", { number: seat + 1 }), size: "12" });
    const sync = () => { name.hidden = kind.value.startsWith("bot:") || kind.value === "open"; };
    kind.addEventListener("change", sync);
    sync();
    return element("li", {}, element("span", {}, t("Seat {seat}:", { seat })), " ", kind, " ", name);
  }));
}

/**
 * An option's field as the form reads it: its value now (undefined: nothing given), and its value when
 * drawn, so that an option left as it was is not sent and the server's own defaults (some by player
 * count) apply.
 * @typedef {{name: string, read: () => unknown, initial: string}} OptionField
 */
/** @type {OptionField[]} */
let optionFields = [];

/** @typedef {Record<string, any>} Schema an option's JSON Schema, as the catalogue gives it */

// One field per option of the game's options_schema, each at its default. An option that takes one of
// several shapes (anyOf, oneOf, or a list of types such as ["integer", "null"]) is a choice of those
// shapes, then the chosen one's own field: a person picks "a number" and types it, never JSON.
function showOptions() {
  /** @type {{properties?: Record<string, Schema>}} */
  const schema = chosen().options_schema || {};
  optionFields = [];
  const fields = Object.entries(schema.properties || {}).map(([name, spec]) => {
    const id = `option-${name}`;
    const shapes = alternatives(spec);
    const drawn = shapes ? choiceField(id, name, spec, shapes) : plainField(id, name, spec, spec.default);
    const value = drawn.read();
    optionFields.push({ name, read: drawn.read, initial: value === undefined ? "" : JSON.stringify(value) });
    const help = element("span", { class: "help", id: `${id}-help` }, spec.description || "");
    if (drawn.nodes.length) drawn.nodes[0].setAttribute("aria-describedby", `${id}-help`);
    return element("p", {}, element("label", { for: id }, name), " ", ...drawn.nodes, element("br"), help);
  });
  byId("options-fields").replaceChildren(...fields);
}

/** The shapes an option's value may take, where it has more than one. @param {Schema} spec @returns {Schema[] | null} */
function alternatives(spec) {
  const listed = spec.anyOf || spec.oneOf;
  if (Array.isArray(listed)) return listed;
  if (Array.isArray(spec.type) && spec.type.length > 1) {
    const { type, default: _, description: __, ...rest } = spec;
    return spec.type.map((/** @type {string} */ one) => (one === "null" ? { type: one } : { ...rest, type: one }));
  }
  return null;
}

/** @param {Schema} shape @param {unknown} value whether the value has this shape (its kind, not its limits) */
function fits(shape, value) {
  if ("const" in shape) return JSON.stringify(shape.const) === JSON.stringify(value);
  if (Array.isArray(shape.enum)) return shape.enum.some((/** @type {unknown} */ v) => JSON.stringify(v) === JSON.stringify(value));
  if (shape.type === "null") return value === null;
  if (shape.type === "array") return Array.isArray(value);
  if (shape.type === "integer") return Number.isInteger(value);
  if (shape.type === "number") return typeof value === "number";
  return typeof value === shape.type;
}

/** A shape's name in the choice, in the page's words. @param {Schema} shape */
function shapeName(shape) {
  if (typeof shape.title === "string") return shape.title;
  if ("const" in shape) return String(shape.const);
  if (Array.isArray(shape.enum)) return t("one of {values}", { values: shape.enum.map(String).join(t(", ")) });
  if (shape.type === "null") return t("none");
  if (shape.type === "integer" || shape.type === "number") {
    return shape.minimum !== undefined && shape.maximum !== undefined
      ? t("a number from {minimum} to {maximum}", { minimum: shape.minimum, maximum: shape.maximum }) : t("a number");
  }
  if (shape.type === "boolean") return t("yes or no");
  if (shape.type === "array" && tuple(shape)) return t("{count} numbers", { count: shape.minItems });
  if (shape.type === "array") return t("a list");
  return t("a text");
}

/** A list of a fixed few numbers ([width, depth]): as many number fields. @param {Schema} shape */
function tuple(shape) {
  const items = shape.items || {};
  return shape.minItems === shape.maxItems && shape.minItems > 0 && shape.minItems <= 8
    && (items.type === "integer" || items.type === "number");
}

/**
 * A choice of the option's shapes, the chosen one's field beside it; at first the shape of the default
 * (or "(the default)" where the option has none).
 * @param {string} id @param {string} name @param {Schema} spec @param {Schema[]} shapes
 * @returns {{nodes: HTMLElement[], read: () => unknown}}
 */
function choiceField(id, name, spec, shapes) {
  const hasDefault = spec.default !== undefined;
  const select = /** @type {HTMLSelectElement} */ (element("select", { id, "data-option": name },
    ...(hasDefault ? [] : [element("option", { value: "" }, t("(the default)"))]),
    ...shapes.map((shape, i) => element("option", { value: String(i) }, shapeName(shape)))));
  const first = hasDefault ? shapes.findIndex((shape) => fits(shape, spec.default)) : -1;
  select.value = first >= 0 ? String(first) : hasDefault ? "0" : "";
  const holder = element("span", { class: "option-shape" });
  /** @type {() => unknown} */
  let read = () => undefined;
  const show = () => {
    const shape = select.value === "" ? null : shapes[Number(select.value)];
    const start = shape && hasDefault && fits(shape, spec.default) ? spec.default : undefined;
    const drawn = shape ? plainField(`${id}-value`, name, shape, start, t("{option}: its value", { option: name })) : null;
    holder.replaceChildren(...(drawn ? [" ", ...drawn.nodes] : []));
    read = drawn ? drawn.read : () => undefined;
  };
  select.addEventListener("change", show);
  show();
  return { nodes: [select, holder], read: () => read() };
}

/**
 * The field of one shape: nothing to type for a constant or null, a select of an enum, a checkbox, a
 * number (or a few), else the value as JSON.
 * @param {string} id @param {string} name @param {Schema} spec @param {unknown} start the value shown first
 * @param {string} [label] the field's accessible name, where the option's label names the choice instead
 * @returns {{nodes: HTMLElement[], read: () => unknown}}
 */
function plainField(id, name, spec, start, label) {
  /** @type {Record<string, string>} */
  const named = label ? { "aria-label": label } : {};
  if ("const" in spec) return { nodes: [], read: () => spec.const };
  if (spec.type === "null") return { nodes: [], read: () => null };
  if (Array.isArray(spec.enum)) {
    const input = /** @type {HTMLSelectElement} */ (element("select", { id, "data-option": name, ...named },
      ...(start === undefined ? [element("option", { value: "" }, t("(the default)"))] : []),
      ...spec.enum.map((/** @type {unknown} */ v) => element("option", { value: JSON.stringify(v) }, String(v)))));
    input.value = start === undefined ? "" : JSON.stringify(start);
    return { nodes: [input], read: () => (input.value === "" ? undefined : JSON.parse(input.value)) };
  }
  if (spec.type === "boolean") {
    const input = /** @type {HTMLInputElement} */ (element("input", { id, type: "checkbox", "data-option": name, ...named }));
    input.checked = Boolean(start);
    return { nodes: [input], read: () => input.checked };
  }
  if (spec.type === "integer" || spec.type === "number") {
    const input = numberInput(id, name, spec, start, named);
    return { nodes: [input], read: () => (input.value === "" ? undefined : Number(input.value)) };
  }
  if (spec.type === "array" && tuple(spec)) {
    const values = Array.isArray(start) ? start : [];
    const inputs = Array.from({ length: spec.minItems }, (_, n) => numberInput(n ? `${id}-${n}` : id, name, spec.items, values[n],
      { "aria-label": t("{option}: number {n} of {count}", { option: name, n: n + 1, count: spec.minItems }) }));
    // a list with a field left empty is not given: the server's default stays
    return { nodes: inputs, read: () => (inputs.some((input) => input.value === "") ? undefined : inputs.map((input) => Number(input.value))) };
  }
  const input = /** @type {HTMLInputElement} */ (element("input", { id, "data-option": name, ...named, value: start === undefined ? "" : spec.type === "string" ? String(start) : JSON.stringify(start) }));
  return {
    nodes: [input],
    read: () => {
      if (input.value === "") return undefined;
      if (spec.type === "string") return input.value;
      try {
        return JSON.parse(input.value);
      } catch {
        return input.value;  // not JSON: sent as it is, for the server to refuse with its reason
      }
    },
  };
}

/** @param {string} id @param {string} name @param {Schema} spec @param {unknown} start @param {Record<string, string>} named */
function numberInput(id, name, spec, start, named) {
  /** @type {Record<string, string>} */
  const limits = {};
  if (spec.minimum !== undefined) limits.min = String(spec.minimum);
  if (spec.maximum !== undefined) limits.max = String(spec.maximum);
  if (spec.type === "integer") limits.step = "1";
  return /** @type {HTMLInputElement} */ (element("input", { id, type: "number", "data-option": name, ...named, ...limits,
    value: typeof start === "number" ? String(start) : "" }));
}

/** @param {Event} event */
async function create(event) {
  event.preventDefault();
  const count = Number(countSelect.value);
  /** @type {import("./matchlog").components["schemas"]["CreateMatch"]["players"]} */
  const players = [];
  /** @type {number[]} */
  const mine = [];
  for (let seat = 0; seat < count; seat++) {
    const kind = /** @type {HTMLSelectElement} */ (byId(`seat-${seat}-kind`)).value;
    const name = /** @type {HTMLInputElement} */ (byId(`seat-${seat}-name`)).value.trim() || t("player {number}", { number: seat + 1 });
    const bot = chosen().bots.find((listed) => `bot:${listed}` === kind);  // the catalogue's name, typed
    if (bot !== undefined) players.push({ bot });
    else if (kind === "open") players.push({ open: true });
    else players.push({ name });
    if (kind === "me") mine.push(seat);
  }
  /** @type {Record<string, unknown>} */
  const options = {};
  for (const field of optionFields) {
    const value = field.read();
    if (value !== undefined && JSON.stringify(value) !== field.initial) options[field.name] = value;
  }
  // the game and its options' shape are the catalogue's, known only when the page runs
  const body = /** @type {import("./matchlog").components["schemas"]["CreateMatch"]} */ ({ game: chosen().id, players, options });
  const made = await postJson("/v1/matches", { body });
  if (made.creator_token) rememberCreated(made.id, made.creator_token);
  const links = byId("created-links");
  links.replaceChildren(...made.seats.map((seat) => {
    if (!seat.play_url) {
      return element("li", {}, seat.open ? t("Seat {seat}: open, for anyone to join from the lobby", { seat: seat.seat })
        : t("Seat {seat}: {name}", { seat: seat.seat, name: seat.name || "" }));
    }
    const url = new URL(seat.play_url, location.href).href;
    if (mine.includes(seat.seat) && seat.token) {
      remember(made.id, seat.token);
      return element("li", {}, element("a", { href: url, class: "play" }, t("Play seat {seat} ({name}) now", { seat: seat.seat, name: seat.name || "" })));
    }
    return element("li", {}, t("Link for seat {seat} ({name}), to send to its player:", { seat: seat.seat, name: seat.name || "" }), " ",
      element("input", { readonly: "", value: url, "aria-label": t("Link for seat {seat}", { seat: seat.seat }), size: "40" }));
  }), element("li", {}, element("a", { href: new URL(made.spectate_url, location.href).href }, t("The spectators' page"))));
  const section = byId("created");
  section.hidden = false;
  section.focus();
  const play = /** @type {HTMLAnchorElement | null} */ (section.querySelector("a.play"));
  if (play) play.focus();
  showMine();
}

async function showMine() {
  const ids = Object.keys(held());
  if (!ids.length) return;
  const items = [];
  for (const id of ids.slice(-20)) {
    const match = await getJson("/v1/matches/{match_id}", { path: { match_id: id } }).catch(() => null);
    if (!match) continue;
    const name = (games.find((g) => g.id === match.game) || { name: match.game }).name;
    const seated = match.players.map((p) => p.name || t("open seat")).join(t(", "));
    items.push(element("li", {}, element("a", { href: `/play/${id}` }, `${name}: ${seated}`), ` (${statusWord(match.status)})`));
  }
  byId("mine-list").replaceChildren(...items.reverse());
  byId("mine").hidden = items.length === 0;
}

async function showLobby() {
  const page = await getJson("/v1/matches", { query: { status: "open", order: "newest", limit: 20 } });
  const items = [];
  for (const match of page.matches) {
    const name = (games.find((g) => g.id === match.game) || { name: match.game }).name;
    for (const player of match.players.filter((p) => p.open)) {
      const button = element("button", { type: "button", "data-match": match.id, "data-seat": String(player.seat) },
        t("Join {game} in seat {seat}", { game: name, seat: player.seat }));
      button.addEventListener("click", async () => {
        const who = prompt(t("Your name at the table?"), t("guest"));
        if (!who) return;
        const joined = await postJson("/v1/matches/{match_id}/seats/{seat}/join", { path: { match_id: match.id, seat: player.seat }, body: { name: who } }).catch(showProblem);
        if (!joined) return;
        remember(match.id, joined.token);
        location.href = `/play/${match.id}`;
      });
      items.push(element("li", {}, button));
    }
  }
  byId("lobby-list").replaceChildren(...items);
  byId("lobby").hidden = items.length === 0;
}

async function main() {
  await ready;
  games = await catalogue();
  gameSelect.replaceChildren(...games.map((g) => element("option", { value: g.id }, g.name)));
  gameSelect.addEventListener("change", showCounts);
  countSelect.addEventListener("change", showSeats);
  byId("start-form").addEventListener("submit", (event) => create(event).catch(showProblem));
  showCounts();
  await Promise.all([showMine(), showLobby()]);
}

main().catch(showProblem);
