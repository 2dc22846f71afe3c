// The public API, as the viewer reads it: the same calls any third-party client makes, each in the page's
// language (Accept-Language), so that the texts the server writes come in the words the page shows.
import { language, t } from "./i18n.js";

/** @typedef {import("./matchlog").components["schemas"]["Error"]} ErrorBody */

export class ApiError extends Error {
  /** @param {number} status @param {ErrorBody | null} body */
  constructor(status, body) {
    super(body && body.message ? body.message : t("the server answered {status}", { status: String(status) }));
    this.status = status;
    this.reason = body && body.error;
  }
}

/** The header that asks the server for the page's language. @returns {Record<string, string>} */
function spoken() {
  return { "Accept-Language": language() };
}

/** @typedef {import("./matchlog").paths} Paths */
/** @typedef {200 | 201 | 202} Success the statuses whose JSON a call answers with (the rest throw ApiError) */
/**
 * A contract path that has the method M (`"get"`, `"post"`).
 * @template {string} M
 * @typedef {{[P in keyof Paths]: Paths[P] extends Record<M, object> ? P : never}[keyof Paths]} PathWith
 */
/**
 * The JSON a successful answer of the operation O carries, as the contract declares it.
 * @template O
 * @typedef {O extends {responses: infer R} ? JsonOf<R[Extract<keyof R, Success>]> : never} Answer
 */
/**
 * @template R
 * @typedef {R extends {content: {"application/json": infer J}} ? J : null} JsonOf
 */
/**
 * What a call to the operation O sends: its path's parameters (required where the path has some), its
 * query, its JSON body (where it takes one) and extra headers (a seat's Authorization).
 * @template O
 * @typedef {(O extends {parameters: {path: infer V}} ? {path: V} : {path?: undefined})
 *   & {query?: O extends {parameters: {query?: infer Q}} ? Q : undefined, headers?: Record<string, string>}
 *   & (O extends {requestBody: {content: {"application/json": infer B}}} ? {body: B} : {body?: undefined})} Call
 */
/**
 * The call's argument list: the call may be left out where nothing in it is required.
 * @template O
 * @typedef {O extends {parameters: {path: object}} ? [Call<O>]
 *   : O extends {requestBody: {content: object}} ? [Call<O>] : [Call<O>?]} CallArguments
 */

/**
 * The URL of a contract path template, its `{name}`s filled in from the call and its query appended.
 * @param {string} template @param {{path?: object, query?: object}} call
 */
function address(template, call) {
  /** @type {Record<string, unknown>} */
  const values = { ...call.path };
  const path = template.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(String(values[name])));
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(call.query || {})) {
    if (value !== undefined && value !== null) query.set(name, String(value));
  }
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}

/**
 * GET a contract path (as its template, e.g. "/v1/matches/{match_id}"), answered with its JSON.
 * @template {PathWith<"get">} P
 * @param {P} path @param {CallArguments<Paths[P]["get"]>} call
 * @returns {Promise<Answer<Paths[P]["get"]>>}
 */
export async function getJson(path, ...call) {
  const { headers = {}, ...rest } = call[0] || {};
  const response = await fetch(address(path, rest), { headers: { Accept: "application/json", ...spoken(), ...headers } });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

/**
 * POST to a contract path (as its template), with the body its operation takes, answered with its JSON.
 * @template {PathWith<"post">} P
 * @param {P} path @param {CallArguments<Paths[P]["post"]>} call
 * @returns {Promise<Answer<Paths[P]["post"]>>}
 */
export async function postJson(path, ...call) {
  const { headers = {}, body, ...rest } = call[0] || {};
  /** @type {Record<string, string>} */
  const json = body === undefined ? {} : { "Content-Type": "application/json" };
  const response = await fetch(address(path, rest), {
    method: "POST",
    headers: { Accept: "application/json", ...spoken(), ...json, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, answer);
  return answer;
}

/** @param {string} path @param {string} accept @param {Record<string, string>} [headers] */
export async function getText(path, accept, headers = {}) {
  const response = await fetch(path, { headers: { Accept: accept, ...spoken(), ...headers } });
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
  return response.text();
}

// Server-Sent Events read with fetch, not EventSource: EventSource cannot send Authorization, and a
// seat's token must never travel in a URL. Calls onEntry(entry) for each entry; resolves at the end.
/**
 * @template [E=import("./matchlog").components["schemas"]["FeedEntry"]] what the feed's data lines hold:
 * a match's entry, or a tournament's (TournamentFeedEntry)
 * @param {string} path @param {Record<string, string>} headers
 * @param {(entry: E) => void} onEntry
 * @param {AbortSignal} [signal]
 */
export async function followLog(path, headers, onEntry, signal) {
  const response = await fetch(path, { headers: { Accept: "text/event-stream", ...spoken(), ...headers }, signal });
  if (!response.ok || !response.body) throw new ApiError(response.status, await response.json().catch(() => null));
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = block.split("\n");
      const kind = lines.find((l) => l.startsWith("event: "));
      const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
      if (kind === "event: end") return;
      if (data) onEntry(JSON.parse(data));
    }
  }
}

/**
 * @param {string} tag @param {Record<string, string>} [attributes] @param {...(Node | string)} children
 * @returns {HTMLElement}
 */
export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** @param {{players: {open?: boolean, seat: number, name?: string | null}[]}} match */
export function players(match) {
  return match.players.map((p) => (p.open ? t("(open seat {seat})", { seat: p.seat }) : p.name)).join(", ");
}

/**
 * The link back to the tournament a match is played for (#tournament-link in #tournament), hidden for a
 * match no tournament made.
 * @param {{tournament?: import("./matchlog").components["schemas"]["MatchTournament"]}} match
 */
export function showTournament(match) {
  const tournament = match.tournament;
  byId("tournament").hidden = !tournament;
  if (!tournament) return;
  const link = byId("tournament-link");
  link.setAttribute("href", `/tournaments/${encodeURIComponent(tournament.id)}`);
  link.textContent = t("Its tournament, round {number}", { number: tournament.round });
}

/** @type {Promise<import("./matchlog").components["schemas"]["Game"][]> | null} */
let catalogue = null;

/** The games' catalogue (GET /v1/games), read once however many of the page's scripts ask for it: it is
 * most of what the front page weighs. */
export function games() {
  if (!catalogue) catalogue = getJson("/v1/games");
  return catalogue;
}

/** A match's status in the page's words. @param {string} status */
export function statusWord(status) {
  /** @type {Record<string, string>} */
  const words = { open: t("open for players"), active: t("being played"), finished: t("finished"), aborted: t("aborted") };
  return words[status] || status;
}

/** @param {unknown} error an ApiError, another Error, or whatever else was thrown */
export function showProblem(error) {
  const problem = byId("problem");
  const reason = error instanceof ApiError ? error.reason : undefined;
  const message = error instanceof Error ? error.message : undefined;
  problem.textContent = reason ? `${message} (${reason})` : String(message || error);
  problem.hidden = false;
}

/** An element the page's HTML holds (a missing one is the page's bug, said at once). @param {string} id */
export function byId(id) {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found;
}
