// Written against openapi-typescript's types and openapi-fetch: every operation of openapi.yaml called once
// with typed arguments, its answer read typed, the live feed read to its end as FeedEvents and one move sent
// on the moves socket as a BlokusMovesSocketMove; no casts, no any. tests/test_generated_client.py compiles it
// under tsc --strict and runs it (through run.mjs) against a real `matchlog serve`: it prints one line per
// operation, `<operationId> <status>`, then `feed <entries> <last entry's type> end` and `socket <status>`,
// and throws at the first answer that is not the one it expects.
import createClient from "openapi-fetch";
import type { components, paths } from "./matchlog";

type Schemas = components["schemas"];
/** Opens the moves socket at `url` as the seat of `token` (in the Authorization header, as the socket asks). */
export type OpenSocket = (url: string, token: string) => WebSocket;

const WAIT_MS = 60_000;  // how long the program waits for the server's workers (scoring, rating), at most
const RECORD = "(;GM[Blokus Duo]PB[Pia]PW[Olu];B[e10,f10])";

function said(operation: string, response: Response, expected: number): void {
  console.log(`${operation} ${response.status}`);
  if (response.status !== expected) throw new Error(`${operation}: ${response.status}, not ${expected}`);
}

export async function everyOperation(base: string, key: string, open: OpenSocket): Promise<void> {
  const client = createClient<paths>({ baseUrl: base });
  const platform = { Authorization: `Bearer ${key}` };
  said("listGames", (await client.GET("/v1/games")).response, 200);
  said("getSigningKey", (await client.GET("/v1/signing-key")).response, 200);
  const created = await client.POST("/v1/matches", {
    headers: platform,
    body: { game: "blokus", players: [{ name: "ann", player: "ann" }, { name: "bob", player: "bob" }], undo: "with_consent" },
  });
  said("createMatch", created.response, 201);
  if (created.data === undefined) throw new Error(created.error?.message);
  const match_id = created.data.id;
  const path = { match_id };
  const tokens = created.data.seats.map((seat) => seat.token ?? "");
  const imported = await client.POST("/v1/imports", { headers: platform, body: { record_type: "application/x-blokus-sgf", record: RECORD } });
  said("importMatch", imported.response, 201);
  said("listMatches", (await client.GET("/v1/matches", { params: { query: { game: "blokus" } }, headers: platform })).response, 200);
  said("exportMatches", (await client.GET("/v1/exports/matches", { params: { query: { game: "blokus", limit: 5 } } })).response, 200);
  const match = await client.GET("/v1/matches/{match_id}", { params: { path }, headers: platform });
  said("getMatch", match.response, 200);
  if (match.data === undefined) throw new Error(match.error?.message);
  const turn = match.data.to_act[0];
  const mover = { Authorization: `Bearer ${tokens[turn]}` };
  const other = { Authorization: `Bearer ${tokens[1 - turn]}` };
  said("getState", (await client.GET("/v1/matches/{match_id}/state", { params: { path }, headers: mover })).response, 200);
  const picture = await client.GET("/v1/matches/{match_id}/picture", { params: { path }, headers: mover, parseAs: "text" });
  said("getPicture", picture.response, 200);

  const legal = await client.GET("/v1/matches/{match_id}/legal-actions", { params: { path }, headers: mover });
  said("listLegalActions", legal.response, 200);
  if (legal.data?.game !== "blokus") throw new Error("not a Blokus listing");
  const first: Schemas["BlokusAction"] = legal.data.actions[0];
  const posted = await client.POST("/v1/matches/{match_id}/actions", {
    params: { path }, headers: mover, body: { game: "blokus", expected_version: legal.data.version, action: first } });
  said("submitAction", posted.response, 201);
  said("undoMove", (await client.POST("/v1/matches/{match_id}/undo", { params: { path }, headers: mover })).response, 201);
  const accepted = await client.POST("/v1/matches/{match_id}/undo/accept", { params: { path }, headers: other });
  said("acceptUndo", accepted.response, 201);
  if (accepted.data === undefined) throw new Error(accepted.error?.message);
  // the move taken back, made again on the moves socket: a Blokus match's message, typed
  const again: Schemas["BlokusMovesSocketMove"] = { expected_version: accepted.data.version, action: first };
  const socket = `${base.replace("http", "ws")}/v1/matches/${match_id}/moves`;
  console.log(`socket ${await moved(open(socket, tokens[turn]), again)}`);
  said("undoMove", (await client.POST("/v1/matches/{match_id}/undo", { params: { path }, headers: mover })).response, 201);
  said("refuseUndo", (await client.POST("/v1/matches/{match_id}/undo/refuse", { params: { path }, headers: other })).response, 201);
  const events = await client.GET("/v1/matches/{match_id}/events", { params: { path }, headers: mover });
  said("listEvents", events.response, 200);
  const log = await client.GET("/v1/matches/{match_id}/log", { params: { path }, headers: { ...mover, Accept: "application/json" } });
  said("getLog", log.response, 200);
  said("getCheckpoint", (await client.GET("/v1/matches/{match_id}/checkpoint", { params: { path } })).response, 200);
  const record = await client.GET("/v1/matches/{match_id}/record", { params: { path }, parseAs: "text" });
  said("getRecord", record.response, 200);
  const scoring = await client.POST("/v1/matches/{match_id}/score", { params: { path }, headers: mover });
  said("scoreMatch", scoring.response, 202);
  if (scoring.data === undefined) throw new Error(scoring.error?.message);
  const job = await client.GET("/v1/jobs/{job_id}", { params: { path: { job_id: scoring.data.job_id } }, headers: mover });
  said("getJob", job.response, 200);
  said("concede", (await client.POST("/v1/matches/{match_id}/concede", { params: { path }, headers: mover })).response, 201);
  // the match is over: the feed gives every entry, then end once it is scored
  const stream = await client.GET("/v1/matches/{match_id}/events/stream", { params: { path }, parseAs: "stream" });
  said("streamEvents", stream.response, 200);
  if (stream.data === undefined || stream.data === null) throw new Error("no feed");
  console.log(`feed ${await fed(stream.data)}`);
  said("requestAnalysis", (await client.POST("/v1/matches/{match_id}/analysis", { params: { path } })).response, 202);
  said("getAnalysis", (await client.GET("/v1/matches/{match_id}/analysis", { params: { path } })).response, 200);
  const board = await client.GET("/v1/leaderboards/{game}", { params: { path: { game: "blokus" } }, headers: platform });
  said("getLeaderboard", board.response, 200);
  const deadline = Date.now() + WAIT_MS;
  let player = await client.GET("/v1/players/{player}", { params: { path: { player: "ann" } }, headers: platform });
  while (player.response.status === 404 && Date.now() < deadline) {  // rated once the match is scored
    await new Promise((resolve) => setTimeout(resolve, 200));
    player = await client.GET("/v1/players/{player}", { params: { path: { player: "ann" } }, headers: platform });
  }
  said("getPlayer", player.response, 200);
  const played = await client.GET("/v1/players/{player}/matches", {
    params: { path: { player: "ann" }, query: { status: "finished" } }, headers: platform });
  said("listPlayerMatches", played.response, 200);
  said("askRematch", (await client.POST("/v1/matches/{match_id}/rematch", { params: { path }, headers: mover })).response, 200);
  said("getRematch", (await client.GET("/v1/matches/{match_id}/rematch", { params: { path }, headers: other })).response, 200);

  const seek = await client.POST("/v1/seeks", { headers: platform, body: { game: "blokus", player: "ann" } });
  said("createSeek", seek.response, 201);
  if (seek.data === undefined) throw new Error(seek.error?.message);
  const sought = { seek_id: seek.data.id };
  said("getSeek", (await client.GET("/v1/seeks/{seek_id}", { params: { path: sought }, headers: platform })).response, 200);
  said("listSeeks", (await client.GET("/v1/seeks", { headers: platform })).response, 200);
  said("cancelSeek", (await client.DELETE("/v1/seeks/{seek_id}", { params: { path: sought }, headers: platform })).response, 200);
  const challenged: Schemas["CreateChallenge"] = { challenger: "ann", challenged: ["bob"], game: "blokus" };
  const taken = await client.POST("/v1/challenges", { headers: platform, body: challenged });
  said("createChallenge", taken.response, 201);
  if (taken.data === undefined) throw new Error(taken.error?.message);
  const challenge = { challenge_id: taken.data.id };
  said("getChallenge", (await client.GET("/v1/challenges/{challenge_id}", { params: { path: challenge }, headers: platform })).response, 200);
  said("acceptChallenge", (await client.POST("/v1/challenges/{challenge_id}/accept", {
    params: { path: challenge }, headers: platform, body: { player: "bob" } })).response, 200);
  const refused = await client.POST("/v1/challenges", { headers: platform, body: challenged });
  if (refused.data === undefined) throw new Error(refused.error?.message);
  said("declineChallenge", (await client.POST("/v1/challenges/{challenge_id}/decline", {
    params: { path: { challenge_id: refused.data.id } }, headers: platform, body: { player: "bob" } })).response, 200);
  said("listChallenges", (await client.GET("/v1/challenges", { params: { query: { player: "ann" } }, headers: platform })).response, 200);
  const cup = await client.POST("/v1/tournaments", { headers: platform, body: { name: "Cup", kind: "swiss", game: "block-block", rounds: 1 } });
  said("createTournament", cup.response, 201);
  if (cup.data === undefined) throw new Error(cup.error?.message);
  const tournament = { tournament_id: cup.data.id };
  for (const entrant of ["ann", "bob"]) {
    said("registerTournamentPlayer", (await client.POST("/v1/tournaments/{tournament_id}/players", {
      params: { path: tournament }, headers: platform, body: { player: entrant } })).response, 201);
  }
  const started = await client.POST("/v1/tournaments/{tournament_id}/rounds", { params: { path: tournament }, headers: platform });
  said("startTournamentRound", started.response, 201);
  said("getTournament", (await client.GET("/v1/tournaments/{tournament_id}", { params: { path: tournament } })).response, 200);
  said("withdrawTournamentPlayer", (await client.DELETE("/v1/tournaments/{tournament_id}/players/{player}", {
    params: { path: { ...tournament, player: "ann" } }, headers: platform })).response, 200);
  said("getTournamentLog", (await client.GET("/v1/tournaments/{tournament_id}/log", { params: { path: tournament } })).response, 200);
  said("getTournamentCheckpoint", (await client.GET("/v1/tournaments/{tournament_id}/checkpoint", { params: { path: tournament } })).response, 200);
  // the round's match conceded and its result taken in by the platform's read: the cup is over, and its feed
  // gives each entry, then end
  const game = started.data?.current_round?.matches[0];
  const loser = game?.seats?.[1]?.token;
  if (game === undefined || !loser) throw new Error("no round's seat token");
  said("concede", (await client.POST("/v1/matches/{match_id}/concede", {
    params: { path: { match_id: game.match } }, headers: { Authorization: `Bearer ${loser}` } })).response, 201);
  said("getTournament", (await client.GET("/v1/tournaments/{tournament_id}", { params: { path: tournament }, headers: platform })).response, 200);
  const cupFeed = await client.GET("/v1/tournaments/{tournament_id}/events/stream", { params: { path: tournament }, parseAs: "text" });
  said("streamTournamentEvents", cupFeed.response, 200);
  if (typeof cupFeed.data !== "string" || !cupFeed.data.includes("event: end")) throw new Error("the tournament's feed did not end");

  const lobby = await client.POST("/v1/matches", { headers: platform, body: { game: "blokus", players: [{ name: "cy" }, { open: true }] } });
  if (lobby.data === undefined) throw new Error(lobby.error?.message);
  const seat = { match_id: lobby.data.id, seat: 1 };
  said("joinSeat", (await client.POST("/v1/matches/{match_id}/seats/{seat}/join", { params: { path: seat }, body: { name: "dee" } })).response, 201);
  const replaced = await client.POST("/v1/matches/{match_id}/seats/{seat}/replace", { params: { path: seat }, headers: platform, body: { bot: "random" } });
  said("replaceSeat", replaced.response, 200);
  const aborted = await client.POST("/v1/matches/{match_id}/abort", { params: { path: { match_id: lobby.data.id } }, headers: platform, body: { reason: "done" } });
  said("abortMatch", aborted.response, 200);

  const hook = await client.POST("/v1/webhooks", { headers: platform, body: { url: `${base}/hook`, events: ["match_started"] } });
  said("createWebhook", hook.response, 201);
  if (hook.data === undefined) throw new Error(hook.error?.message);
  const hooked = { hook_id: hook.data.id };
  said("listWebhooks", (await client.GET("/v1/webhooks", { headers: platform })).response, 200);
  const patched = await client.PATCH("/v1/webhooks/{hook_id}", { params: { path: hooked }, headers: platform, body: { status: "enabled" } });
  said("updateWebhook", patched.response, 200);
  const deliveries = await client.GET("/v1/webhooks/{hook_id}/deliveries", { params: { path: hooked }, headers: platform });
  said("listWebhookDeliveries", deliveries.response, 200);
  said("deleteWebhook", (await client.DELETE("/v1/webhooks/{hook_id}", { params: { path: hooked }, headers: platform })).response, 204);
  said("checkHealth", (await client.GET("/healthz")).response, 200);
  said("checkReady", (await client.GET("/readyz")).response, 200);
  said("getMetrics", (await client.GET("/metrics", { parseAs: "text" })).response, 200);
}

/** A whole live feed (Server-Sent Events, to its end) read as FeedEvents: how many entries it gave, and what
 * came last. */
export async function fed(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const events: Schemas["FeedEvent"][] = [];
  let buffer = "";
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += read.value;
    for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
      events.push(feedEvent(buffer.slice(0, cut)));
      buffer = buffer.slice(cut + 2);
    }
  }
  const entries: Schemas["FeedEntry"][] = [];
  for (const event of events) {
    const data = event.data;
    if (data !== undefined && data.game !== undefined) entries.push(data);  // narrowed: FeedEnd has no game
  }
  const last = events[events.length - 1];
  if (last?.event !== "end") throw new Error("the feed did not end");
  return `${entries.length} ${entries[entries.length - 1]?.type} ${last.event}`;
}

function feedEvent(block: string): Schemas["FeedEvent"] {
  const event: Schemas["FeedEvent"] = {};
  for (const line of block.split("\n")) {
    const colon = line.indexOf(": ");
    const [name, value] = [line.slice(0, colon), line.slice(colon + 2)];
    if (name === "data") event.data = JSON.parse(value);
    else if (name === "id") event.id = value;
    else if (name === "retry") event.retry = Number(value);
    else if (name === "event" && (value === "message" || value === "end" || value === "revoked")) event.event = value;
  }
  return event;
}

/** One move sent on the moves socket: the status of its answer, which must be the move accepted. */
export function moved(socket: WebSocket, move: Schemas["BlokusMovesSocketMove"]): Promise<number> {
  return new Promise((resolve, reject) => {
    socket.onopen = () => socket.send(JSON.stringify(move));
    socket.onerror = () => reject(new Error("the moves socket failed"));
    socket.onmessage = (message) => {
      const answer: Schemas["MovesSocketAnswer"] = JSON.parse(String(message.data));
      socket.close();
      if ("error" in answer) reject(new Error(`the socket refused the move: ${answer.status} ${answer.error}`));
      else if (answer.version <= move.expected_version) reject(new Error(`no new version: ${answer.version}`));
      else resolve(answer.status);
    };
  });
}
