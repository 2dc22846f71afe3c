// Compiled under tsc --strict against the types openapi-typescript generates from openapi.yaml (never run):
// the simplest create body, then typed reads of the state, the match and its result, no casts.
import createClient from "openapi-fetch";
import type { components, paths } from "./matchlog";

type Schemas = components["schemas"];
const client = createClient<paths>({ baseUrl: "http://localhost:8000" });

export async function blokusTurn(): Promise<string> {
  const created = await client.POST("/v1/matches", { body: { game: "blokus", players: [{ name: "ann" }, { name: "bob" }] } });
  if (!created.data) throw new Error(created.error?.message);
  const token: string | undefined = created.data.seats[0].token;
  const read = await client.GET("/v1/matches/{match_id}/state", {
    params: { path: { match_id: created.data.id } }, headers: { Authorization: `Bearer ${token}` } });
  if (!read.data) throw new Error(read.error?.message);
  if (typeof read.data === "string") throw new Error("an SVG picture: ask for application/json");
  if (read.data.game !== "blokus") return "not a Blokus match";  // narrowed by the discriminator: BlokusState
  const view: Schemas["BlokusView"] = read.data.state;
  const cell: string | null = view.board[0][0];
  const toMove: number | undefined = view.to_move?.seat;
  const left: number = view.colours[0].squares_left;
  return `${cell} ${toMove} ${left} ${view.variant}`;
}

export function handSize(view: Schemas["BlackoutHongKongView"], seat: number): number {
  return view.players[seat].hand_size;
}

export function firstScore(match: Schemas["Match"]): number | undefined {
  if (match.game !== "chock-a-block") return undefined;  // narrowed by the discriminator
  const result: Schemas["ChockABlockResult"] | undefined = match.result;
  return result?.scores[0];
}

export function stateOf(state: Schemas["State"]): string {
  switch (state.game) {  // each branch typed as its game's view, by the discriminator
    case "blokus": return `${state.state.placements} placements`;
    case "block-block": return `move ${state.state.move_no}`;
    case "chock-a-block": return `${state.state.deck_size} cards in the deck`;
    case "blackout-hong-kong": return `round ${state.state.round}, ${state.state.players[0].hand_size} cards in hand`;
    default: return "a game this client does not read yet";  // a game added since: still a State
  }
}

export function piecesPlaced(page: Schemas["Events"]): string[] {
  if (page.game !== "blokus") return [];  // the page narrowed to BlokusEvents, then each entry by its type
  return page.events.flatMap((entry) => (entry.type === "placed" ? [entry.data.piece] : []));
}

export function fedEntry(entry: Schemas["FeedEntry"]): string | undefined {
  if (entry.game !== "chock-a-block" || entry.type !== "card_placed") return undefined;
  return JSON.stringify(entry.data);
}

export function jobScores(job: Schemas["Job"]): number[] | undefined {
  if (job.game !== "blokus" || job.result === undefined || !("scores" in job.result)) return undefined;
  return job.result.scores;  // BlokusResult, not the withheld provisional scores
}

export function placedData(entry: Schemas["BlokusEntry"]): string | undefined {
  return entry.type === "placed" ? entry.data.piece : undefined;  // an entry's data, by its type
}

export function redacted(entry: Schemas["BlackoutHongKongEntry"]): number | undefined {
  if (entry.type !== "district_stabilised") return undefined;
  return "tiles_returned" in entry.data ? entry.data.tiles_returned : entry.data.tiles.length;
}

export function delivery(body: Schemas["WebhookDelivery"]): string[] {
  if (body.game === "block-block") {  // narrowed to BlockBlockWebhookDelivery: its entries typed
    return body.entries.flatMap((entry) => (entry.type === "piece_placed" ? [entry.data.shape] : []));
  }
  return body.entries.map((entry) => entry.type);
}
