import { byId, element, followLog, getJson, getText, players, postJson, showProblem, showTournament, statusWord } from "./api.js";
import { number, ready, t } from "./i18n.js";

/** @typedef {import("./matchlog").components["schemas"]["Match"]} Match */
/** @typedef {import("./matchlog").components["schemas"]["Event"]} Entry a log entry, as a page of the log or its stream has it */
/** @typedef {import("./matchlog").components["schemas"]["AnalysisResult"]} AnalysisResult */
/** @typedef {import("./matchlog").components["schemas"]["AnalysedMove"]} AnalysedMove */
/** @typedef {AnalysedMove["classification"]} Classification */
/** @typedef {Pick<NonNullable<Match["result"]>, "ranks" | "scores"> & {breakdown?: unknown}} Result what the result table reads of a game's result */

const SVG_NS = "http://www.w3.org/2000/svg";
const matchId = decodeURIComponent(location.pathname.split("/").pop() || "");
// A seat's token comes in the URL fragment (#token=...), which the browser never sends to a server.
const token = new URLSearchParams(location.hash.slice(1)).get("token");
/** @type {Record<string, string>} */
const auth = token ? { Authorization: `Bearer ${token}` } : {};

const board = byId("board");
const slider = /** @type {HTMLInputElement} */ (byId("slider"));
const list = byId("events");
/** @type {Entry[]} */
const entries = [];  // entries[version - 1]
/** @type {Map<number, string>} */
const pictures = new Map();  // version -> SVG text
let latest = 0;
let shown = 0;
let following = true;  // at the latest version: new entries move the board on
let drawing = 0;
/** @type {Match} the match as last read: read first thing, before anything shows it */
let match = /** @type {Match} */ (/** @type {unknown} */ (null));
let loading = false;  // reading the log as it stands, before following it live
let gameName = "";

/** @param {number} version @returns {Entry | undefined} */
function at(version) {
  return entries[version - 1];
}

/** @param {Entry} entry */
function addEntry(entry) {
  if (at(entry.version)) return;
  entries[entry.version - 1] = entry;
  const item = element("li", { value: String(entry.version), "data-version": String(entry.version) }, said(entry));
  item.addEventListener("click", () => show(entry.version));
  const before = [...list.children].find((li) => Number(li.getAttribute("data-version")) > entry.version);
  list.insertBefore(item, before || null);
  latest = Math.max(latest, entry.version);
  slider.max = String(latest);
  if (entry.type === "match_scored") showResult(entry.data);
  if (loading) return;  // the whole log at once: one drawing at the end, not one fetch per entry
  if (following) show(latest);
  else showPosition();
}

// Who a seat is, in words: "seat 1 (bob)".
/** @param {number} seat */
function seatName(seat) {
  const player = match && match.players[seat];
  return player && player.name ? t("seat {seat} ({name})", { seat, name: player.name }) : t("seat {seat}", { seat });
}

// An entry as the list says it: a bot's or the clock's move says for whom it is made.
/** @param {Entry} entry */
function said(entry) {
  if (entry.type !== "acted_by") return entry.text ?? "";
  return t("{text} for {who}:", { text: (entry.text ?? "").replace(/[:：]$/, ""), who: seatName(/** @type {number} */ (entry.seat)) });
}

// The current entry scrolled into view inside the list only: scrollIntoView would scroll the whole
// window too, taking the title (on a desktop) or the board (on a phone) off the screen.
/** @param {HTMLElement} item */
function revealInList(item) {
  const top = item.offsetTop;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top + item.offsetHeight - list.clientHeight;
  }
}

function showPosition() {
  byId("position").textContent = t("Version {shown} of {latest}", { shown, latest });
}

/** @param {number} version */
function show(version) {
  if (latest === 0) return;
  shown = Math.min(Math.max(1, version), latest);
  following = shown === latest;
  slider.value = String(shown);
  showPosition();
  const entry = at(shown);
  byId("step-text").textContent = entry ? `${number(shown)}. ${entry.text}` : "";
  for (const item of list.querySelectorAll("[aria-current]")) item.removeAttribute("aria-current");
  /** @type {HTMLElement | null} */
  const current = list.querySelector(`[data-version="${shown}"]`);
  if (current) {
    current.setAttribute("aria-current", "step");
    revealInList(current);
  }
  draw(shown).catch(showProblem);
}

/** @param {number} version */
async function draw(version) {
  const mine = ++drawing;
  let text = pictures.get(version);
  if (text === undefined) {
    text = await getText(`/v1/matches/${matchId}/state?version=${version}`, "image/svg+xml", auth);
    pictures.set(version, text);
  }
  if (mine !== drawing) return;  // a later step was asked for meanwhile
  const picture = document.importNode(new DOMParser().parseFromString(text, "image/svg+xml").documentElement, true);
  labelled(picture, version);
  board.replaceChildren(picture);
  board.dataset.version = String(version);
}

// The board's title and description, where the game's drawing has none (marked, so that they can be
// told apart from the game's own).
/** @param {Element} picture @param {number} version */
function labelled(picture, version) {
  /** @param {string} tag @param {string} text @param {Element | null} [after] */
  const add = (tag, text, after) => {
    if (picture.querySelector(`:scope > ${tag}`)) return;
    const node = document.createElementNS(SVG_NS, tag);
    node.setAttribute("data-viewer", "");
    node.textContent = text;
    after ? after.after(node) : picture.prepend(node);
  };
  add("title", t("{game} board at version {version}", { game: gameName, version }));
  const entry = at(version);
  add("desc", entry ? entry.text ?? "" : "", picture.querySelector(":scope > title"));
}

function showSummary() {
  document.title = t("matchlog: {game}, {players}", { game: gameName, players: players(match) });
  byId("title").textContent = `${gameName}: ${players(match)}`;
  const seen = token ? t("{status}, version {version}, seen by your seat", { status: statusWord(match.status), version: match.version })
    : t("{status}, version {version}, seen as a spectator", { status: statusWord(match.status), version: match.version });
  const acting = match.to_act.length ? t("; to act: {seats}", { seats: match.to_act.map((s) => t("seat {seat}", { seat: s })).join(t(", ")) }) : "";
  byId("summary").textContent = seen + acting;
  const seats = match.players.map((p) => {
    if (p.open) return t("seat {seat} open", { seat: p.seat });
    return p.bot ? t("{who}, the {bot} bot", { who: seatName(p.seat), bot: p.bot }) : seatName(p.seat);
  });
  byId("seats").textContent = t("Seats: {seats}", { seats: seats.join(t("; ")) });
  showTournament(match);
  if (match.result) showResult(match.result);
}

/** @param {Result} result */
function showResult(result) {
  const section = byId("result");
  const rows = section.querySelector("tbody");
  const seats = result.ranks.map((rank, seat) => ({ rank, seat })).sort((a, b) => a.rank - b.rank);
  rows?.replaceChildren(...seats.map(({ rank, seat }) => element("tr", {},
    element("td", {}, number(rank)), element("td", {}, number(seat)),
    element("td", {}, match && match.players[seat] ? match.players[seat].name || "" : ""),
    element("td", {}, typeof result.scores[seat] === "number" ? number(result.scores[seat]) : String(result.scores[seat])))));
  const breakdown = section.querySelector("pre");
  if (breakdown) breakdown.textContent = JSON.stringify(result.breakdown ?? result, null, 2);
  byId("result-order").textContent = scoreOrder(result);
  section.hidden = false;
}

// Whether the game's winners have the higher or the lower score, as the ranks show it.
/** @param {Result} result */
function scoreOrder(result) {
  const best = result.scores.filter((_, seat) => result.ranks[seat] === 1);
  const rest = result.scores.filter((_, seat) => result.ranks[seat] !== 1);
  if (!best.length || !rest.length || best.some((s) => typeof s !== "number")) return t("Rank 1 wins.");
  if (Math.min(...best) > Math.max(...rest)) return t("Rank 1 wins: the higher score is better.");
  if (Math.max(...best) < Math.min(...rest)) return t("Rank 1 wins: the lower score is better.");
  return t("Rank 1 wins (ranked by the game's rules, not by score alone).");
}

async function readLog() {
  loading = true;
  try {
    await readPages();
  } finally {
    loading = false;
  }
}

async function readPages() {
  for (;;) {
    const page = await getJson("/v1/matches/{match_id}/events", { path: { match_id: matchId }, query: { after: latest, limit: 1000 }, headers: auth });
    page.events.forEach(addEntry);
    if (!page.events.length || latest >= page.version) return;
  }
}

/** @type {ReturnType<typeof setTimeout> | null} */
let summaryDue = null;
function refreshSummary() {  // at most twice a second, however fast the entries come
  if (summaryDue) return;
  summaryDue = setTimeout(async () => {
    summaryDue = null;
    match = await getJson("/v1/matches/{match_id}", { path: { match_id: matchId }, headers: auth });
    showSummary();
  }, 500);
}

async function live() {
  while (!(match.result && match.result.final) && match.status !== "aborted") {
    try {
      await followLog(`/v1/matches/${matchId}/events/stream?after=${latest}`, auth, (entry) => {
        addEntry(entry);
        refreshSummary();
      });
      match = await getJson("/v1/matches/{match_id}", { path: { match_id: matchId }, headers: auth });
      showSummary();
    } catch (error) {
      await new Promise((resolve) => setTimeout(resolve, 2000));  // the server restarts, the network drops
    }
  }
}

// The analysis of an ended match: asked for with the button, followed while a worker makes it, then an
// evaluation graph (each seat's value after its own actions, in the game's points) and each judged
// action's class beside its entry.
const SEAT_COLOURS = ["#1f6feb", "#d4a017", "#c0392b", "#2e8b57", "#8e44ad"];
const GRAPH = { width: 600, height: 180, pad: 24, clip: 100 };

function ended() {
  return match.status === "finished" || match.status === "aborted";
}

let panelOpened = false;

async function analysisPanel() {
  if (!ended() || panelOpened) return;
  panelOpened = true;
  byId("analysis").hidden = false;
  const button = byId("analyse");
  if (!match.analysis) {
    button.hidden = false;
    button.addEventListener("click", async () => {
      button.hidden = true;
      await postJson("/v1/matches/{match_id}/analysis", { path: { match_id: matchId }, headers: auth }).catch(showProblem);
      followAnalysis().catch(showProblem);
    }, { once: true });
    return;
  }
  await followAnalysis();
}

async function followAnalysis() {
  const status = byId("analysis-status");
  for (;;) {
    const answer = await getJson("/v1/matches/{match_id}/analysis", { path: { match_id: matchId }, headers: auth });
    if (answer.status === "done") {
      const analysis = /** @type {AnalysisResult} */ (answer.analysis);  // a done analysis holds its result
      status.textContent = t("Done: {count} actions judged ({method}).", { count: analysis.moves.length, method: analysis.method });
      showAnalysis(analysis);
      return;
    }
    if (answer.status === "failed") {
      const reason = answer.error || t("no reason given");
      status.textContent = t("The analysis failed: {reason}.", { reason });
      return;
    }
    const { done, total } = answer.progress;
    status.textContent = answer.status === "queued" ? t("Queued for a worker.") : t("Running: {done} of {total} actions judged.", { done, total });
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** @param {AnalysisResult} analysis */
function showAnalysis(analysis) {
  for (const move of analysis.moves) {
    const item = list.querySelector(`[data-version="${move.version}"]`);
    if (!item || item.querySelector(".judged")) continue;
    const loss = move.forced ? t("the only legal action") : t("{loss} points below the best found", { loss: move.loss });
    item.append(element("span", {
      class: `judged judged-${move.classification}`,
      "data-classification": move.classification,
      title: t("{who}: {judged}, {loss}", { who: seatName(move.seat), judged: judgedWord(move.classification), loss }),
    }, judgedWord(move.classification)));
  }
  const rows = document.querySelector("#analysis-seats tbody");
  rows?.replaceChildren(...analysis.seats.map((seat) => element("tr", { "data-seat": String(seat.seat) },
    element("td", {}, seatName(seat.seat)),
    element("td", {}, seat.accuracy === null ? t("n/a") : new Intl.NumberFormat(document.documentElement.lang, { style: "percent", maximumFractionDigits: 1 }).format(seat.accuracy / 100)),
    ...["best", "good", "inaccuracy", "mistake", "blunder"].map((c) => element("td", {}, number(seat.classifications[c]))))));
  byId("analysis-seats").hidden = false;
  drawGraph(analysis);
}

// A judged action's class in the page's words (the class itself stays in data-classification).
/** @param {Classification} classification */
function judgedWord(classification) {
  const words = { best: t("best"), good: t("good"), inaccuracy: t("inaccuracy"), mistake: t("mistake"), blunder: t("blunder") };
  return words[classification] || classification;
}

// The names of SEAT_COLOURS, in their order.
function lineColours() {
  return [t("blue"), t("yellow"), t("red"), t("green"), t("purple")];
}

/** @param {AnalysisResult} analysis */
function drawGraph(analysis) {
  const figure = byId("analysis-graph");
  // an unforced action has its value
  const judged = analysis.moves.filter(/** @returns {m is AnalysedMove & {value: number}} */ (m) => !m.forced);
  // a decided game's value (a game that scores a win in thousands) would flatten the rest: the scale stops a little
  // above the usual values, and the extreme ones sit at its edge
  const sizes = judged.map((m) => Math.abs(m.value)).sort((a, b) => a - b);
  const bound = Math.min(GRAPH.clip, Math.max(5, 1.5 * (sizes[Math.floor(0.9 * (sizes.length - 1))] || 0)));
  const clip = (/** @type {number} */ v) => Math.max(-bound, Math.min(bound, v));
  const values = judged.map((m) => clip(m.value));
  const low = Math.min(0, ...values), high = Math.max(1, ...values);
  const x = (/** @type {number} */ version) => GRAPH.pad + (GRAPH.width - 2 * GRAPH.pad) * (version - 1) / Math.max(1, latest - 1);
  const y = (/** @type {number} */ value) => GRAPH.height - GRAPH.pad - (GRAPH.height - 2 * GRAPH.pad) * (clip(value) - low) / (high - low);
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${GRAPH.width} ${GRAPH.height}`);
  svg.setAttribute("role", "img");
  /** @param {string} tag @param {Record<string, string | number>} attributes @param {string} [text] */
  const node = (tag, attributes, text) => {
    const made = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, String(value));
    if (text !== undefined) made.textContent = text;
    return made;
  };
  svg.append(node("title", {}, t("Evaluation over the match: each seat's value after its actions, in points")));
  svg.append(node("line", { x1: GRAPH.pad, x2: GRAPH.width - GRAPH.pad, y1: y(0), y2: y(0), stroke: "#bbb" }));
  svg.append(node("text", { x: 2, y: y(high) + 4, "font-size": 10 }, String(Math.round(high))));
  svg.append(node("text", { x: 2, y: y(low) + 4, "font-size": 10 }, String(Math.round(low))));
  for (const seat of analysis.seats) {
    const own = judged.filter((m) => m.seat === seat.seat);
    if (!own.length) continue;
    const colour = SEAT_COLOURS[seat.seat % SEAT_COLOURS.length];
    svg.append(node("polyline", {
      "data-seat": String(seat.seat), fill: "none", stroke: colour, "stroke-width": 2,
      points: own.map((m) => `${x(m.version).toFixed(1)},${y(m.value).toFixed(1)}`).join(" "),
    }));
    for (const m of own) {
      const marked = ["mistake", "blunder", "inaccuracy"].includes(m.classification);
      const dot = node("circle", {
        cx: x(m.version).toFixed(1), cy: y(m.value).toFixed(1), r: marked ? 4 : 2.5,
        fill: marked ? "#fff" : colour, stroke: colour, "stroke-width": marked ? 2 : 1,
        "data-version": String(m.version), "data-classification": m.classification,
      });
      dot.append(node("title", {}, t("{version}. {who}: {judged} ({value} points)", { version: m.version, who: seatName(m.seat), judged: judgedWord(m.classification), value: m.value })));
      dot.addEventListener("click", () => show(m.version));
      svg.append(dot);
    }
  }
  figure.replaceChildren(svg, node("figcaption", {}, ""));
  figure.querySelector("figcaption")?.replaceWith(element("figcaption", {},
    analysis.seats.map((s) => t("{who}: {colour} line", { who: seatName(s.seat), colour: lineColours()[s.seat % 5] })).join(t("; "))));
  figure.hidden = false;
}

/** @param {KeyboardEvent} event */
function keys(event) {
  if (event.target === slider || event.altKey || event.ctrlKey || event.metaKey) return;
  const to = { ArrowLeft: shown - 1, ArrowRight: shown + 1, Home: 1, End: latest }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  show(to);
}

/** @param {string} gameId */
async function nameOf(gameId) {
  const game = (await getJson("/v1/games")).find((g) => g.id === gameId);
  return game ? game.name : gameId;
}

async function main() {
  await ready;
  match = await getJson("/v1/matches/{match_id}", { path: { match_id: matchId }, headers: auth });
  gameName = await nameOf(match.game);
  showSummary();
  await readLog();
  show(latest);
  slider.addEventListener("input", () => show(Number(slider.value)));
  byId("first").addEventListener("click", () => show(1));
  byId("previous").addEventListener("click", () => show(shown - 1));
  byId("next").addEventListener("click", () => show(shown + 1));
  byId("last").addEventListener("click", () => show(latest));
  document.addEventListener("keydown", keys);
  analysisPanel().catch(showProblem);
  await live();
  analysisPanel().catch(showProblem);  // a match that ended while watched

}

main().catch(showProblem);
