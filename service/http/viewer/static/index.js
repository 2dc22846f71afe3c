import { element, getJson, players, showProblem } from "./api.js";

const PAGE = 20;

async function main() {
  const cursor = new URLSearchParams(location.search).get("cursor");
  const query = new URLSearchParams({ order: "newest", limit: String(PAGE) });
  if (cursor) query.set("cursor", cursor);
  const page = await getJson(`/v1/matches?${query}`);
  const names = Object.fromEntries((await getJson("/v1/games")).map((game) => [game.id, game.name]));
  const rows = document.querySelector("#matches tbody");
  for (const match of page.matches) {
    const link = element("a", { href: `/matches/${match.id}` }, names[match.game] || match.game);
    rows.append(element("tr", { "data-match": match.id },
      element("td", {}, link), element("td", {}, players(match)),
      element("td", {}, match.status), element("td", {}, String(match.version))));
  }
  document.getElementById("empty").hidden = page.matches.length > 0 || Boolean(cursor);
  document.getElementById("newer").hidden = !cursor;
  if (page.next_cursor) {
    const older = document.getElementById("older");
    older.href = `/?cursor=${encodeURIComponent(page.next_cursor)}`;
    older.hidden = false;
  }
}

main().catch(showProblem);
