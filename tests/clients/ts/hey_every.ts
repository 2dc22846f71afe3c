// Written against @hey-api/openapi-ts's SDK (./hey): every operation of openapi.yaml called once through its
// generated function, with typed arguments, its answer read typed, the live feed read to its end through the
// SDK's own Server-Sent Events reader and one move sent on the moves socket as a BlokusMovesSocketMove; no
// casts, no any. tests/test_generated_client.py compiles it under tsc --strict and runs it (through run.mjs)
// against a real `matchlog serve`: it prints one line per operation, `<operationId> <status>`, then
// `feed <entries> <last entry's type> end` and `socket <status>`, and throws at the first answer that is not
// the one it expects.
import { createClient } from "./hey/client";
import {
  abortMatch, acceptChallenge, acceptUndo, askRematch, cancelSeek, checkHealth, checkReady, concede, createChallenge,
  createMatch, createSeek, createWebhook, declineChallenge, deleteWebhook, getChallenge, getRematch, getSeek,
  listChallenges, listSeeks, createTournament, getTournament, getTournamentCheckpoint, getTournamentLog, registerTournamentPlayer,
  startTournamentRound, streamTournamentEvents, withdrawTournamentPlayer,
  getAnalysis, getCheckpoint, getJob, getLeaderboard, getLog, getMatch, getMetrics, getPicture, getPlayer,
  getRecord, getSigningKey, getState, importMatch, joinSeat, listEvents, listGames, listLegalActions,
  exportMatches, listMatches, listPlayerMatches, listWebhookDeliveries, listWebhooks, refuseUndo, replaceSeat, requestAnalysis,
  scoreMatch, streamEvents, submitAction, undoMove, updateWebhook,
} from "./hey/sdk.gen";
import type { BlokusAction, CreateChallenge, BlokusMovesSocketMove, MovesSocketAnswer } from "./hey/types.gen";

/** Opens the moves socket at `url` as the seat of `token` (in the Authorization header, as the socket asks). */
export type OpenSocket = (url: string, token: string) => WebSocket;

const WAIT_MS = 60_000;  // how long the program waits for the server's workers (scoring, rating), at most
const RECORD = "(;GM[Blokus Duo]PB[Pia]PW[Olu];B[e10,f10])";

function said(operation: string, response: Pick<Response, "status">, expected: number): void {
  console.log(`${operation} ${response.status}`);
  if (response.status !== expected) throw new Error(`${operation}: ${response.status}, not ${expected}`);
}

export async function everyOperation(base: string, key: string, open: OpenSocket): Promise<void> {
  const client = createClient({ baseUrl: base });
  const platform = { Authorization: `Bearer ${key}` };
  said("listGames", (await listGames({ client })).response, 200);
  said("getSigningKey", (await getSigningKey({ client })).response, 200);
  const created = await createMatch({
    client, headers: platform,
    body: { game: "blokus", players: [{ name: "ann", player: "ann" }, { name: "bob", player: "bob" }], undo: "with_consent" },
  });
  said("createMatch", created.response, 201);
  if (created.data === undefined) throw new Error(created.error?.message);
  const match_id = created.data.id;
  const path = { match_id };
  const tokens = created.data.seats.map((seat) => seat.token ?? "");
  const imported = await importMatch({ client, headers: platform, body: { record_type: "application/x-blokus-sgf", record: RECORD } });
  said("importMatch", imported.response, 201);
  said("listMatches", (await listMatches({ client, query: { game: "blokus" }, headers: platform })).response, 200);
  said("exportMatches", (await exportMatches({ client, query: { game: "blokus", limit: 5 } })).response, 200);
  const match = await getMatch({ client, path, headers: platform });
  said("getMatch", match.response, 200);
  if (match.data === undefined) throw new Error(match.error?.message);
  const turn = match.data.to_act[0];
  const mover = { Authorization: `Bearer ${tokens[turn]}` };
  const other = { Authorization: `Bearer ${tokens[1 - turn]}` };
  said("getState", (await getState({ client, path, headers: mover })).response, 200);
  said("getPicture", (await getPicture({ client, path, headers: mover, parseAs: "text" })).response, 200);

  const legal = await listLegalActions({ client, path, headers: mover });
  said("listLegalActions", legal.response, 200);
  if (legal.data?.game !== "blokus") throw new Error("not a Blokus listing");
  const first: BlokusAction = legal.data.actions[0];
  const posted = await submitAction({
    client, path, headers: mover, body: { game: "blokus", expected_version: legal.data.version, action: first } });
  said("submitAction", posted.response, 201);
  said("undoMove", (await undoMove({ client, path, headers: mover })).response, 201);
  const accepted = await acceptUndo({ client, path, headers: other });
  said("acceptUndo", accepted.response, 201);
  if (accepted.data === undefined) throw new Error(accepted.error?.message);
  // the move taken back, made again on the moves socket: a Blokus match's message, typed
  const again: BlokusMovesSocketMove = { expected_version: accepted.data.version, action: first };
  const socket = `${base.replace("http", "ws")}/v1/matches/${match_id}/moves`;
  console.log(`socket ${await moved(open(socket, tokens[turn]), again)}`);
  said("undoMove", (await undoMove({ client, path, headers: mover })).response, 201);
  said("refuseUndo", (await refuseUndo({ client, path, headers: other })).response, 201);
  said("listEvents", (await listEvents({ client, path, headers: mover })).response, 200);
  said("getLog", (await getLog({ client, path, headers: { ...mover, Accept: "application/json" } })).response, 200);
  said("getCheckpoint", (await getCheckpoint({ client, path })).response, 200);
  said("getRecord", (await getRecord({ client, path, parseAs: "text" })).response, 200);
  const scoring = await scoreMatch({ client, path, headers: mover });
  said("scoreMatch", scoring.response, 202);
  if (scoring.data === undefined) throw new Error(scoring.error?.message);
  said("getJob", (await getJob({ client, path: { job_id: scoring.data.job_id }, headers: mover })).response, 200);
  said("concede", (await concede({ client, path, headers: mover })).response, 201);
  // the match is over: the feed gives every entry, then end once it is scored
  let feedStatus = 0;
  const names: string[] = [];
  const feed = await streamEvents({
    client, path, sseMaxRetryAttempts: 1,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      feedStatus = response.status;
      return response;
    },
    onSseEvent: (event) => names.push(event.event ?? "message"),
  });
  const types: string[] = [];
  for await (const data of feed.stream) {  // each event's data, decoded: an entry (its type), or {} at the end
    if (typeof data === "object" && data !== null && "type" in data && typeof data.type === "string") types.push(data.type);
  }
  said("streamEvents", { status: feedStatus }, 200);
  if (names[names.length - 1] !== "end") throw new Error("the feed did not end");
  console.log(`feed ${types.length} ${types[types.length - 1]} ${names[names.length - 1]}`);
  said("requestAnalysis", (await requestAnalysis({ client, path })).response, 202);
  said("getAnalysis", (await getAnalysis({ client, path })).response, 200);
  said("getLeaderboard", (await getLeaderboard({ client, path: { game: "blokus" }, headers: platform })).response, 200);
  const deadline = Date.now() + WAIT_MS;
  let player = await getPlayer({ client, path: { player: "ann" }, headers: platform });
  while (player.response.status === 404 && Date.now() < deadline) {  // rated once the match is scored
    await new Promise((resolve) => setTimeout(resolve, 200));
    player = await getPlayer({ client, path: { player: "ann" }, headers: platform });
  }
  said("getPlayer", player.response, 200);
  const played = await listPlayerMatches({ client, path: { player: "ann" }, query: { status: "finished" }, headers: platform });
  said("listPlayerMatches", played.response, 200);
  said("askRematch", (await askRematch({ client, path, headers: mover })).response, 200);
  said("getRematch", (await getRematch({ client, path, headers: other })).response, 200);

  const seek = await createSeek({ client, headers: platform, body: { game: "blokus", player: "ann" } });
  said("createSeek", seek.response, 201);
  if (seek.data === undefined) throw new Error("no seek");
  const sought = { seek_id: seek.data.id };
  said("getSeek", (await getSeek({ client, path: sought, headers: platform })).response, 200);
  said("listSeeks", (await listSeeks({ client, headers: platform })).response, 200);
  said("cancelSeek", (await cancelSeek({ client, path: sought, headers: platform })).response, 200);
  const challenged: CreateChallenge = { challenger: "ann", challenged: ["bob"], game: "blokus" };
  const taken = await createChallenge({ client, headers: platform, body: challenged });
  said("createChallenge", taken.response, 201);
  if (taken.data === undefined) throw new Error("no challenge");
  const challenge = { challenge_id: taken.data.id };
  said("getChallenge", (await getChallenge({ client, path: challenge, headers: platform })).response, 200);
  said("acceptChallenge", (await acceptChallenge({ client, path: challenge, headers: platform, body: { player: "bob" } })).response, 200);
  const refused = await createChallenge({ client, headers: platform, body: challenged });
  if (refused.data === undefined) throw new Error("no challenge");
  said("declineChallenge", (await declineChallenge({
    client, path: { challenge_id: refused.data.id }, headers: platform, body: { player: "bob" } })).response, 200);
  said("listChallenges", (await listChallenges({ client, query: { player: "ann" }, headers: platform })).response, 200);
  const cup = await createTournament({ client, headers: platform, body: { name: "Cup", kind: "swiss", game: "block-block", rounds: 1 } });
  said("createTournament", cup.response, 201);
  if (cup.data === undefined) throw new Error("no tournament");
  const tournament = { tournament_id: cup.data.id };
  for (const entrant of ["ann", "bob"]) {
    said("registerTournamentPlayer", (await registerTournamentPlayer({ client, path: tournament, headers: platform, body: { player: entrant } })).response, 201);
  }
  const started = await startTournamentRound({ client, path: tournament, headers: platform });
  said("startTournamentRound", started.response, 201);
  said("getTournament", (await getTournament({ client, path: tournament })).response, 200);
  said("withdrawTournamentPlayer", (await withdrawTournamentPlayer({
    client, path: { ...tournament, player: "ann" }, headers: platform })).response, 200);
  said("getTournamentLog", (await getTournamentLog({ client, path: tournament })).response, 200);
  said("getTournamentCheckpoint", (await getTournamentCheckpoint({ client, path: tournament })).response, 200);
  // the round's match conceded and its result taken in by the platform's read: the cup is over, and its feed
  // gives each entry, then end
  const game = started.data?.current_round?.matches[0];
  const loser = game?.seats?.[1]?.token;
  if (game === undefined || !loser) throw new Error("no round's seat token");
  said("concede", (await concede({ client, path: { match_id: game.match }, headers: { Authorization: `Bearer ${loser}` } })).response, 201);
  said("getTournament", (await getTournament({ client, path: tournament, headers: platform })).response, 200);
  let cupStatus = 0;
  const cupEvents: string[] = [];
  const cupFeed = await streamTournamentEvents({
    client, path: tournament, sseMaxRetryAttempts: 1,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      cupStatus = response.status;
      return response;
    },
    onSseEvent: (event) => cupEvents.push(event.event ?? "message"),
  });
  let cupEntries = 0;
  for await (const data of cupFeed.stream) {  // each event's data, decoded: an entry with the standings, or {} at the end
    if (typeof data === "object" && data !== null && "entry" in data) cupEntries += 1;
  }
  said("streamTournamentEvents", { status: cupStatus }, 200);
  if (cupEntries === 0 || cupEvents[cupEvents.length - 1] !== "end") throw new Error("the tournament's feed did not end");

  const lobby = await createMatch({ client, headers: platform, body: { game: "blokus", players: [{ name: "cy" }, { open: true }] } });
  if (lobby.data === undefined) throw new Error(lobby.error?.message);
  const seat = { match_id: lobby.data.id, seat: 1 };
  said("joinSeat", (await joinSeat({ client, path: seat, body: { name: "dee" } })).response, 201);
  said("replaceSeat", (await replaceSeat({ client, path: seat, headers: platform, body: { bot: "random" } })).response, 200);
  const aborted = await abortMatch({ client, path: { match_id: lobby.data.id }, headers: platform, body: { reason: "done" } });
  said("abortMatch", aborted.response, 200);

  const hook = await createWebhook({ client, headers: platform, body: { url: `${base}/hook`, events: ["match_started"] } });
  said("createWebhook", hook.response, 201);
  if (hook.data === undefined) throw new Error(hook.error?.message);
  const hooked = { hook_id: hook.data.id };
  said("listWebhooks", (await listWebhooks({ client, headers: platform })).response, 200);
  said("updateWebhook", (await updateWebhook({ client, path: hooked, headers: platform, body: { status: "enabled" } })).response, 200);
  said("listWebhookDeliveries", (await listWebhookDeliveries({ client, path: hooked, headers: platform })).response, 200);
  said("deleteWebhook", (await deleteWebhook({ client, path: hooked, headers: platform })).response, 204);
  said("checkHealth", (await checkHealth({ client })).response, 200);
  said("checkReady", (await checkReady({ client })).response, 200);
  said("getMetrics", (await getMetrics({ client, parseAs: "text" })).response, 200);
}

/** One move sent on the moves socket: the status of its answer, which must be the move accepted. */
export function moved(socket: WebSocket, move: BlokusMovesSocketMove): Promise<number> {
  return new Promise((resolve, reject) => {
    socket.onopen = () => socket.send(JSON.stringify(move));
    socket.onerror = () => reject(new Error("the moves socket failed"));
    socket.onmessage = (message) => {
      const answer: MovesSocketAnswer = JSON.parse(String(message.data));
      socket.close();
      if ("error" in answer) reject(new Error(`the socket refused the move: ${answer.status} ${answer.error}`));
      else if (answer.version <= move.expected_version) reject(new Error(`no new version: ${answer.version}`));
      else resolve(answer.status);
    };
  });
}
