// Compiled under tsc --strict against the client @hey-api/openapi-ts generates from openapi.yaml (./hey):
// a match created, its state, legal actions and an action posted back, a record imported as JSON, the log
// as a JSON array, the live feed's events typed by FeedEvent; no casts, no any.
import { createClient } from "./hey/client";
import { createMatch, getLog, getState, importMatch, listLegalActions, submitAction } from "./hey/sdk.gen";
import type { Event, FeedEvent, FeedEntry } from "./hey/types.gen";

const client = createClient({ baseUrl: "http://localhost:8000" });

export async function firstMove(): Promise<number> {
  const created = await createMatch({ client, body: { game: "blokus", players: [{ name: "ann" }, { name: "bob" }] } });
  if (created.data === undefined) throw new Error(created.error?.message);
  const seat = created.data.seats[0];
  const auth = { Authorization: `Bearer ${seat.token}` };
  const path = { match_id: created.data.id };
  const state = await getState({ client, path, headers: auth });
  if (state.data === undefined || typeof state.data === "string") throw new Error("no state");
  const listing = await listLegalActions({ client, path, headers: auth });
  if (listing.data === undefined || listing.data.game !== "blokus") throw new Error("not a Blokus listing");
  const posted = await submitAction({
    client, path, headers: auth, body: { expected_version: listing.data.version, action: listing.data.actions[0] } });
  if (posted.data === undefined) throw new Error(posted.error?.message);
  return posted.data.version;
}

export async function imported(record: string): Promise<string> {
  const created = await importMatch({ client, body: { record_type: "application/x-blokus-sgf", record } });
  if (created.data === undefined) throw new Error(created.error?.message);
  const log = await getLog({ client, path: { match_id: created.data.id }, headers: { Accept: "application/json" } });
  const entries: Event[] = log.data ?? [];
  return entries.map((entry) => entry.type).join(" ");
}

export function fed(event: FeedEvent): string {
  const data = event.data;
  if (data === undefined) return event.event ?? "retry";
  switch (data.game) {  // narrowed by the game: FeedEnd has none
    case "blokus": case "block-block": case "chock-a-block": case "blackout-hong-kong": {
      const entry: FeedEntry = data;
      return `${entry.game} ${entry.type} to act: ${entry.to_act.join(",")} (${entry.status})`;
    }
    default: return "end";
  }
}
