// @ts-check
// A tournament's page for anyone: its standings kept current from the live feed, a knockout's bracket or
// every other kind's rounds, each game linked to its match's viewer. It reads only the public API (the
// tournament, its log and its feed), sends no credential, and so shows no seat's token.
import { byId, element, followLog, games, getJson, showProblem, statusWord } from "./api.js";
import { dateTime, number, ready, t } from "./i18n.js";

/** @typedef {import("./matchlog").components["schemas"]["Tournament"]} Tournament */
/** @typedef {import("./matchlog").components["schemas"]["TournamentStanding"]} Standing */
/** @typedef {import("./matchlog").components["schemas"]["TournamentMeeting"]} Meeting */
/** @typedef {import("./matchlog").components["schemas"]["TournamentBracket"]} Bracket */
/** @typedef {import("./matchlog").components["schemas"]["TournamentEntry"]} Entry */
/** @typedef {import("./matchlog").components["schemas"]["TournamentFeedEntry"]} FeedEntry */
/** @typedef {{match: string, players: string[], ranks: number[] | null}} Game a round's game, as the log tells it */
/** @typedef {{number: number, games: Game[], byes: {player: string, points: string}[]}} Round */

const tournamentId = decodeURIComponent(location.pathname.split("/").pop() || "");
const KNOCKOUTS = ["single_elimination", "double_elimination"];

/** @type {Tournament} the tournament as last read: read first thing, before anything shows it */
let tournament = /** @type {Tournament} */ (/** @type {unknown} */ (null));
let gameName = "";
let version = 0;  // the last log entry taken in (from the log's pages, then from the feed)
let standingsVersion = -1;  // the version the standings shown are of: an older answer never replaces them
let standingsShown = "";
/** @type {Map<string, {name: string, bot: string | null, withdrawn: boolean}>} */
const entrants = new Map();
/** @type {Map<number, Round>} */
const rounds = new Map();

/** A player's name as the page says it: a bot's and a withdrawn player's say so. @param {string | null | undefined} player */
function who(player) {
  if (!player) return "";
  const known = entrants.get(player);
  if (!known) return player;
  const name = known.bot ? t("{name} (bot: {bot})", { name: known.name, bot: known.bot }) : known.name;
  return known.withdrawn ? t("{name} (withdrew)", { name }) : name;
}

/** An exact fraction of the API ("7/2") as the language writes the number, where it ends in a few decimals. @param {string} fraction */
function points(fraction) {
  const [top, bottom = "1"] = fraction.split("/");
  const value = Number(top) / Number(bottom);
  return Number.isFinite(value) && Number.isInteger(value * 1000) ? number(value) : fraction;
}

/** @param {string} kind */
function kindWord(kind) {
  /** @type {Record<string, string>} */
  const words = {
    round_robin: t("round robin"), swiss: t("Swiss"), single_elimination: t("single elimination"),
    double_elimination: t("double elimination"), arena: t("arena"),
  };
  return words[kind] || kind;
}

/** @param {string} status */
function tournamentStatus(status) {
  /** @type {Record<string, string>} */
  const words = { registering: t("taking entries"), playing: t("being played"), finished: statusWord("finished") };
  return words[status] || status;
}

function showSummary() {
  document.title = t("matchlog: {name}, a tournament", { name: tournament.name });
  byId("title").textContent = tournament.name;
  const current = tournament.current_round;
  let round = t("no round started yet");
  if (current && tournament.rounds) round = t("round {number} of {rounds}", { number: current.number, rounds: tournament.rounds });
  else if (current) round = t("round {number}", { number: current.number });
  const parts = [
    t("A {kind} of {game}", { kind: kindWord(tournament.kind), game: gameName }),
    tournamentStatus(tournament.status),
    round,
    t("{count} players", { count: tournament.players.length }),
  ];
  if (tournament.closes) parts.push(t("pairing until {time}", { time: dateTime(`${tournament.closes}Z`) }));
  byId("summary").textContent = parts.join(t("; "));
  for (const entrant of tournament.players) {
    entrants.set(entrant.player, { name: entrant.name, bot: entrant.bot ?? null, withdrawn: entrant.withdrawn });
  }
}

/**
 * The standings table, from the tournament's answer or the feed; a change after the first showing is said
 * in the polite live note (a reader using a screen reader hears it without leaving their place).
 * @param {Standing[]} rows @param {number} at the log's version they are of
 */
function showStandings(rows, at) {
  if (at < standingsVersion) return;
  standingsVersion = at;
  const shown = JSON.stringify(rows.map((row) => [row.place, who(row.player), row.points, row.buchholz, row.sonneborn_berger, row.wins, row.games]));
  if (shown === standingsShown) return;
  const first = standingsShown === "";
  standingsShown = shown;
  byId("standings").querySelector("tbody")?.replaceChildren(...rows.map((row) => element("tr", { "data-player": row.player },
    element("td", {}, number(row.place)),
    element("th", { scope: "row" }, who(row.player)),
    element("td", {}, points(row.points)),
    element("td", {}, points(row.buchholz)),
    element("td", {}, points(row.sonneborn_berger)),
    element("td", {}, number(row.wins)),
    element("td", {}, number(row.games)))));
  byId("no-players").hidden = rows.length > 0;
  if (first || !rows.length) return;
  const leader = { name: who(rows[0].player), points: points(rows[0].points) };
  byId("standings-note").textContent = tournament.status === "finished"
    ? t("Final standings: {name} first, with {points} points.", leader)
    : t("Standings updated: {name} leads, with {points} points.", leader);
}

// -- a knockout's bracket: rounds as columns, each meeting's two sides, the winner said in words ------------

/** The bracket's parts, each a row of columns: the winners' (or only) bracket, the losers', the grand final. @param {Meeting[]} meetings */
function columns(meetings) {
  /** @type {Map<string, Map<string, Meeting[]>>} */
  const parts = new Map();
  for (const meeting of meetings) {
    const found = /^([WL])(\d+)-\d+$/.exec(meeting.meeting);
    const part = found ? found[1] : "GF";
    const column = found ? found[2] : meeting.meeting;
    if (!parts.has(part)) parts.set(part, new Map());
    const byColumn = /** @type {Map<string, Meeting[]>} */ (parts.get(part));
    byColumn.set(column, [...(byColumn.get(column) || []), meeting]);
  }
  return parts;
}

/** @param {string} part @param {string} column @param {boolean} last */
function columnTitle(part, column, last) {
  if (column === "GF") return t("Grand final");
  if (column === "GF2") return t("Grand final, deciding game");
  if (part === "W" && last && tournament.kind === "single_elimination") return t("Final");
  return t("Round {number}", { number: Number(column) });
}

/** @param {Bracket} bracket @param {Meeting} meeting @param {string | null} player */
function side(bracket, meeting, player) {
  if (player === null) {
    const word = meeting.winner ? t("bye") : bracket.champion ? t("not played") : t("to be decided");
    return element("li", { class: "side empty" }, word);
  }
  const seed = bracket.seeds.indexOf(player) + 1;
  const line = element("li", { class: "side" });
  if (seed > 0) line.append(element("span", { class: "seed" }, t("seed {seed}", { seed })), " ");
  line.append(who(player));
  if (meeting.winner === player) {
    line.classList.add("won");
    line.append(" ", element("strong", { class: "mark" }, meeting.walkover ? t("through by walkover") : t("winner")));
  }
  return line;
}

/** @param {Bracket} bracket @param {Meeting} meeting */
function meetingItem(bracket, meeting) {
  const item = element("li", { class: "meeting", "data-meeting": meeting.meeting });
  const label = meeting.match
    ? element("a", { href: `/matches/${encodeURIComponent(meeting.match)}` }, t("match {meeting}", { meeting: meeting.meeting }))
    : element("span", {}, meeting.meeting);
  item.append(element("p", { class: "meeting-name" }, label), element("ul", {}, ...meeting.players.map((p) => side(bracket, meeting, p))));
  return item;
}

/** @param {Bracket} bracket */
function showBracket(bracket) {
  byId("bracket-section").hidden = false;
  byId("champion").textContent = bracket.champion ? t("Champion: {name}", { name: who(bracket.champion) }) : "";
  const titles = { W: tournament.kind === "double_elimination" ? t("Winners' bracket") : "", L: t("Losers' bracket"), GF: "" };
  const parts = [...columns(bracket.meetings)].map(([part, byColumn]) => {
    const list = [...byColumn];
    const title = /** @type {Record<string, string>} */ (titles)[part];
    const heading = title ? "h4" : "h3";  // a round's heading under its part's, or right under the bracket's
    const row = element("div", { class: "bracket-row" }, ...list.map(([column, meetings], i) => element("section", { class: "bracket-round", "data-round": `${part}${column}` },
      element(heading, {}, columnTitle(part, column, i === list.length - 1)),
      element("ol", {}, ...meetings.map((m) => meetingItem(bracket, m))))));
    return title ? element("section", { class: "bracket-part", "data-part": part }, element("h3", {}, title), row)
      : element("div", { class: "bracket-part", "data-part": part }, row);
  });
  byId("bracket").replaceChildren(...parts);
}

// -- every other kind: each round's games, from the log ------------------------------------------------------

/** @param {Game} game */
function outcome(game) {
  if (!game.ranks) return t("being played");
  const ranks = game.ranks;
  const best = game.players.filter((_, i) => ranks[i] === 1);
  if (best.length === game.players.length) return t("drawn");
  return t("won by {names}", { names: best.map(who).join(t(", ")) });
}

/** @param {Round} round */
function roundSection(round) {
  const games = round.games.map((game) => element("li", { "data-match": game.match, ...(game.ranks ? { "data-ended": "" } : {}) },
    element("a", { href: `/matches/${encodeURIComponent(game.match)}` }, game.players.map(who).join(" – ")),
    ": ", outcome(game)));
  const byes = round.byes.map((bye) => element("li", { class: "bye" }, t("bye for {name} ({points} points)", { name: who(bye.player), points: points(bye.points) })));
  return element("section", { class: "round", "data-round": String(round.number) },
    element("h3", {}, t("Round {number}", { number: round.number })), element("ul", {}, ...games, ...byes));
}

function showRounds() {
  if (KNOCKOUTS.includes(tournament.kind) || !rounds.size) return;
  byId("rounds-section").hidden = false;
  byId("rounds").replaceChildren(...[...rounds.values()].sort((a, b) => a.number - b.number).map(roundSection));
}

/** What an entry of the log changes of the rounds and the names. @param {Entry} entry */
function takeIn(entry) {
  if (entry.version <= version) return;
  version = entry.version;
  if (entry.type === "player_registered") {
    entrants.set(entry.data.player, { name: entry.data.name, bot: entry.data.bot ?? null, withdrawn: false });
  } else if (entry.type === "player_withdrew") {
    const known = entrants.get(entry.data.player);
    if (known) known.withdrawn = true;
  } else if (entry.type === "round_started") {
    const games = entry.data.matches.map((m) => ({ match: m.match, players: m.players, ranks: null }));
    rounds.set(entry.data.round, { number: entry.data.round, games, byes: entry.data.byes });
  } else if (entry.type === "game_finished") {
    const game = rounds.get(entry.data.round)?.games.find((g) => g.match === entry.data.match);
    if (game) game.ranks = entry.data.ranks;
  }
}

async function readLog() {
  for (;;) {
    const page = await getJson("/v1/tournaments/{tournament_id}/log", { path: { tournament_id: tournamentId }, query: { after: version, limit: 1000 } });
    page.entries.forEach(takeIn);
    if (!page.entries.length || version >= page.version) return;
  }
}

async function read() {
  tournament = await getJson("/v1/tournaments/{tournament_id}", { path: { tournament_id: tournamentId } });
  showSummary();
  showStandings(tournament.standings, tournament.version);
  if (tournament.bracket) showBracket(tournament.bracket);
}

/** @type {ReturnType<typeof setTimeout> | null} */
let readDue = null;
// The summary and the bracket read again after an entry that changes them, at most once a second however
// fast entries come. A game's result changes only the standings and the rounds outside a knockout, and
// both come with the feed: every spectator reading a thousand players' tournament again for each of a
// round's results would cost the server far more than the feed's standings, made once for all of them.
/** @param {Entry} entry */
function refresh(entry) {
  if (readDue || (entry.type === "game_finished" && !KNOCKOUTS.includes(tournament.kind))) return;
  readDue = setTimeout(() => {
    readDue = null;
    read().catch(showProblem);
  }, 1000);
}

async function live() {
  while (tournament.status !== "finished") {
    try {
      await followLog(`/v1/tournaments/${encodeURIComponent(tournamentId)}/events/stream?after=${version}`, {}, (/** @type {FeedEntry} */ fed) => {
        takeIn(fed.entry);
        if (fed.entry.type === "tournament_finished") tournament.status = "finished";  // its standings are final
        if (fed.standings) showStandings(fed.standings, fed.entry.version);
        showRounds();
        refresh(fed.entry);
      });
      await read();
    } catch (error) {
      await new Promise((resolve) => setTimeout(resolve, 3000));  // the server restarts, the network drops
    }
  }
}

async function main() {
  await ready;
  const log = /** @type {HTMLAnchorElement} */ (byId("log-link"));
  log.href = `/v1/tournaments/${encodeURIComponent(tournamentId)}/log?limit=1000`;
  tournament = await getJson("/v1/tournaments/{tournament_id}", { path: { tournament_id: tournamentId } });
  const game = (await games()).find((g) => g.id === tournament.game);
  gameName = game ? game.name : tournament.game;
  await readLog();
  showSummary();
  showStandings(tournament.standings, tournament.version);
  if (tournament.bracket) showBracket(tournament.bracket);
  showRounds();
  await live();
}

main().catch(showProblem);
