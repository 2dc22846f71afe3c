// A seat's page: the match as its seat sees it, and its legal actions as buttons (the text mode). The
// server's legal-actions is the only source of what may be played: the page never applies a rule.
import { byId, element, followLog, getJson, getText, postJson, showProblem, showTournament } from "./api.js";
import { gameWords, number, ready, t } from "./i18n.js";
import { createdToken, remembered, remember } from "./seats.js";

const matchId = decodeURIComponent(location.pathname.split("/").pop() || "");
const token = tokenOf();
/** @type {Record<string, string>} */
const auth = token ? { Authorization: `Bearer ${token}` } : {};

/** @typedef {import("./matchlog").components["schemas"]["Match"]} Match */
/** @typedef {import("./matchlog").paths["/v1/matches/{match_id}/legal-actions"]["get"]["responses"][200]["content"]["application/json"]} LegalActions */
/** @typedef {{version: number, actions: LegalActions["actions"], texts: string[]}} Listing (each game's actions, as listed) */
/** @typedef {Listing["actions"][number]} Action an action of the match's game, as listed or as a board put it together */
/** @typedef {{ranks: number[], scores: unknown[]}} Result */
/** @type {Match} the match as last read: read first thing, before anything shows it */
let match = /** @type {Match} */ (/** @type {unknown} */ (null));
let mySeat = -1;
let latest = 0;
/** @type {Listing | null} */
let listing = null;
let refreshing = 0;

// The token comes in the fragment, which the browser never sends; it is kept in localStorage (this
// origin only) and taken out of the address bar, so that it is neither bookmarked nor shown on screen.
function tokenOf() {
  const fromFragment = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromFragment) {
    remember(matchId, fromFragment);
    history.replaceState(null, "", location.pathname);
    return fromFragment;
  }
  return remembered(matchId);
}

/** @param {number} seat */
function seatName(seat) {
  const player = match && match.players[seat];
  return player && player.name ? t("{name} (seat {seat})", { name: player.name, seat }) : t("seat {seat}", { seat });
}

function ended() {
  return !!match && (match.status === "finished" || match.status === "aborted");
}

// Whose turn it is and what they must do, in a sentence.
function statusSentence() {
  if (!match) return "";
  if (match.status === "aborted") return t("The match was aborted.");
  if (match.status === "finished") return endSentence();
  if (match.status === "open") return t("Waiting for players to take the open seats.");
  const request = match.undo_request;
  if (request && request.seat !== mySeat && mySeat >= 0 && !request.accepted.includes(mySeat)) {
    return t("{who} asks to take back their last move: accept or refuse it below.", { who: seatName(request.seat) });
  }
  const mine = match.to_act.includes(mySeat);
  const others = match.to_act.filter((seat) => seat !== mySeat).map(seatName).join(t(", "));
  const what = boards.get(match.game) ? t("make it on the board, or choose it from the actions below") : t("choose it from the actions below");
  if (mine && others) return t("Your move, {me}, at the same time as {others}: {what}.", { me: seatName(mySeat), others, what });
  if (mine) return t("Your move, {me}: {what}.", { me: seatName(mySeat), what });
  if (mySeat < 0) return t("Watching: {seats} to move.", { seats: match.to_act.map(seatName).join(t(", ")) });
  if (!match.to_act.length) return t("Waiting for the server to go on.");
  return t("Waiting for {others} to move.", { others });
}

// Who came first, in words, so that the end is announced (the status is a live region) and not only
// shown in the result's table. Ranks are the server's: 1 is first, ties share it, and a seat beaten by
// the game itself (Autoblock) may have no first at all.
function endSentence() {
  const result = /** @type {Result | null | undefined} */ (match.result);
  if (!result || !result.ranks.length) return t("The match is over: the result is beside the board.");
  const first = result.ranks.flatMap((rank, seat) => (rank === 1 ? [seat] : []));
  if (first.length === 1) return t("The match is over: {who} wins. The result is beside the board.", { who: seatName(first[0]) });
  if (first.length) return t("The match is over: {who} share first place. The result is beside the board.", { who: first.map(seatName).join(t(", ")) });
  return t("The match is over: no seat comes first. The result is beside the board.");
}

/** The clocks as last read, and when (the page's own time): a running seat's time runs down between reads. */
/** @type {{clock: NonNullable<Match["clock"]>, at: number} | null} */
let clockRead = null;

/** Each seat's time left, the running seats' counted down since the read (never below zero); a running
 * seat is marked. @param {Match["clock"]} clock @param {number} [elapsed] milliseconds since the read */
function showClocks(clock, elapsed = 0) {
  const clocks = byId("clocks");
  if (!clock || !clock.remaining_ms) return;
  const shown = clock.remaining_ms.map((ms, seat) => {
    const running = clock.running.includes(seat);
    const left = Math.max(0, running ? ms - elapsed : ms);
    const time = `${number(Math.floor(left / 60000))}:${String(Math.floor(left / 1000) % 60).padStart(2, "0")}`;
    return `${seatName(seat)} ${time}${running ? " ▶" : ""}`;
  });
  clocks.textContent = t("Clocks: {clocks}", { clocks: shown.join(t("; ")) });
  clocks.dataset.running = clock.running.join(",");
  clocks.hidden = false;
}

// once a second, as a chess clock: the server's deadline decides a timeout, this only shows it coming
setInterval(() => {
  if (clockRead) showClocks(clockRead.clock, performance.now() - clockRead.at);
}, 1000);

function showMatch() {
  const seated = match.players.map((p, i) => p.name || t("open seat {seat}", { seat: i }));
  const game = gameNames.get(match.game) || match.game;
  byId("title").textContent = `${game}: ${seated.join(t(", "))}`;
  document.title = t("matchlog: play {game}", { game });
  byId("status").textContent = statusSentence();
  showTournament(match);
  clockRead = match.clock && !ended() ? { clock: match.clock, at: performance.now() } : null;
  showClocks(match.clock);
  const request = match.undo_request;
  byId("undo").hidden = ended() || mySeat < 0 || match.undo === "none" || !!request;
  const answering = !ended() && !!request && mySeat >= 0 && request.seat !== mySeat && !request.accepted.includes(mySeat);
  byId("accept-undo").hidden = !answering;
  byId("refuse-undo").hidden = !answering;
  byId("concede").hidden = ended() || mySeat < 0;
  byId("abort").hidden = ended() || !createdToken(matchId);
  if (match.result) showResult(/** @type {Result} */ (match.result));
}

/** @param {Result} result */
function showResult(result) {
  const section = byId("result");
  const seats = result.ranks.map((rank, seat) => ({ rank, seat })).sort((a, b) => a.rank - b.rank);
  byId("result-table").querySelector("tbody")?.replaceChildren(...seats.map(({ rank, seat }) => element("tr", {},
    element("td", {}, number(rank)), element("td", {}, number(seat)),
    element("td", {}, match.players[seat] ? match.players[seat].name || "" : ""),
    element("td", {}, typeof result.scores[seat] === "number" ? number(/** @type {number} */ (result.scores[seat])) : String(result.scores[seat])))));
  byId("replay-link").setAttribute("href", `/matches/${matchId}`);
  section.hidden = false;
}

// A refresh a newer one has overtaken draws nothing: two boards mounted in turn would take the focus
// (and the square the arrow keys were on) from a player in the middle of a move, and a late answer
// would put an older listing or board back over the newer one.
/** @param {() => boolean} stale whether a newer refresh has started since this one */
async function drawBoard(stale) {
  const board = await boardOf(match.game);
  if (board) {  // a board by pointing, where the game's package has one; else the engine's drawing
    const mine = listing !== null && listing.actions.length > 0;
    // drawn again only when the match moved on: a redraw would drop what the player is choosing
    const drawn = `${match.version}:${listing ? listing.version : ""}:${mine}`;
    if (byId("board").dataset.drawn === drawn) return;
    const answer = await getJson("/v1/matches/{match_id}/state", { path: { match_id: matchId }, headers: auth });
    if (stale() || byId("board").dataset.drawn === drawn) return;
    const actions = listing && mine ? listing.actions : [];
    board.mount(byId("board"), {
      t: /** @type {import("./i18n.js").Translate} */ (boardWords.get(match.game)),
      view: answer.state, version: answer.version, actions, texts: listing && mine ? listing.texts : [], mine,
      // the board's index is into the listing it was drawn with, which a refresh may since have replaced
      /** @param {number} index @param {Action} [chosen] */
      play: (index, chosen) => submit(index, chosen === undefined ? actions[index] : chosen),
    }, element);
    byId("board").dataset.drawn = drawn;
    return;
  }
  const text = await getText(`/v1/matches/${matchId}/state`, "image/svg+xml", auth);
  if (stale()) return;
  const picture = document.importNode(new DOMParser().parseFromString(text, "image/svg+xml").documentElement, true);
  picture.setAttribute("role", "img");
  picture.setAttribute("aria-label", t("The board at version {version}", { version: match.version }));
  byId("board").replaceChildren(picture);
}

/**
 * What a game's board module (its package's board.js) is handed: each board types its own game's view and
 * actions, which this page knows only as the contract's union of the games'.
 * @typedef {{view: import("./matchlog").components["schemas"]["State"]["state"], version: number,
 *   actions: Listing["actions"], texts: string[], mine: boolean, play: (index: number, chosen?: Action) => void,
 *   t: import("./i18n.js").Translate}} BoardMatch
 */
/** @typedef {{mount: (root: HTMLElement, match: BoardMatch, make: typeof element) => void}} Board */
/** @type {Map<string, Board | null>} a game's board module (null: it has none), loaded once */
const boards = new Map();
/** @type {Map<string, import("./i18n.js").Translate>} a game's board's words, in the page's language */
const boardWords = new Map();
/** @type {Map<string, string>} a game's name as its box says it (its id until its board is loaded) */
const gameNames = new Map();

// A game package may hold a board to point at (board.js, with its board.css): the viewer serves it, so
// the page names no game.
/** @param {string} game */
async function boardOf(game) {
  if (!boards.has(game)) {
    const found = await fetch(`/viewer/games/${game}/board.js`, { method: "HEAD" });
    if (found.ok) {
      document.head.append(element("link", { rel: "stylesheet", href: `/viewer/games/${game}/board.css` }));
      const [module, { words, name }] = await Promise.all([import(`/viewer/games/${game}/board.js`), gameWords(game)]);
      boardWords.set(game, words);
      gameNames.set(game, name);
      boards.set(game, module);
    } else {
      boards.set(game, null);
    }
  }
  return boards.get(game);
}

/** @param {() => boolean} stale whether a newer refresh has started since this one */
async function listActions(stale) {
  if (!token) return;
  const answer = await getJson("/v1/matches/{match_id}/legal-actions", { path: { match_id: matchId }, query: { text: true }, headers: auth });
  if (stale()) return;
  mySeat = answer.seat;
  listing = { version: answer.version, actions: answer.actions, texts: answer.texts || [] };
  showActions();
}

// Equal texts (two rotations the log says alike) are told apart by their number among them.
/** @param {string[]} texts */
function labels(texts) {
  /** @type {Map<string, number>} */
  const seen = new Map();
  /** @type {Map<string, number>} */
  const count = new Map();
  for (const text of texts) count.set(text, (count.get(text) || 0) + 1);
  return texts.map((text) => {
    if (count.get(text) === 1) return text;
    const n = (seen.get(text) || 0) + 1;
    seen.set(text, n);
    return t("{text} (way {n} of {count})", { text, n, count: count.get(text) || 0 });
  });
}

function showActions() {
  const list = byId("actions");
  if (listing) list.dataset.version = String(listing.version);
  const words = /** @type {HTMLInputElement} */ (byId("filter")).value.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const named = labels(listing ? listing.texts : []);
  const shown = named.map((text, i) => ({ text, i })).filter(({ text }) => words.every((w) => text.toLowerCase().includes(w)));
  const limit = 200;  // a long listing is narrowed by typing, not scrolled through
  list.replaceChildren(...shown.slice(0, limit).map(({ text, i }) => {
    const button = element("button", { type: "button", "data-index": String(i) }, text);
    button.addEventListener("click", () => submit(i));
    return element("li", {}, button);
  }));
  const total = named.length;
  byId("action-count").textContent = total === 0 ? t("No action to take now.")
    : shown.length > limit ? t("{shown} of {total} actions, the first {limit} shown: type to narrow them.", { shown: shown.length, total, limit })
      : t("{shown} of {total} actions.", { shown: shown.length, total });
}

// A board may post an action it put together from the listed one's choices (a plan of a card per
// slot from those listed): the server checks it as any other.
/** @param {number} index @param {Action} [chosen] */
async function submit(index, chosen) {
  if (!listing) return;
  const action = chosen === undefined ? listing.actions[index] : chosen;
  const version = listing.version;
  listing = null;
  showActions();
  try {
    // one of the match's game's actions: a shape the contract has per game, and the page names no game
    const body = /** @type {import("./matchlog").components["schemas"]["SubmitAction"]} */ ({ expected_version: version, action });
    await postJson("/v1/matches/{match_id}/actions", { path: { match_id: matchId }, body, headers: auth });
  } catch (error) {
    showProblem(error);
  }
  await refresh();
  byId("filter").focus();
}

/** @param {{version: number, text?: string}} entry */
function addEntry(entry) {
  if (entry.version <= latest) return;
  latest = entry.version;
  const list = byId("events");
  list.append(element("li", { value: String(entry.version) }, entry.text ?? ""));
  list.scrollTop = list.scrollHeight;
}

async function refresh() {
  const mine = ++refreshing;
  const fresh = await getJson("/v1/matches/{match_id}", { path: { match_id: matchId }, headers: auth });
  if (mine !== refreshing) return;
  match = fresh;
  await boardOf(match.game);  // known before the sentence says where the move is made
  const stale = () => mine !== refreshing;
  await listActions(stale);
  if (stale()) return;
  showMatch();
  await drawBoard(stale);
}

async function readLog() {
  for (;;) {
    const page = await getJson("/v1/matches/{match_id}/events", { path: { match_id: matchId }, query: { after: latest, limit: 1000 }, headers: auth });
    page.events.forEach(addEntry);
    if (!page.events.length || latest >= page.version) return;
  }
}

/** @type {ReturnType<typeof setTimeout> | null} */
let due = null;
function refreshSoon() {
  if (due) return;
  due = setTimeout(() => { due = null; refresh().catch(showProblem); }, 150);
}

async function live() {
  while (!(match.result && match.result.final) && match.status !== "aborted") {
    try {
      await followLog(`/v1/matches/${matchId}/events/stream?after=${latest}`, auth, (entry) => {
        addEntry(entry);
        refreshSoon();
      });
      await refresh();
    } catch (error) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

async function main() {
  await ready;
  byId("filter").addEventListener("input", showActions);
  byId("filter").addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    const first = /** @type {HTMLButtonElement | null} */ (document.querySelector("#actions button"));
    if (first) first.click();
  });
  byId("undo").addEventListener("click", () =>
    postJson("/v1/matches/{match_id}/undo", { path: { match_id: matchId }, headers: auth }).then(refresh).catch(showProblem));
  byId("concede").addEventListener("click", () => {
    if (confirm(t("Concede the match?"))) postJson("/v1/matches/{match_id}/concede", { path: { match_id: matchId }, headers: auth }).then(refresh).catch(showProblem);
  });
  byId("accept-undo").addEventListener("click", () =>
    postJson("/v1/matches/{match_id}/undo/accept", { path: { match_id: matchId }, headers: auth }).then(refresh).catch(showProblem));
  byId("refuse-undo").addEventListener("click", () =>
    postJson("/v1/matches/{match_id}/undo/refuse", { path: { match_id: matchId }, headers: auth }).then(refresh).catch(showProblem));
  byId("abort").addEventListener("click", () => {
    const creator = createdToken(matchId);  // the creator's token, kept by the page that made the match
    if (creator && confirm(t("Abort the match for everyone?"))) {
      postJson("/v1/matches/{match_id}/abort", {
        path: { match_id: matchId }, body: { reason: "aborted by its creator from the play page" },
        headers: { Authorization: `Bearer ${creator}` },
      })
        .then(refresh).catch(showProblem);
    }
  });
  await refresh();
  await readLog();
  await live();
}

main().catch(showProblem);
