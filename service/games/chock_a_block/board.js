// The Chock-a-Block board of the play page (served from this package: /viewer/games/chock_a_block/board.js):
// the seat's hand, the block and neighbour markets, the score tokens, and every building, each room named
// by its colour and features in words beside the colour. A card (and its face), a neighbour tile or a
// token is chosen, and the rooms where the server's listing (legal-actions) holds that move are marked:
// a click (or Enter) there makes it. The page applies no rule itself, and shows only what the seat's view holds.
/** @typedef {typeof import("./api.js").element} Element the page's element maker, handed over by the play page */
/** @typedef {import("./i18n.js").Translate} Translate the board's words in the page's language (this package's catalogue) */
/** @typedef {import("./matchlog").components["schemas"]["ChockABlockView"]} View */
/** @typedef {import("./matchlog").components["schemas"]["ChockABlockAction"]} Action */
/** @typedef {{colour: string | null, features: string[], vacant: boolean, tile?: string | null, card?: string, closed?: string[]}} Room */

/** @type {Translate} the words of the board being drawn (mount sets them) */
let t = (msgid) => msgid;

/** A feature in the rulebook's word. @param {string} feature */
function featureName(feature) {
  /** @type {Record<string, string>} */
  const words = { CAT: t("cat"), UNDERWEAR: t("underwear"), FLOWER: t("flower"), BIRD: t("bird") };
  return words[feature] || feature.toLowerCase();
}

const CORNERS = /** @type {const} */ ([["TL", 0, 1], ["TR", 1, 1], ["BL", 0, 0], ["BR", 1, 0]]);

/** @param {string} id a block card's id (C31): the box's word for it and its number (the id itself is a tooltip) */
function cardName(id) {
  return t("block card {number}", { number: id.replace(/^C/, "") });
}

/** @param {string} id a neighbour tile's id (N20) @param {string[] | undefined} features */
function tileName(id, features) {
  const number = id.replace(/^N/, "");
  return features && features.length ? t("neighbour tile {number} ({features})", { number, features: featureWords(features) }) : t("neighbour tile {number}", { number });
}

/** @param {string[]} features */
function featureWords(features) {
  return features.map(featureName).join(t(" and "));
}

// What the player chose (a card's face, a tile, a token), kept across redraws: an entry of another seat
// redraws the board while the player is choosing.
let kept = /** @type {string | null} */ (null);

/**
 * @param {HTMLElement} root
 * @param {{view: View, version: number, actions: Action[], texts: string[], mine: boolean, play: (index: number) => void, t: Translate}} match
 * @param {Element} element
 */
export function mount(root, match, element) {
  const { view } = match;
  t = match.t;
  /** @type {Record<string, string>} */
  const colourWords = { PINK: t("pink"), BLUE: t("blue"), GREEN: t("green"), YELLOW: t("yellow"), ORANGE: t("orange") };
  /** @type {Map<string, {name: string, rgb: string}>} */
  const colours = new Map((view.colours || []).map((c) => [c.id, { name: c.display_name, rgb: c.rgb || "#ccc" }]));
  const tileFeatures = /** @type {Record<string, string[]>} */ (view.tile_features || {});
  const faces = /** @type {Record<string, Record<string, Record<string, Room>>>} */ (view.card_faces || {});
  /** @param {string | null} colour */
  const colourName = (colour) => (colour ? colourWords[colour.toUpperCase()] || (colours.get(colour) || { name: colour }).name.toLowerCase() : "");
  /** @param {string} face FRONT or BACK */
  const faceName = (face) => (face === "FRONT" ? t("front") : face === "BACK" ? t("back") : face.toLowerCase());
  /** @param {{feature: string, value: number}} token */
  const tokenName = (token) => t("{feature} token, {value} points", { feature: featureName(token.feature), value: token.value });
  /** @param {Room} r a room as a card shows it: its colour, and its features or that it is for rent */
  const cornerWords = (r) => (r.vacant ? t("{colour} for rent", { colour: colourName(r.colour) })
    : r.features.length ? t("{colour} {features}", { colour: colourName(r.colour), features: featureWords(r.features) })
      : t("{colour} room", { colour: colourName(r.colour) }));

  // What the listing offers, by what a player points at: a choice (a card's face, a tile, a token) and the
  // rooms of the building where it goes, each the index of the listed action.
  /** @type {Map<string, {label: string, rooms: Map<string, number>}>} */
  const choices = new Map();
  /** @type {Map<string, number>} market slot or DECK -> draw action */
  const draws = new Map();
  /** @type {{index: number, text: string}[]} the listed actions no choice holds: done as buttons */
  const others = [];
  match.actions.forEach((action, index) => {
    /** @param {string} key @param {string} label @param {[number, number][]} rooms */
    const offer = (key, label, rooms) => {
      const choice = choices.get(key) || { label, rooms: new Map() };
      choices.set(key, choice);
      for (const [x, y] of rooms) if (!choice.rooms.has(`${x},${y}`)) choice.rooms.set(`${x},${y}`, index);
    };
    if (action.type === "place_card") {
      const x = action.column !== undefined ? action.column * 2 : action.room_x;
      const y = action.row !== undefined ? action.row * 2 : action.room_y;
      if (x === undefined || y === undefined) others.push({ index, text: match.texts[index] || action.type });
      else offer(`card:${action.card}:${action.face}`, t("{card}, {face}", { card: cardName(action.card), face: faceName(action.face) }), [[x, y], [x + 1, y], [x, y + 1], [x + 1, y + 1]]);
    } else if (action.type === "place_neighbour") {
      const tile = action.tile || action.source || "PILE";
      offer(`tile:${tile}`, action.tile ? tileName(action.tile, tileFeatures[action.tile]) : t("a neighbour from the pile"), [[action.x, action.y]]);
    } else if (action.type === "claim_token") {
      const token = (view.token_supply || []).find((held) => held.token === action.token);
      offer(`token:${action.token}`, token ? tokenName(token) : action.token, [[action.x, action.y]]);
    } else if (action.type === "draw_card") {
      draws.set(action.source === "MARKET" ? `slot:${action.slot}` : "DECK", index);
    } else {
      others.push({ index, text: match.texts[index] || action.type });
    }
  });
  const playing = match.mine && match.actions.length > 0;
  let chosen = /** @type {string | null} */ (null);
  /** @type {HTMLElement[]} the rooms of the seat's own building, which the choices are played on */
  const targets = [];

  const status = element("p", { class: "cab-status", "aria-live": "polite" });
  const me = view.players.find((p) => p.seat === view.viewer);

  // A card's four rooms, as a 2 x 2 grid of colours named in words.
  /** @param {Record<string, Room>} face */
  function cardFace(face) {
    return element("span", { class: "cab-card", "aria-hidden": "true" }, ...CORNERS.map(([corner]) => room(face[corner], "span")));
  }

  /** @param {Room | undefined} r @param {string} tag */
  function room(r, tag) {
    const box = element(tag, { class: "cab-room" });
    if (!r) return box;
    if (r.tile) {
      box.classList.add("cab-tile");
      box.append(element("span", { class: "cab-words" }, `${featureWords(r.features)}`), element("span", { class: "cab-small" }, t("neighbour")));
      return box;
    }
    const paint = colours.get(r.colour || "");
    if (paint) box.style.background = paint.rgb;
    box.append(element("span", { class: "cab-small" }, colourName(r.colour)),
      element("span", { class: "cab-words" }, r.vacant ? t("for rent") : featureWords(r.features)));
    if (r.closed && r.closed.length) box.classList.add("cab-closed");
    return box;
  }

  /** @param {Room} r @param {number} x @param {number} y */
  function roomWords(r, x, y) {
    const colour = colourName(r.colour), features = featureWords(r.features);
    const what = r.tile ? t("neighbour with {features}", { features })
      : r.vacant ? t("{colour} room, for rent", { colour }) : features ? t("{colour} room, {features}", { colour, features }) : t("{colour} room", { colour });
    const said = t("{x}, {y}: {what}", { x, y, what });
    return r.closed && r.closed.length ? t("{room}, {features} chain closed by a token", { room: said, features: featureWords(r.closed) }) : said;
  }

  // A building, its top floor first: a grid of rooms a screen reader walks row by row.
  /** @param {View["players"][number]} player @param {boolean} own */
  function building(player, own) {
    /** @type {Map<string, Room>} */
    const rooms = new Map(player.rooms.map((r) => [`${r.x},${r.y}`, /** @type {Room} */ (r)]));
    const xs = player.rooms.map((r) => r.x), ys = player.rooms.map((r) => r.y);
    if (own) for (const choice of choices.values()) for (const key of choice.rooms.keys()) {
      const [x, y] = key.split(",").map(Number);
      xs.push(x); ys.push(y);
    }
    const x0 = Math.min(0, ...xs), x1 = Math.max(1, ...xs), y0 = Math.min(0, ...ys), y1 = Math.max(1, ...ys);
    const name = player.seat === view.viewer ? t("Your building") : t("Building of seat {seat}", { seat: player.seat });
    const grid = element("div", { class: "cab-building", role: "grid", "aria-label": t("{building}: {rooms} rooms, score {score}", { building: name, rooms: player.rooms.length, score: player.score }), style: `--columns: ${x1 - x0 + 1}` });
    for (let y = y1; y >= y0; y--) {
      const row = element("div", { role: "row", class: "cab-row" });
      for (let x = x0; x <= x1; x++) {
        const r = rooms.get(`${x},${y}`);
        const cell = r ? room(r, "div") : element("div", { class: "cab-room cab-empty" });
        cell.setAttribute("role", "gridcell");
        cell.dataset.words = r ? roomWords(r, x, y) : t("{x}, {y}: empty", { x, y });
        cell.setAttribute("aria-label", cell.dataset.words);
        cell.dataset.x = String(x);
        cell.dataset.y = String(y);
        if (own) {
          cell.tabIndex = -1;
          cell.addEventListener("click", () => put(x, y));
          cell.addEventListener("keydown", (event) => keys(event, x, y));
          targets.push(cell);
        }
        row.append(cell);
      }
      grid.append(row);
    }
    // a wide building scrolls sideways: in a region the keyboard can reach
    return element("div", { class: "cab-scroll", tabindex: "0", role: "region", "aria-label": name }, grid);
  }

  /** @param {string} key @param {boolean} [focus] */
  function choose(key, focus = true) {
    chosen = key;
    kept = key;
    for (const b of root.querySelectorAll("[data-choice]")) b.setAttribute("aria-pressed", String(b.getAttribute("data-choice") === key));
    const choice = choices.get(key);
    if (!choice) return;
    for (const cell of targets) {
      const at = `${cell.dataset.x},${cell.dataset.y}`;
      const on = choice.rooms.has(at);
      cell.classList.toggle("target", on);
      cell.tabIndex = -1;
      const said = cell.dataset.words || "";
      cell.setAttribute("aria-label", on ? t("{room}; {choice} goes here", { room: said, choice: choice.label }) : said);
    }
    const first = targets.find((cell) => cell.classList.contains("target"));
    if (first) {
      first.tabIndex = 0;
      if (focus) first.focus();
    }
    status.textContent = t("{choice} chosen: the marked rooms of your building take it. Click one, or use the arrow keys and Enter.", { choice: choice.label });
  }

  /** @param {number} x @param {number} y */
  function put(x, y) {
    const choice = chosen ? choices.get(chosen) : undefined;
    const index = choice ? choice.rooms.get(`${x},${y}`) : undefined;
    if (index === undefined) {
      if (choice) status.textContent = t("{choice} cannot go at {x}, {y}: choose a marked room.", { choice: choice.label, x, y });
      return;
    }
    kept = null;  // played: the next step starts with nothing chosen
    match.play(index);
  }

  /** @param {KeyboardEvent} event @param {number} x @param {number} y */
  function keys(event, x, y) {
    /** @type {Record<string, [number, number]>} */
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
    if (event.key in moves) {
      const [dx, dy] = moves[event.key];
      const next = targets.find((c) => c.dataset.x === String(x + dx) && c.dataset.y === String(y + dy));
      if (next) { for (const c of targets) c.tabIndex = -1; next.tabIndex = 0; next.focus(); }
    } else if (event.key === "Enter" || event.key === " ") put(x, y);
    else return;
    event.preventDefault();
  }

  /** @param {string} key @param {HTMLElement} content @param {string} label */
  function choiceButton(key, content, label) {
    const button = element("button", { type: "button", class: "cab-choice", "data-choice": key, "aria-pressed": "false", "aria-label": label }, content);
    button.addEventListener("click", () => choose(key));
    return button;
  }

  // The hand: each card with its two faces; a face the listing places is a button.
  const hand = element("section", { class: "cab-hand", "aria-label": t("Your hand") }, element("h3", {}, t("Your hand")));
  for (const card of (me && me.hand) || []) {
    const row = element("div", { class: "cab-hand-card" }, element("span", { class: "cab-name", title: card }, cardName(card)));
    for (const face of ["FRONT", "BACK"]) {
      const drawn = faces[card] && faces[card][face];
      if (!drawn) continue;
      const words = t("{card}, {face}: {rooms}", { card: cardName(card), face: faceName(face), rooms: CORNERS.map(([corner]) => cornerWords(drawn[corner])).join(t("; ")) });
      const key = `card:${card}:${face}`;
      row.append(choices.has(key) && playing ? choiceButton(key, element("span", {}, cardFace(drawn), ` ${faceName(face)}`), t("Place {what}", { what: words }))
        : element("span", { class: "cab-face", role: "img", "aria-label": words }, cardFace(drawn), ` ${faceName(face)}`));
    }
    hand.append(row);
  }

  // The block market: a card there is drawn by clicking it, when the listing draws it.
  const market = element("section", { class: "cab-market", "aria-label": t("Block market") }, element("h3", {}, t("Block market (deck: {cards} cards)", { cards: view.deck_size })));
  const slots = element("div", { class: "cab-slots" });
  view.block_market.forEach((card, slot) => {
    const drawn = card ? faces[card] && faces[card].FRONT : undefined;
    const rooms = drawn ? CORNERS.map(([corner]) => cornerWords(drawn[corner])).join(t("; ")) : "";
    const words = card ? t("{card}: {rooms}", { card: cardName(card), rooms }) : t("empty slot");
    const index = draws.get(`slot:${slot}`);
    const empty = t("empty");
    const content = element("span", card ? { title: card } : {}, drawn ? cardFace(drawn) : "", ` ${card ? cardName(card) : empty}`);
    if (index !== undefined && playing) {
      const button = element("button", { type: "button", class: "cab-draw", "aria-label": t("Draw {what}", { what: words }) }, content);
      button.addEventListener("click", () => match.play(index));
      slots.append(button);
    } else slots.append(element("span", { class: "cab-face", role: "img", "aria-label": words }, content));
  });
  const deck = draws.get("DECK");
  if (deck !== undefined && playing) {
    const button = element("button", { type: "button", class: "cab-draw" }, t("Draw from the deck"));
    button.addEventListener("click", () => match.play(deck));
    slots.append(button);
  }
  market.append(slots);

  // The neighbour market and the score tokens: chosen, then put on a room.
  const neighbours = element("section", { class: "cab-market", "aria-label": t("Neighbour market") }, element("h3", {}, t("Neighbour market (pile: {tiles} tiles)", { tiles: view.tile_pile_size })));
  const tiles = element("div", { class: "cab-slots" });
  for (const tile of view.neighbour_market) {
    if (!tile) continue;
    const label = tileName(tile, tileFeatures[tile]);
    const key = `tile:${tile}`;
    tiles.append(choices.has(key) && playing ? choiceButton(key, element("span", { title: tile }, label), t("Place {what}", { what: label })) : element("span", { class: "cab-face", title: tile }, label));
  }
  if (choices.has("tile:PILE") && playing) tiles.append(choiceButton("tile:PILE", element("span", {}, t("a neighbour from the pile")), t("Place a neighbour from the pile")));
  neighbours.append(tiles);
  const tokens = element("section", { class: "cab-market", "aria-label": t("Score tokens") }, element("h3", {}, t("Score tokens")));
  const supply = element("div", { class: "cab-slots" });
  for (const token of view.token_supply || []) {
    const label = tokenName(token);
    const key = `token:${token.token}`;
    supply.append(choices.has(key) && playing ? choiceButton(key, element("span", {}, label), t("Claim the {token}", { token: label })) : element("span", { class: "cab-face" }, label));
  }
  tokens.append(supply);

  const buttons = element("div", { class: "cab-others" }, ...(playing ? others : []).map(({ index, text }) => {
    const button = element("button", { type: "button" }, text);
    button.addEventListener("click", () => match.play(index));
    return button;
  }));

  /** @param {{feature: string, value: number}[]} held */
  const tokensHeld = (held) => {
    const comma = t(", ");
    return held.length ? t(", tokens: {tokens}", { tokens: held.map((token) => `${featureName(token.feature)} ${token.value}`).join(comma) }) : "";
  };
  const own = me ? element("section", { class: "cab-own", "aria-label": t("Your building") }, element("h3", {},
    t("Your building (seat {seat}): score {score}, {neighbours} neighbours", { seat: me.seat, score: me.score, neighbours: me.neighbours }) + tokensHeld(me.tokens)),
  building(me, playing)) : element("span", {});
  const rest = view.players.filter((p) => p !== me).map((p) => element("section", { class: "cab-other" },
    element("h3", {}, t("Seat {seat}: score {score}, {cards} cards in hand, {neighbours} neighbours", { seat: p.seat, score: p.score, cards: p.hand_size, neighbours: p.neighbours })
      + tokensHeld(p.tokens)),
    building(p, false)));
  // The engine's tokens step holds the rulebook's steps 3 and 4: claims, then the draw that ends the turn
  // (or END_TURN when no draw applies). Named as what is left to do: once the seat's listing holds no claim,
  // the draw alone, so the line and the actions listed agree.
  const drawing = Boolean(view.draw && view.draw.applies);
  const claiming = !playing || [...choices.keys()].some((key) => key.startsWith("token:"));
  const tokensStep = claiming ? (drawing ? t("claim tokens, then draw a card") : t("claim tokens"))
    : (drawing ? t("draw a card") : t("end the turn"));
  /** @type {Record<string, string>} */
  const steps = { place: t("place a card"), neighbours: t("place neighbours"), tokens: tokensStep, over: t("game over") };
  const step = view.step ? steps[String(view.step)] || String(view.step).replace(/_/g, " ") : "";
  const round = element("p", { class: "cab-round" }, step ? t("Round {round} of {rounds}; step: {step}.", { round: view.round, rounds: view.rounds, step })
    : t("Round {round} of {rounds}.", { round: view.round, rounds: view.rounds }));
  root.dataset.version = String(match.version);
  root.replaceChildren(round, status, ...(me ? [hand] : []), buttons, own, market, neighbours, tokens, ...rest);
  if (targets.length) targets[0].tabIndex = 0;
  if (kept !== null && playing && choices.has(kept)) {
    choose(kept, false);
    return;
  }
  status.textContent = playing
    ? (choices.size ? t("Choose a card face, a neighbour or a token: the rooms where it goes are marked.") : draws.size ? t("Draw a card from the market or the deck.") : "")
    : "";
}
