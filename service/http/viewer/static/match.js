import { element, followLog, getJson, getText, players, postJson, showProblem } from "./api.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const matchId = location.pathname.split("/").pop();
// A seat's token comes in the URL fragment (#token=...), which the browser never sends to a server.
const token = new URLSearchParams(location.hash.slice(1)).get("token");
const auth = token ? { Authorization: `Bearer ${token}` } : {};

const board = document.getElementById("board");
const slider = document.getElementById("slider");
const list = document.getElementById("events");
const entries = [];  // entries[version - 1]
const pictures = new Map();  // version -> SVG text
let latest = 0;
let shown = 0;
let following = true;  // at the latest version: new entries move the board on
let drawing = 0;
let match = null;
let loading = false;  // reading the log as it stands, before following it live
let gameName = "";

function at(version) {
  return entries[version - 1];
}

function addEntry(entry) {
  if (at(entry.version)) return;
  entries[entry.version - 1] = entry;
  const item = element("li", { value: String(entry.version), "data-version": String(entry.version) }, said(entry));
  item.addEventListener("click", () => show(entry.version));
  const before = [...list.children].find((li) => Number(li.dataset.version) > entry.version);
  list.insertBefore(item, before || null);
  latest = Math.max(latest, entry.version);
  slider.max = String(latest);
  if (entry.type === "match_scored") showResult(entry.data);
  if (loading) return;  // the whole log at once: one drawing at the end, not one fetch per entry
  if (following) show(latest);
  else showPosition();
}

// Who a seat is, in words: "seat 1 (bob)".
function seatName(seat) {
  const player = match && match.players[seat];
  return player && player.name ? `seat ${seat} (${player.name})` : `seat ${seat}`;
}

// An entry as the list says it: a bot's or the clock's move says for whom it is made.
function said(entry) {
  if (entry.type !== "acted_by") return entry.text;
  return `${entry.text.replace(/:$/, "")} for ${seatName(entry.seat)}:`;
}

// The current entry scrolled into view inside the list only: scrollIntoView would scroll the whole
// window too, taking the title (on a desktop) or the board (on a phone) off the screen.
function revealInList(item) {
  const top = item.offsetTop;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top + item.offsetHeight - list.clientHeight;
  }
}

function showPosition() {
  document.getElementById("position").textContent = `Version ${shown} of ${latest}`;
}

function show(version) {
  if (latest === 0) return;
  shown = Math.min(Math.max(1, version), latest);
  following = shown === latest;
  slider.value = String(shown);
  showPosition();
  const entry = at(shown);
  document.getElementById("step-text").textContent = entry ? `${shown}. ${entry.text}` : "";
  for (const item of list.querySelectorAll("[aria-current]")) item.removeAttribute("aria-current");
  const current = list.querySelector(`[data-version="${shown}"]`);
  if (current) {
    current.setAttribute("aria-current", "step");
    revealInList(current);
  }
  draw(shown).catch(showProblem);
}

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
function labelled(picture, version) {
  const add = (tag, text, after) => {
    if (picture.querySelector(`:scope > ${tag}`)) return;
    const node = document.createElementNS(SVG_NS, tag);
    node.setAttribute("data-viewer", "");
    node.textContent = text;
    after ? after.after(node) : picture.prepend(node);
  };
  add("title", `${gameName} board at version ${version}`);
  add("desc", at(version) ? at(version).text : "", picture.querySelector(":scope > title"));
}

function showSummary() {
  document.title = `matchlog: ${gameName}, ${players(match)}`;
  document.getElementById("title").textContent = `${gameName}: ${players(match)}`;
  const acting = match.to_act.length ? `; to act: ${match.to_act.map((s) => `seat ${s}`).join(", ")}` : "";
  document.getElementById("summary").textContent =
    `${match.status}, version ${match.version}${token ? ", seen by your seat" : ", seen as a spectator"}${acting}`;
  document.getElementById("seats").textContent = "Seats: " + match.players.map((p) => p.open
    ? `seat ${p.seat} open` : `${seatName(p.seat)}${p.bot ? `, the ${p.bot} bot` : ""}`).join("; ");
  if (match.result) showResult(match.result);
}

function showResult(result) {
  const section = document.getElementById("result");
  const rows = section.querySelector("tbody");
  const seats = result.ranks.map((rank, seat) => ({ rank, seat })).sort((a, b) => a.rank - b.rank);
  rows.replaceChildren(...seats.map(({ rank, seat }) => element("tr", {},
    element("td", {}, String(rank)), element("td", {}, String(seat)),
    element("td", {}, match && match.players[seat] ? match.players[seat].name || "" : ""),
    element("td", {}, String(result.scores[seat])))));
  section.querySelector("pre").textContent = JSON.stringify(result.breakdown ?? result, null, 2);
  document.getElementById("result-order").textContent = scoreOrder(result);
  section.hidden = false;
}

// Whether the game's winners have the higher or the lower score, as the ranks show it.
function scoreOrder(result) {
  const best = result.scores.filter((_, seat) => result.ranks[seat] === 1);
  const rest = result.scores.filter((_, seat) => result.ranks[seat] !== 1);
  if (!best.length || !rest.length || best.some((s) => typeof s !== "number")) return "Rank 1 wins.";
  if (Math.min(...best) > Math.max(...rest)) return "Rank 1 wins: the higher score is better.";
  if (Math.max(...best) < Math.min(...rest)) return "Rank 1 wins: the lower score is better.";
  return "Rank 1 wins (ranked by the game's rules, not by score alone).";
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
    const page = await getJson(`/v1/matches/${matchId}/events?after=${latest}&limit=1000`, auth);
    page.events.forEach(addEntry);
    if (!page.events.length || latest >= page.version) return;
  }
}

let summaryDue = null;
function refreshSummary() {  // at most twice a second, however fast the entries come
  if (summaryDue) return;
  summaryDue = setTimeout(async () => {
    summaryDue = null;
    match = await getJson(`/v1/matches/${matchId}`, auth);
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
      match = await getJson(`/v1/matches/${matchId}`, auth);
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
  document.getElementById("analysis").hidden = false;
  const button = document.getElementById("analyse");
  if (!match.analysis) {
    button.hidden = false;
    button.addEventListener("click", async () => {
      button.hidden = true;
      await postJson(`/v1/matches/${matchId}/analysis`, undefined, auth).catch(showProblem);
      followAnalysis().catch(showProblem);
    }, { once: true });
    return;
  }
  await followAnalysis();
}

async function followAnalysis() {
  const status = document.getElementById("analysis-status");
  for (;;) {
    const answer = await getJson(`/v1/matches/${matchId}/analysis`, auth);
    if (answer.status === "done") {
      status.textContent = `Done: ${answer.analysis.moves.length} actions judged (${answer.analysis.method}).`;
      showAnalysis(answer.analysis);
      return;
    }
    if (answer.status === "failed") {
      status.textContent = `The analysis failed: ${answer.error || "no reason given"}.`;
      return;
    }
    const { done, total } = answer.progress;
    status.textContent = answer.status === "queued" ? "Queued for a worker." : `Running: ${done} of ${total} actions judged.`;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function showAnalysis(analysis) {
  for (const move of analysis.moves) {
    const item = list.querySelector(`[data-version="${move.version}"]`);
    if (!item || item.querySelector(".judged")) continue;
    const loss = move.forced ? "the only legal action" : `${move.loss} points below the best found`;
    item.append(element("span", {
      class: `judged judged-${move.classification}`,
      "data-classification": move.classification,
      title: `${seatName(move.seat)}: ${move.classification}, ${loss}`,
    }, move.classification));
  }
  const rows = document.querySelector("#analysis-seats tbody");
  rows.replaceChildren(...analysis.seats.map((seat) => element("tr", { "data-seat": String(seat.seat) },
    element("td", {}, seatName(seat.seat)),
    element("td", {}, seat.accuracy === null ? "n/a" : `${seat.accuracy} %`),
    ...["best", "good", "inaccuracy", "mistake", "blunder"].map((c) => element("td", {}, String(seat.classifications[c]))))));
  document.getElementById("analysis-seats").hidden = false;
  drawGraph(analysis);
}

function drawGraph(analysis) {
  const figure = document.getElementById("analysis-graph");
  const judged = analysis.moves.filter((m) => !m.forced);
  // a decided game's value (a game that scores a win in thousands) would flatten the rest: the scale stops a little
  // above the usual values, and the extreme ones sit at its edge
  const sizes = judged.map((m) => Math.abs(m.value)).sort((a, b) => a - b);
  const bound = Math.min(GRAPH.clip, Math.max(5, 1.5 * (sizes[Math.floor(0.9 * (sizes.length - 1))] || 0)));
  const clip = (v) => Math.max(-bound, Math.min(bound, v));
  const values = judged.map((m) => clip(m.value));
  const low = Math.min(0, ...values), high = Math.max(1, ...values);
  const x = (version) => GRAPH.pad + (GRAPH.width - 2 * GRAPH.pad) * (version - 1) / Math.max(1, latest - 1);
  const y = (value) => GRAPH.height - GRAPH.pad - (GRAPH.height - 2 * GRAPH.pad) * (clip(value) - low) / (high - low);
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${GRAPH.width} ${GRAPH.height}`);
  svg.setAttribute("role", "img");
  const node = (tag, attributes, text) => {
    const made = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
    if (text !== undefined) made.textContent = text;
    return made;
  };
  svg.append(node("title", {}, "Evaluation over the match: each seat's value after its actions, in points"));
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
      dot.append(node("title", {}, `${m.version}. ${seatName(m.seat)}: ${m.classification} (${m.value} points)`));
      dot.addEventListener("click", () => show(m.version));
      svg.append(dot);
    }
  }
  figure.replaceChildren(svg, node("figcaption", {}, ""));
  figure.querySelector("figcaption").replaceWith(element("figcaption", {},
    analysis.seats.map((s) => `${seatName(s.seat)}: ${["blue", "yellow", "red", "green", "purple"][s.seat % 5]} line`).join("; ")));
  figure.hidden = false;
}

function keys(event) {
  if (event.target === slider || event.altKey || event.ctrlKey || event.metaKey) return;
  const to = { ArrowLeft: shown - 1, ArrowRight: shown + 1, Home: 1, End: latest }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  show(to);
}

async function nameOf(gameId) {
  const game = (await getJson("/v1/games")).find((g) => g.id === gameId);
  return game ? game.name : gameId;
}

async function main() {
  match = await getJson(`/v1/matches/${matchId}`, auth);
  gameName = await nameOf(match.game);
  showSummary();
  await readLog();
  show(latest);
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.getElementById("first").addEventListener("click", () => show(1));
  document.getElementById("previous").addEventListener("click", () => show(shown - 1));
  document.getElementById("next").addEventListener("click", () => show(shown + 1));
  document.getElementById("last").addEventListener("click", () => show(latest));
  document.addEventListener("keydown", keys);
  analysisPanel().catch(showProblem);
  await live();
  analysisPanel().catch(showProblem);  // a match that ended while watched

}

main().catch(showProblem);
