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
  const view = read.data.state;
  if (!("placements" in view)) return "not a Blokus view";  // the union narrowed to BlokusView
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

export function placedData(entry: Schemas["BlokusEntry"]): string | undefined {
  return entry.type === "placed" ? entry.data.piece : undefined;  // an entry's data, by its type
}

export function redacted(entry: Schemas["BlackoutHongKongEntry"]): number | undefined {
  if (entry.type !== "district_stabilised") return undefined;
  return "tiles_returned" in entry.data ? entry.data.tiles_returned : entry.data.tiles.length;
}

export function delivery(body: Schemas["WebhookDelivery"]): string[] {
  return body.entries.map((entry) => entry.type);
}
