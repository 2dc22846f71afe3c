// The Blackout: Hong Kong board of the play page (served from this package:
// /viewer/games/blackout_hong_kong/board.js), from the seat's own view only: the map with its districts,
// the rondel and the dice, the market, the seat's plan (made in secret: the others' planned cards are
// face down in the view, and stay so here), its objectives, specialists and patrols, and every player's
// public holdings. Every move is one the server's listing (legal-actions) holds: a location or a market
// card is clicked, a plan is put together from the listing's choices, the rest are buttons with the
// listing's own words. The page applies no rule itself.
/** @typedef {typeof import("./api.js").element} Element the page's element maker, handed over by the play page */
/** @typedef {import("./i18n.js").Translate} Translate the board's words in the page's language (this package's catalogue) */
/** @typedef {import("./matchlog").components["schemas"]["BlackoutHongKongView"]} View */
/** @typedef {import("./matchlog").components["schemas"]["BlackoutHongKongAction"]} Action */
/** @typedef {{kind: string, colour?: string, name?: string, role?: string, points?: number, searchIcons?: number, gatherCount?: number, letter?: string, objectives?: number}} Card */

/** @type {Record<string, string>} colours of the map's locations and the cards, with their words */
const PAINT = { YELLOW: "#f2c94c", BLUE: "#5b8def", PURPLE: "#9b6bd3", RED: "#e0605a", GREEN: "#5fb36b" };
const SEATS = ["#1d1d1f", "#b3261e", "#0b57d0", "#1e7b34"];
const SHAPES = ["■", "▲", "●", "◆"];

/** @param {string} word */
function lower(word) {
  return word.toLowerCase().replace(/_/g, " ");
}

// Whether this seat planned in this round (kept across redraws: another seat's entry redraws the board
// while the plan is being put together).
/** @type {{key: string, slots: Record<string, string>}} */
let draft = { key: "", slots: {} };

/**
 * @param {HTMLElement} root
 * @param {{view: View, version: number, actions: Action[], texts: string[], mine: boolean, play: (index: number, action?: Action) => void, t: Translate}} match
 * @param {Element} element
 */
export function mount(root, match, element) {
  const { view, t } = match;
  /** @type {Record<string, string>} the box's words for what the view names by an id */
  const WORDS = {
    FOOD: t("food"), WATER: t("water"), MEDICINE: t("medicine"), PETROL: t("petrol"), TOOLS: t("tools"), BOOKS: t("books"), BATTERY: t("battery"),
    YELLOW: t("yellow"), BLUE: t("blue"), PURPLE: t("purple"), RED: t("red"), GREEN: t("green"),
    HORSE: t("horse"), TIGER: t("tiger"), SHEEP: t("sheep"), DRAGON: t("dragon"),
    start_cubes: t("placing start cubes"), plan: t("planning"), over: t("over"),
  };
  /** @type {Record<string, string>} the specialists by their role, as the box names them (the pack's name otherwise) */
  const ROLES = { LEADER: t("Leader"), PATROL_OFFICER: t("Patrol officer"), MECHANIC: t("Mechanic"), DOCTOR: t("Doctor") };
  /** A name of the view's (a resource, a colour, an animal, a step) in words. @param {string} word */
  const say = (word) => WORDS[word] || (/^p\d$/.test(word) ? t("phase {n}", { n: word.slice(1) }) : lower(word));
  const comma = t(", "), semicolon = t("; ");
  const cards = /** @type {Record<string, Card>} */ (view.cards || {});
  const me = view.players.find((p) => Array.isArray(p.hand));
  const playing = match.mine && match.actions.length > 0;

  /** A location as the box shows it: its colour and number, or its crisis letter. @param {View["map"]["locations"][number]} l */
  const placeName = (l) => (l.crisisLetter ? t("crisis centre {letter} ({colour})", { letter: l.crisisLetter, colour: say(l.colour) })
    : t("{colour} location {number}", { colour: say(l.colour), number: l.id.replace(/^L0*/, "") }));
  /** @param {string} id a district's id (D07): the number the map shows */
  const districtNumber = (id) => id.replace(/^D0*/, "");

  /** @param {string | undefined} id */
  function cardName(id) {
    if (!id) return t("a face-down card");
    const card = cards[id];
    const number = id.replace(/^[A-Z]+-?/, "");
    if (!card) return t("card {id}", { id: number || id });
    if (card.kind === "SPECIALIST") {
      const name = (card.role && ROLES[card.role]) || card.name || t("specialist {role}", { role: lower(card.role || id) });
      return card.points ? t("{name} (specialist, {points} points)", { name, points: card.points }) : t("{name} (specialist)", { name });
    }
    if (card.kind === "VOLUNTEER") {
      const traits = [
        ...(card.gatherCount ? [t("gathers {n}", { n: card.gatherCount })] : []),
        ...(card.points ? [t("{points} points", { points: card.points })] : []),
        ...(card.searchIcons ? [t("{n} search", { n: card.searchIcons })] : []),
      ];
      return t("{colour} volunteer{traits}", { colour: say(card.colour || ""), traits: traits.map((trait) => comma + trait).join("") });
    }
    if (card.kind === "EMERGENCY_PLAN") return t("emergency plan {letter}", { letter: card.letter || number });
    if (card.kind === "CRISIS_PLAN") {
      return card.objectives ? t("crisis plan {number} ({objectives} objectives)", { number, objectives: card.objectives }) : t("crisis plan {number}", { number });
    }
    return `${lower(card.kind)} ${number || id}`;
  }

  // What the listing offers, by where it is made on the board; the rest become buttons.
  /** @type {Map<string, number>} */ const locations = new Map();
  /** @type {Map<string, number>} */ const districts = new Map();
  /** @type {Map<string, number>} */ const market = new Map();
  /** @type {{index: number, text: string, type: string}[]} */ const others = [];
  /** @type {Record<string, string[]> | null} */ let planChoices = null;
  let planIndex = -1;
  match.actions.forEach((action, index) => {
    const text = match.texts[index] || action.type;
    if ((action.type === "place_start_cube" || action.type === "place_cube") && action.location_id) locations.set(action.location_id, index);
    else if (action.type === "patrol_choose_district" && action.district_id) districts.set(action.district_id, index);
    else if (action.type === "buy_market_card" && action.objective_space_index !== undefined) {
      if (!market.has(`${action.row},${action.col}`)) market.set(`${action.row},${action.col}`, index);
      others.push({ index, text, type: action.type });
    } else if (action.type === "submit_plan") {
      const choices = /** @type {{slots?: Record<string, string[]>}} */ (action.choices || {});
      if (choices.slots && planChoices === null) { planChoices = choices.slots; planIndex = index; }
      const planned = Object.entries(action.slots || {}).map(([slot, card]) => t("slot {slot} {card}", { slot, card: cardName(card) })).join(comma) || t("no card");
      others.push({ index, text: `${text}: ${planned}`, type: action.type });
    } else others.push({ index, text, type: action.type });
  });

  const status = element("p", { class: "bhk-status", "aria-live": "polite" });
  const dieOn = (/** @type {string} */ die, /** @type {string} */ on) => t("{die} on {resource}", { die: lower(die), resource: say(on) });
  const seatList = (/** @type {number[]} */ seats) => seats.map((seat) => t("seat {seat}", { seat })).join(comma);
  const heading = element("p", { class: "bhk-round" },
    t("Round {round}, phase {phase}: {step}.", { round: view.round, phase: view.phase, step: say(view.step) })
    + (view.dice ? " " + t("Dice: {dice}.", { dice: Object.entries(view.dice).map(([die, on]) => dieOn(die, on)).join(comma) }) : "")
    + (view.plans_submitted && view.plans_submitted.length ? " " + t("Plans made: {seats}.", { seats: seatList(view.plans_submitted) }) : ""));

  // The map: locations (colour, crisis letter and name in words), roads, districts and the players' cubes.
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "40 30 940 930");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("Map of Hong Kong: the locations are listed below it"));
  svg.classList.add("bhk-map");
  /** @type {Map<string, {x: number, y: number}>} */
  const where = new Map(view.map.locations.map((l) => [l.id, { x: l.x, y: l.y }]));
  /** @param {string} tag @param {Record<string, string | number>} attrs */
  const draw = (tag, attrs) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    svg.append(node);
    return node;
  };
  for (const [a, b] of view.map.edges) {
    const p = where.get(a), q = where.get(b);
    if (p && q) draw("line", { x1: p.x, y1: p.y, x2: q.x, y2: q.y, stroke: "#999", "stroke-width": 3 });
  }
  const state = new Map(view.districts.map((d) => [d.id, d]));
  for (const district of view.map.districts) {
    const points = district.boundary.map((id) => where.get(id)).filter((p) => p !== undefined);
    if (!points.length) continue;
    const cx = points.reduce((s, p) => s + p.x, 0) / points.length, cy = points.reduce((s, p) => s + p.y, 0) / points.length;
    const d = state.get(district.id);
    const label = draw("text", { x: cx, y: cy, "text-anchor": "middle", "font-size": 22, fill: d && d.stabilised ? "#1e5b2c" : "#555" });
    label.textContent = `${districtNumber(district.id)}${d && d.stabilised ? " ✓" : ""}`;
  }
  /** @type {Map<string, number[]>} location -> seats with a cube there */
  const cubes = new Map();
  for (const p of view.players) for (const at of p.cubes) cubes.set(at, [...(cubes.get(at) || []), p.seat]);
  for (const l of view.map.locations) {
    const target = locations.has(l.id);
    const g = document.createElementNS(ns, "g");
    svg.append(g);
    const dot = document.createElementNS(ns, "circle");
    for (const [k, v] of Object.entries({ cx: l.x, cy: l.y, r: 22, fill: PAINT[l.colour] || "#ccc", stroke: target ? "#1e5b2c" : "#333", "stroke-width": target ? 7 : 2 })) dot.setAttribute(k, String(v));
    const name = document.createElementNS(ns, "text");
    for (const [k, v] of Object.entries({ x: l.x, y: l.y + 7, "text-anchor": "middle", "font-size": 19, "font-weight": 700, fill: "#1d1d1f" })) name.setAttribute(k, String(v));
    name.textContent = l.crisisLetter || l.id.replace(/^L0?/, "");
    const tip = document.createElementNS(ns, "title");
    tip.textContent = placeName(l);
    g.append(tip, dot, name);
    (cubes.get(l.id) || []).forEach((seat, n) => {
      const cube = document.createElementNS(ns, "text");
      for (const [k, v] of Object.entries({ x: l.x + 26 + n * 20, y: l.y - 12, "font-size": 24, fill: SEATS[seat % 4] })) cube.setAttribute(k, String(v));
      cube.textContent = SHAPES[seat % 4];
      g.append(cube);
    });
    if (target) {
      // On a phone the map is ~40% of its drawn size: the dot alone is under 24 px. An unpainted ring to half
      // the closest two locations' distance (70) makes a finger's target without reaching a neighbour's.
      const reach = document.createElementNS(ns, "circle");
      for (const [k, v] of Object.entries({ cx: l.x, cy: l.y, r: 35, fill: "none", "pointer-events": "all" })) reach.setAttribute(k, String(v));
      tip.after(reach);
      g.classList.add("target");
      g.addEventListener("click", () => match.play(/** @type {number} */ (locations.get(l.id))));
    }
  }
  const cubeOf = (/** @type {View["players"][number]} */ p) => t("{shape} seat {seat} ({animal})", { shape: SHAPES[p.seat % 4], seat: p.seat, animal: say(p.animal) });
  const legend = element("p", { class: "bhk-legend" },
    t("Cubes: {cubes}. Location colours: yellow, blue, purple; a letter is a crisis location; ✓ a stabilised district.",
      { cubes: view.players.map(cubeOf).join(comma) }));

  // The locations and districts as lists a screen reader walks: a legal one is a button.
  const places = element("details", { class: "bhk-list" }, element("summary", {}, t("Locations ({count} to choose now)", { count: locations.size })),
    element("ul", {}, ...view.map.locations.map((l) => {
      const held = cubes.get(l.id) || [];
      const words = placeName(l)
        + (held.length ? comma + t("cubes of {seats}", { seats: seatList(held) }) : "");
      const index = locations.get(l.id);
      if (index === undefined || !playing) return element("li", { title: l.id }, words);
      const button = element("button", { type: "button", "data-location": l.id, title: l.id }, t("Place a cube: {location}", { location: words }));
      button.addEventListener("click", () => match.play(index));
      return element("li", {}, button);
    })));
  if (locations.size && playing) places.setAttribute("open", "");
  const areas = element("details", { class: "bhk-list" }, element("summary", {}, t("Districts ({count} stabilised)", { count: view.districts.filter((d) => d.stabilised).length })),
    element("ul", {}, ...view.districts.map((d) => {
      const said = { number: districtNumber(d.id), tiles: d.tile_count };
      const words = (d.stabilised ? t("District {number}: stabilised, {tiles} patrol tiles", said) : t("District {number}: not stabilised, {tiles} patrol tiles", said))
        + (d.houses.length ? comma + t("houses of {seats}", { seats: seatList(d.houses) }) : "");
      const index = districts.get(d.id);
      if (index === undefined || !playing) return element("li", { title: d.id }, words);
      const button = element("button", { type: "button", "data-district": d.id, title: d.id }, t("Patrol {district}", { district: words }));
      button.addEventListener("click", () => match.play(index));
      return element("li", {}, button);
    })));
  if (districts.size && playing) areas.setAttribute("open", "");

  // The rondel: each player's cubes on each resource, and where the dice lie.
  const resources = [...view.rondel_order, "BATTERY"];
  const dice = /** @type {Record<string, string>} */ (view.dice || {});
  const rondel = element("table", { class: "bhk-rondel" }, element("caption", {}, t("Rondel (resources held; the dice on their sectors)")),
    element("thead", {}, element("tr", {}, element("th", { scope: "col" }, t("Seat")), ...resources.map((r) => element("th", { scope: "col" },
      `${say(r)}${Object.entries(dice).filter(([, on]) => on === r).map(([die]) => ` ⚄${lower(die)}`).join("")}`)))),
    element("tbody", {}, ...view.players.map((p) => element("tr", {}, element("th", { scope: "row" }, `${SHAPES[p.seat % 4]} ${p.seat}`),
      ...resources.map((r) => element("td", {}, String((/** @type {Record<string, number>} */ (p.rondel))[r] || 0)))))));

  // The market: 3 rows of cards, a row's price beside it; a card the listing buys is a button.
  const empty = t("empty");
  const shop = element("table", { class: "bhk-market" }, element("caption", {}, t("Market (objective deck {count})", { count: view.objective_deck })),
    element("tbody", {}, ...view.market.map((row, r) => element("tr", {}, element("th", { scope: "row" }, t("row {row}: {price} HK$", { row: r + 1, price: view.market_prices[r] ?? "-" })),
      ...row.map((card, c) => {
        const index = market.get(`${r},${c}`);
        if (!card) return element("td", {}, empty);
        if (index === undefined || !playing) return element("td", { title: card }, cardName(card));
        const button = element("button", { type: "button", title: card }, t("Buy {card}", { card: cardName(card) }));
        button.addEventListener("click", () => match.play(index));
        return element("td", {}, button);
      })))));

  // The players: public holdings of each; the seat's own hand and plan only in its own view.
  const players = element("div", { class: "bhk-players" }, ...view.players.map((p) => {
    const own = p === me;
    const faceDown = t("a face-down card");
    const slots = p.slots.map((slot, i) => t("slot {slot}: {cards}", { slot: i + 1, cards: slot.length ? slot.map((s) => (s.faceUp && s.card ? cardName(s.card) : faceDown)).join(comma) : empty }));
    const list = (/** @type {string[]} */ ids) => ids.map(cardName).join(semicolon) || empty;
    const objectives = p.objective_area.map((o) => (o ? t("{card} ({done} done, {markers} markers)", { card: cardName(o.card), done: o.done.length, markers: o.markers }) : empty)).join(semicolon)
      + (typeof p.emergency_plan === "string" ? semicolon + cardName(p.emergency_plan)
        : p.emergency_plan ? semicolon + t("{card} ({done} done)", { card: cardName(p.emergency_plan.card), done: p.emergency_plan.done.length }) : "");
    const faceUp = (/** @type {string} */ reward) => t("{reward} (face up)", { reward: say(reward) });
    const tiles = p.patrol_tiles.length ? p.patrol_tiles.map((tile) => (tile.faceUp && tile.rewardType ? faceUp(tile.rewardType) : t("face down"))).join(comma) : t("none");
    const who = { shape: SHAPES[p.seat % 4], seat: p.seat, animal: say(p.animal) };
    return element("section", { class: "bhk-player", "aria-label": t("Seat {seat}", { seat: p.seat }) },
      element("h3", {}, own ? t("{shape} Seat {seat} ({animal}): you", who) : t("{shape} Seat {seat} ({animal})", who)),
      element("p", {}, t("{vp} VP, {hkd} HK$, {transport} transport, {gps} GPS, {cubes} cubes in supply, {cards} cards in hand, {houses} houses left.",
        { vp: p.vp, hkd: p.hkd, transport: p.transport, gps: p.gps, cubes: p.cube_supply, cards: p.hand_size, houses: p.houses_left })),
      element("ul", {},
        ...(own && p.hand ? [element("li", {}, t("Hand: {cards}", { cards: list(p.hand) }))] : []),
        element("li", {}, t("Plan: {slots}", { slots: slots.join(semicolon) })),
        element("li", {}, t("Objectives: {objectives}", { objectives })),
        element("li", {}, t("Check area: {check}; hospital: {hospital}", { check: list(p.check_area), hospital: list(p.hospital) })),
        element("li", {}, t("Patrol tiles: {tiles}", { tiles }))));
  }));

  // The secret plan: a card (or none) per slot, from the listing's choices; the server checks it.
  const planner = element("section", { class: "bhk-plan", "aria-label": t("Your plan") });
  if (planChoices && playing && me) {
    const key = `${view.round}:${me.seat}`;
    if (draft.key !== key) draft = { key, slots: {} };
    const choices = /** @type {Record<string, string[]>} */ (planChoices);
    planner.append(element("h3", {}, t("Your plan (secret until revealed)")));
    const none = t("no card");
    for (const [slot, options] of Object.entries(choices)) {
      const select = /** @type {HTMLSelectElement} */ (element("select", { id: `plan-slot-${slot}`, "data-slot": slot },
        element("option", { value: "" }, none), ...options.map((card) => element("option", { value: card, title: card }, cardName(card)))));
      select.value = draft.slots[slot] || "";
      select.addEventListener("change", () => { draft.slots[slot] = select.value; });
      planner.append(element("label", { for: `plan-slot-${slot}` }, t("Slot {slot}", { slot })), select);
    }
    const submit = element("button", { type: "button", id: "submit-plan" }, t("Submit the plan"));
    submit.addEventListener("click", () => {
      /** @type {Record<string, string>} */
      const slots = {};
      for (const [slot, card] of Object.entries(draft.slots)) if (card) slots[slot] = card;
      match.play(planIndex, /** @type {Action} */ ({ type: "submit_plan", slots }));
    });
    planner.append(submit);
  }

  const buttons = element("div", { class: "bhk-others", role: "group", "aria-label": t("Other actions") }, ...(playing ? others : [])
    .filter((o) => o.type !== "buy_market_card" && o.type !== "submit_plan").slice(0, 60).map(({ index, text }) => {
      const button = element("button", { type: "button" }, text);
      button.addEventListener("click", () => match.play(index));
      return button;
    }));

  root.dataset.version = String(match.version);
  const maps = element("div", { class: "bhk-map-box" });
  maps.append(svg);
  // wide tables scroll on a phone: in a region the keyboard can reach
  /** @param {HTMLElement} table @param {string} label */
  const scroller = (table, label) => element("div", { class: "bhk-scroll", tabindex: "0", role: "region", "aria-label": label }, table);
  root.replaceChildren(heading, status, planner, buttons, maps, legend, places, areas, scroller(rondel, t("Rondel")), scroller(shop, t("Market")), players);
  const mine = me && view.my_plan ? Object.entries(view.my_plan).map(([slot, card]) => t("slot {slot} {card}", { slot, card: cardName(card) })).join(comma) : "";
  status.textContent = !playing ? (mine ? t("Your plan is in: {plan}.", { plan: mine }) : "")
    : planChoices ? t("Put a card (or none) in each slot of your plan, then submit it: the others see only that you planned.")
      : locations.size ? t("Choose a location on the map (marked with a thick ring) or in the list below it.") : t("Choose an action.");
}
