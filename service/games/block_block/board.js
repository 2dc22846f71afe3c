// The BLOCK.BLOCK board of the play page (served from this package: /viewer/games/block_block/board.js):
// the stack seen from the top, each column's height written in it, and drawn in three dimensions beside
// it. A shape and one of its ways are chosen, and the squares where the server's listing (legal-actions)
// holds that placement are marked: a click (or Enter) there makes it. The page applies no rule itself.
/** @typedef {typeof import("./api.js").element} Element the page's element maker, handed over by the play page */
/** @typedef {import("./i18n.js").Translate} Translate the board's words in the page's language (this package's catalogue) */
/** @typedef {import("./matchlog").components["schemas"]["BlockBlockView"]} View */
/** @typedef {import("./matchlog").components["schemas"]["BlockBlockAction"]} Action */
/** @typedef {[number, number, number]} Cube */

/** @type {Record<string, {fill: string, side: string, ink: string}>} */
const COLOURS = {
  BROWN: { fill: "#8b5a2b", side: "#5e3b1b", ink: "#fff" },
  WHITE: { fill: "#f7f5ef", side: "#c9c4b8", ink: "#1d1d1f" },
  HALF: { fill: "#c99a6b", side: "#8f6a45", ink: "#1d1d1f" },
};

/** @type {Translate} the words of the board being drawn (mount sets them) */
let t = (msgid) => msgid;

/** @param {string | null | undefined} colour */
function paint(colour) {
  /** @type {Record<string, string>} */
  const words = { BROWN: t("brown"), WHITE: t("white"), HALF: t("half piece") };
  return { ...(COLOURS[colour || ""] || { fill: "#999", side: "#666", ink: "#fff" }), word: words[colour || ""] || String(colour) };
}

/** @param {Cube[]} cubes @returns {Cube[]} */
function normalised(cubes) {
  const lo = [0, 1, 2].map((i) => Math.min(...cubes.map((c) => c[i])));
  return cubes.map((c) => /** @type {Cube} */ ([c[0] - lo[0], c[1] - lo[1], c[2] - lo[2]]));
}

// A way of standing a shape, said in words: its extent along the board's two sides and upwards.
/** @param {Cube[]} cubes */
function wayWords(cubes) {
  const [w, d, h] = [0, 1, 2].map((i) => Math.max(...cubes.map((c) => c[i])) + 1);
  return h === 1 ? t("{w} across, {d} deep, flat", { w, d }) : t("{w} across, {d} deep, {h} high", { w, d, h });
}

// An isometric drawing of cubes (x to the right and down, y to the left and down, z up), far cubes first.
/**
 * @param {{cube: Cube, colour: string, top: string}[]} cubes
 * @param {number} width @param {number} depth @param {number} size
 * @param {string} label @param {boolean} [floor] the board's squares under the cubes
 */
function isometric(cubes, width, depth, size, label, floor = true) {
  const ns = "http://www.w3.org/2000/svg";
  const ax = size * 0.87, ay = size * 0.5, az = size;
  const tallest = Math.max(1, ...cubes.map((c) => c.cube[2] + 1));
  const left = depth * ax, top = tallest * az;
  const w = (width + depth) * ax, h = (width + depth) * ay + tallest * az;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `-2 -2 ${w + 4} ${h + 4}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  /** @param {number} x @param {number} y @param {number} z */
  const at = (x, y, z) => `${(left + (x - y) * ax).toFixed(1)},${(top + (x + y) * ay - z * az).toFixed(1)}`;
  /** @param {string} points @param {string} fill */
  const face = (points, fill) => {
    const p = document.createElementNS(ns, "polygon");
    p.setAttribute("points", points);
    p.setAttribute("fill", fill);
    p.setAttribute("stroke", "#333");
    p.setAttribute("stroke-width", "0.8");
    p.setAttribute("stroke-linejoin", "round");
    svg.append(p);
  };
  for (let x = 0; floor && x < width; x++) {  // the board
    for (let y = 0; y < depth; y++) face(`${at(x, y, 0)} ${at(x + 1, y, 0)} ${at(x + 1, y + 1, 0)} ${at(x, y + 1, 0)}`, "#e9e4d8");
  }
  const ordered = [...cubes].sort((a, b) => (a.cube[0] + a.cube[1] + a.cube[2]) - (b.cube[0] + b.cube[1] + b.cube[2]) || a.cube[2] - b.cube[2]);
  for (const { cube: [x, y, z], colour, top } of ordered) {
    const own = paint(colour);
    face(`${at(x + 1, y, z)} ${at(x + 1, y + 1, z)} ${at(x + 1, y + 1, z + 1)} ${at(x + 1, y, z + 1)}`, own.side);
    face(`${at(x, y + 1, z)} ${at(x + 1, y + 1, z)} ${at(x + 1, y + 1, z + 1)} ${at(x, y + 1, z + 1)}`, own.fill);
    face(`${at(x, y, z + 1)} ${at(x + 1, y, z + 1)} ${at(x + 1, y + 1, z + 1)} ${at(x, y + 1, z + 1)}`, paint(top).fill);
  }
  return svg;
}

// The piece and way the player chose, kept across redraws (a redraw while choosing would drop them).
let kept = /** @type {{shape: string, way: number} | null} */ (null);

/**
 * @param {HTMLElement} root
 * @param {{view: View, version: number, actions: Action[], texts: string[], mine: boolean, play: (index: number) => void, t: Translate}} match
 * @param {Element} element
 */
export function mount(root, match, element) {
  const { view } = match;
  t = match.t;
  const width = view.board.width, depth = view.board.depth;
  /** @type {Map<string, Map<number, {cubes: Cube[], at: Map<string, number>}>>} shape -> way -> square -> listed action */
  const listed = new Map();
  match.actions.forEach((action, index) => {
    if (action.type !== "place" || !action.cubes) return;  // a resignation: the text mode and its button have it
    const cubes = action.cubes.map((c) => /** @type {Cube} */ ([c[0], c[1], c[2]]));
    const ways = listed.get(action.shape) || new Map();
    listed.set(action.shape, ways);
    const way = ways.get(action.rotation) || { cubes: normalised(cubes), at: new Map() };
    ways.set(action.rotation, way);
    if (!way.at.has(`${action.x},${action.y}`)) way.at.set(`${action.x},${action.y}`, index);
  });
  const mover = view.to_move ? view.colours.find((c) => c.colour === view.to_move?.colour) : undefined;
  let shape = /** @type {string | null} */ (null);
  let way = /** @type {number | null} */ (null);
  let cursor = /** @type {[number, number]} */ ([0, 0]);

  const status = element("p", { class: "bb-status", "aria-live": "polite" });
  const tray = element("div", { class: "bb-tray", role: "group", "aria-label": t("Your pieces") });
  const ways = element("div", { class: "bb-ways", role: "group", "aria-label": t("Ways to stand the piece") });
  const grid = element("div", { class: "bb-grid", role: "grid", "aria-label": t("The stack from the top, {width} by {depth}: each square's height and top colour", { width, depth }), style: `--columns: ${width}` });
  /** @type {HTMLElement[]} */
  const cells = [];
  for (let y = 0; y < depth; y++) {
    const row = element("div", { role: "row", class: "bb-row" });
    for (let x = 0; x < width; x++) {
      const height = view.heights[y][x];
      const top = view.tops[y][x];
      const colours = paint(top);
      const cell = element("div", { role: "gridcell", class: "bb-cell", tabindex: "-1", "data-x": String(x), "data-y": String(y), "data-height": String(height) },
        element("span", { class: "bb-height" }, String(height)),
        element("span", { class: "bb-top" }, top ? colours.word : ""));
      if (top) {
        cell.style.background = colours.fill;
        cell.style.color = colours.ink;
      }
      cell.addEventListener("pointerenter", (event) => event.pointerType !== "touch" && point([x, y]));
      cell.addEventListener("click", (event) => {
        point([x, y]);
        if (/** @type {PointerEvent} */ (event).pointerType !== "touch") place();
      });
      row.append(cell);
      cells.push(cell);
    }
    grid.append(row);
  }
  grid.addEventListener("keydown", keys);
  const confirm = /** @type {HTMLButtonElement} */ (element("button", { type: "button", id: "place-here", disabled: "" }, t("Place here (Enter)")));
  confirm.addEventListener("click", () => place());

  for (const [name, count] of Object.entries(mover ? mover.remaining : {})) {
    if (count <= 0) continue;
    const can = listed.has(name);
    const button = element("button", { type: "button", "data-shape": name, "aria-pressed": "false" }, `${name} ×${count}`);
    if (can) {
      const first = /** @type {{cubes: Cube[]}} */ (/** @type {Map<number, {cubes: Cube[]}>} */ (listed.get(name)).values().next().value);
      button.prepend(miniature(first.cubes));
      button.addEventListener("click", () => choose(name));
    } else {
      button.setAttribute("aria-disabled", "true");
      button.title = t("no legal placement now");
    }
    tray.append(button);
  }

  const stack = view.placed.flatMap((piece) => piece.cubes.map((c, i) => ({
    cube: /** @type {Cube} */ ([c[0], c[1], c[2]]), colour: piece.colour, top: piece.top_colours[i] || piece.colour,
  })));
  const drawing = element("div", { class: "bb-3d" });
  drawing.append(isometric(stack, width, depth, 24,
    t("The stack in three dimensions: {pieces} pieces placed, {cubes} cubes", { pieces: view.placed.length, cubes: stack.length })));
  const legend = element("ul", { class: "bb-legend" }, ...view.colours.map((c) => element("li", {},
    element("span", { class: "swatch", style: `background: ${paint(c.colour).fill}; color: ${paint(c.colour).ink}; border: 1px solid #333` }, paint(c.colour).word.slice(0, 1).toUpperCase()),
    " ", t("{colour} (seat {seat}): {squares} squares seen from the top, {pieces} pieces left",
      { colour: paint(c.colour).word, seat: c.seat, squares: c.visible_cells, pieces: c.pieces_left }),
    view.to_move && view.to_move.colour === c.colour ? t(", to move") : "")));
  const playing = match.mine && listed.size > 0;
  root.dataset.version = String(match.version);
  const views = element("div", { class: "bb-views" }, grid, drawing);
  root.replaceChildren(...(playing ? [tray, ways, confirm] : []), status, views, legend);
  cells[0].tabIndex = 0;
  label(new Map());
  status.textContent = playing ? t("Choose a piece, then the way to stand it: the marked squares take it there.") : "";
  if (playing && kept && listed.has(kept.shape)) choose(kept.shape, kept.way);

  /** @param {Cube[]} cubes */
  function miniature(cubes) {
    const svg = isometric(cubes.map((cube) => ({ cube, colour: mover ? mover.colour : "BROWN", top: mover ? mover.colour : "BROWN" })),
      Math.max(...cubes.map((c) => c[0])) + 1, Math.max(...cubes.map((c) => c[1])) + 1, 8, "", false);
    svg.removeAttribute("role");
    svg.removeAttribute("aria-label");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("width", "48");
    svg.setAttribute("height", "40");
    return svg;
  }

  /** @param {string} name @param {number} [rotation] the way to stand it, else its first */
  function choose(name, rotation) {
    shape = name;
    for (const b of tray.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.getAttribute("data-shape") === name));
    const options = /** @type {Map<number, {cubes: Cube[]}>} */ (listed.get(name));
    const buttons = [...options.entries()].map(([rotation, { cubes }], n) => {
      const button = element("button", { type: "button", "data-way": String(rotation), "aria-pressed": "false" },
        t("Way {n}: {way}", { n: n + 1, way: wayWords(cubes) }));
      button.prepend(miniature(cubes));
      button.addEventListener("click", () => pick(rotation));
      return button;
    });
    ways.replaceChildren(...buttons);
    pick(rotation !== undefined && options.has(rotation) ? rotation : /** @type {number} */ (options.keys().next().value));
  }

  /** @param {number} rotation */
  function pick(rotation) {
    way = rotation;
    kept = shape === null ? null : { shape, way };
    for (const b of ways.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.getAttribute("data-way") === String(rotation)));
    const targets = current();
    label(targets);
    const words = wayWords(/** @type {{cubes: Cube[]}} */ (listed.get(/** @type {string} */ (shape))?.get(rotation)).cubes);
    status.textContent = t("{shape}, {way}: {count} squares take it (marked). Point at one, or use the arrow keys on the board.",
      { shape: shape || "", way: words, count: targets.size });
    point(cursor);
  }

  // Each square read out: where it is, its height, the colour on top, and whether the chosen way goes there.
  /** @param {Map<string, number>} targets */
  function label(targets) {
    for (const cell of cells) {
      const key = `${cell.dataset.x},${cell.dataset.y}`;
      cell.classList.toggle("target", targets.has(key));
      const top = view.tops[Number(cell.dataset.y)][Number(cell.dataset.x)];
      const said = { x: cell.dataset.x, y: cell.dataset.y, height: cell.dataset.height, colour: paint(top).word, shape: shape || "" };
      const words = top ? t("{x}, {y}: height {height}, {colour} on top", said) : t("{x}, {y}: height {height}, empty", said);
      cell.setAttribute("aria-label", targets.has(key) ? t("{square}, {shape} can go here", { square: words, shape: shape || "" }) : words);
    }
  }

  /** @returns {Map<string, number>} */
  function current() {
    if (shape === null || way === null) return new Map();
    const options = listed.get(shape);
    const chosen = options && options.get(way);
    return chosen ? chosen.at : new Map();
  }

  /** @param {[number, number]} at */
  function point(at) {
    cells[cursor[1] * width + cursor[0]].tabIndex = -1;
    cursor = at;
    cells[at[1] * width + at[0]].tabIndex = 0;
    for (const c of cells) c.classList.remove("preview", "legal", "illegal");
    if (shape === null || way === null) return;
    const index = current().get(`${at[0]},${at[1]}`);
    const ok = index !== undefined;
    confirm.disabled = !ok;
    const cubes = ok ? /** @type {Action & {cubes: number[][]}} */ (match.actions[index]).cubes
      : (listed.get(shape)?.get(way)?.cubes || []).map((c) => [c[0] + at[0], c[1] + at[1]]);
    for (const [x, y] of cubes) {
      if (x >= 0 && y >= 0 && x < width && y < depth) cells[y * width + x].classList.add("preview", ok ? "legal" : "illegal");
    }
    status.textContent = ok ? t("{placement}: legal. Click, or press Enter, to place it.", { placement: match.texts[index] || shape || "" })
      : t("{piece} at {x}, {y}: not legal here.", { piece: shape || "", x: at[0], y: at[1] });
  }

  function place() {
    const index = current().get(`${cursor[0]},${cursor[1]}`);
    if (index === undefined) return;
    kept = null;  // placed: the next turn starts with no piece chosen
    match.play(index);
  }

  /** @param {KeyboardEvent} event */
  function keys(event) {
    /** @type {Record<string, [number, number]>} */
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (event.key in moves) {
      const [dx, dy] = moves[event.key];
      const to = /** @type {[number, number]} */ ([Math.min(width - 1, Math.max(0, cursor[0] + dx)), Math.min(depth - 1, Math.max(0, cursor[1] + dy))]);
      point(to);
      cells[to[1] * width + to[0]].focus();
    } else if (event.key === "Enter" || event.key === " ") place();
    else return;
    event.preventDefault();
  }
}
