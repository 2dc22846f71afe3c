import { byId, element, games, getJson, players, showProblem, statusWord } from "./api.js";
import { dateTime, number, ready } from "./i18n.js";

/** @typedef {import("./matchlog").components["schemas"]["Game"]} Game */
/** @typedef {import("./matchlog").components["schemas"]["Match"]} Match */

const PAGE = 20;

async function main() {
  await ready;
  const cursor = new URLSearchParams(location.search).get("cursor");
  const page = await getJson("/v1/matches", { query: { order: "newest", limit: PAGE, cursor: cursor || undefined } });
  const names = Object.fromEntries((await games()).map((/** @type {Game} */ game) => [game.id, game.name]));
  const rows = byId("matches").querySelector("tbody");
  if (!rows) return;
  for (const match of page.matches) {
    const link = element("a", { href: `/matches/${match.id}` }, names[match.game] || match.game);
    rows.append(element("tr", { "data-match": match.id },
      element("td", {}, link), element("td", {}, players(match)),
      element("td", {}, statusWord(match.status)), element("td", {}, number(match.version)),
      element("td", {}, element("time", { datetime: match.created_at }, dateTime(match.created_at)))));
  }
  byId("empty").hidden = page.matches.length > 0 || Boolean(cursor);
  byId("newer").hidden = !cursor;
  if (page.next_cursor) {
    const older = /** @type {HTMLAnchorElement} */ (byId("older"));
    older.href = `/?cursor=${encodeURIComponent(page.next_cursor)}`;
    older.hidden = false;
  }
}

main().catch(showProblem);
