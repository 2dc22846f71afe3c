// The Blokus board by pointing (served by the play page from this package: /viewer/games/blokus/board.js): a piece tray, rotate and flip, and a preview that follows the pointer (or
// the arrow keys) and says whether the placement is legal before it is made. Whether it is legal is read
// from the listing the server gave (legal-actions): the page only looks the squares up in it.
/** @typedef {typeof import("./api.js").element} Element the page's element maker, handed over by the play page */
/** @typedef {import("./i18n.js").Translate} Translate the board's words in the page's language (this package's catalogue) */

/** @type {Record<string, string>} */
const COLOURS = {
  blue: "#1f5fd6", yellow: "#e0b400", red: "#d62828", green: "#2a9d3f", purple: "#7b3fb0", orange: "#e87722",
};

/** @typedef {[number, number]} Square */
/** @typedef {import("./matchlog").components["schemas"]["BlokusView"]} View */
/** @typedef {import("./matchlog").components["schemas"]["BlokusAction"]} Action */

/** @param {Square[]} cells @returns {Square[]} */
function normalised(cells) {
  const x0 = Math.min(...cells.map((c) => c[0]));
  const y0 = Math.min(...cells.map((c) => c[1]));
  return cells.map(([x, y]) => /** @type {Square} */ ([x - x0, y - y0])).sort((a, b) => a[1] - b[1] || a[0] - b[0]);
}

/** @param {Square[]} cells */
function keyOf(cells) {
  return [...cells].sort((a, b) => a[1] - b[1] || a[0] - b[0]).map((c) => c.join(",")).join(";");
}

// The square of a shape the pointer holds: the one nearest its middle.
/** @param {Square[]} shape @returns {Square} */
function handle(shape) {
  const mx = (Math.max(...shape.map((c) => c[0]))) / 2;
  const my = (Math.max(...shape.map((c) => c[1]))) / 2;
  return shape.reduce((best, c) => (Math.hypot(c[0] - mx, c[1] - my) < Math.hypot(best[0] - mx, best[1] - my) ? c : best));
}

/**
 * @param {HTMLElement} root
 * @param {{view: View, version: number, actions: Action[], texts: string[], mine: boolean, play: (index: number) => void, t: Translate}} match
 * @param {Element} element
 */
export function mount(root, match, element) {
  const { view, t } = match;
  /** @param {string} colour */
  const colourWord = (colour) => ({ blue: t("blue"), yellow: t("yellow"), red: t("red"), green: t("green"), purple: t("purple"), orange: t("orange") })[colour] || colour;
  const width = view.width, height = view.height;
  /** @type {Map<string, number>} squares -> index of the listed action */
  const legal = new Map();
  /** @type {Map<string, Square[]>} piece -> the squares of one of its listed placements */
  const shapes = new Map();
  /** @type {Set<string>} the squares some listed placement covers: where the colour's corners let it go now */
  const reachable = new Set();
  match.actions.forEach((action, index) => {
    if (action.type !== "place" || !action.cells || !action.piece) return;  // a pass: the text mode has it
    const squares = action.cells.map(([x, y]) => /** @type {Square} */ ([x, y]));
    legal.set(keyOf(squares), index);
    if (!shapes.has(action.piece)) shapes.set(action.piece, normalised(squares));
    for (const square of squares) reachable.add(square.join(","));
  });
  const toMove = view.to_move;
  const moving = toMove ? view.colours.find((c) => c.colour === toMove.colour) : undefined;
  // the colour's corners, drawn for the eye: the coverable squares touching its own squares only at a corner
  // (or its start square before its first piece); what is legal stays the listing's to say
  const corners = new Set();
  if (moving) {
    /** @param {number} x @param {number} y */
    const own = (x, y) => x >= 0 && y >= 0 && x < width && y < height && view.board[y][x] === moving.colour;
    const first = !view.board.some((row) => row.includes(moving.colour));
    for (const key of reachable) {
      const [x, y] = key.split(",").map(Number);
      const diagonal = own(x - 1, y - 1) || own(x + 1, y - 1) || own(x - 1, y + 1) || own(x + 1, y + 1);
      const start = first && moving.start && moving.start[0] === x && moving.start[1] === y;
      if (start || (diagonal && !first)) corners.add(key);
    }
  }
  let piece = /** @type {string | null} */ (null);
  /** @type {Square[]} */
  let shape = [];
  /** @type {Square} */
  let cursor = moving && moving.start ? /** @type {Square} */ (moving.start) : [0, 0];
  let previewed = /** @type {Square[] | null} */ (null);

  const status = element("p", { class: "blokus-status", "aria-live": "polite" });
  const grid = element("div", { class: "blokus-grid", role: "grid", "aria-label": t("Board, {width} by {height}", { width, height }), style: `--columns: ${width}` });
  /** @type {HTMLElement[]} */
  const cells = [];
  for (let y = 0; y < height; y++) {
    const row = element("div", { role: "row", class: "blokus-row" });
    for (let x = 0; x < width; x++) {
      const colour = view.board[y][x];
      const cell = element("div", { role: "gridcell", class: "blokus-cell", tabindex: "-1", "data-x": String(x), "data-y": String(y) },
        colour ? colourWord(colour).slice(0, 1).toUpperCase() : "");
      if (colour) {
        cell.style.background = COLOURS[colour] || "#888";
        cell.classList.add("taken");
      }
      const reach = !colour && reachable.has(`${x},${y}`);
      const corner = reach && corners.has(`${x},${y}`);
      if (reach) cell.classList.add(corner ? "corner" : "reach");
      const what = colour ? colourWord(colour) : t("empty");
      cell.setAttribute("aria-label", corner ? t("{x}, {y}: {what}, a corner of yours: a legal placement can start here", { x, y, what })
        : reach ? t("{x}, {y}: {what}, a legal placement can cover it", { x, y, what }) : t("{x}, {y}: {what}", { x, y, what }));
      cell.addEventListener("pointerenter", (event) => event.pointerType !== "touch" && point([x, y]));
      cell.addEventListener("click", (event) => {
        point([x, y]);
        // a touch shows where (Place here confirms); a mouse, which previewed on the way, places
        if (/** @type {PointerEvent} */ (event).pointerType !== "touch") place();
      });
      row.append(cell);
      cells.push(cell);
    }
    grid.append(row);
  }
  grid.addEventListener("keydown", keys);
  grid.addEventListener("pointerleave", (event) => event.pointerType !== "touch" && clear());

  const tray = element("div", { class: "blokus-tray", role: "group", "aria-label": t("Your pieces") });
  /** @type {string[]} */
  const left = moving ? moving.pieces_left : [];
  for (const name of left) {
    const can = shapes.has(name);
    const button = element("button", { type: "button", "data-piece": name, "aria-pressed": "false" }, name);
    if (can) button.prepend(miniature(/** @type {Square[]} */ (shapes.get(name)), moving ? moving.colour : "blue"));
    else {
      button.setAttribute("aria-disabled", "true");
      button.title = t("no legal placement now");
    }
    button.addEventListener("click", () => can && choose(name));
    tray.append(button);
  }
  const rotate = element("button", { type: "button", id: "rotate" }, t("Rotate (R)"));
  const flip = element("button", { type: "button", id: "flip" }, t("Flip (F)"));
  /** @typedef {(square: Square) => Square} Turn */
  rotate.addEventListener("click", () => turn((c) => [-c[1], c[0]]));
  flip.addEventListener("click", () => turn((c) => [-c[0], c[1]]));
  const confirm = /** @type {HTMLButtonElement} */ (element("button", { type: "button", id: "place-here", disabled: "" }, t("Place here (Enter)")));
  confirm.addEventListener("click", () => place());
  const tools = element("div", { class: "blokus-tools" }, rotate, flip, confirm);
  const legend = element("ul", { class: "blokus-legend" }, ...view.colours.map((c) => element("li", { "data-colour": c.colour },
    element("span", { class: "swatch", style: `background: ${COLOURS[c.colour] || "#888"}` }, colourWord(c.colour).slice(0, 1).toUpperCase()),
    " ", c.seat === null || c.seat === undefined
      ? t("{colour}: {squares} squares left", { colour: colourWord(c.colour), squares: c.squares_left })
      : t("{colour} (seat {seat}): {squares} squares left", { colour: colourWord(c.colour), seat: c.seat, squares: c.squares_left }),
    c.out ? t(", out") : "",
    // the colour to move said in words and marked, not told by the tray's colour alone (a seat of the
    // two-player game plays two colours in turn)
    toMove && toMove.colour === c.colour ? t(" ▶ to move") : "")));
  root.dataset.version = String(match.version);
  root.replaceChildren(...(match.mine && legal.size ? [tray, tools] : []), status, grid, legend);
  cells[cursor[1] * width + cursor[0]].tabIndex = 0;
  status.textContent = match.mine && legal.size
    ? t("Choose a piece from the tray, then point at the board (or use the arrow keys) to see where it fits.")
    : "";

  /** @param {Square[]} squares @param {string} colour */
  function miniature(squares, colour) {
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    const w = Math.max(...squares.map((c) => c[0])) + 1, h = Math.max(...squares.map((c) => c[1])) + 1;
    svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("width", String(w * 8));
    svg.setAttribute("height", String(h * 8));
    for (const [x, y] of squares) {
      const r = document.createElementNS(ns, "rect");
      r.setAttribute("x", String(x)); r.setAttribute("y", String(y)); r.setAttribute("width", "0.9"); r.setAttribute("height", "0.9");
      r.setAttribute("fill", COLOURS[colour] || "#888");
      svg.append(r);
    }
    return svg;
  }

  /** @param {string} name */
  function choose(name) {
    piece = name;
    shape = /** @type {Square[]} */ (shapes.get(name));
    for (const b of tray.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.getAttribute("data-piece") === name));
    status.textContent = t("{piece} chosen. Point at the board, or use the arrow keys there; R rotates, F flips.", { piece: name });
    cells[cursor[1] * width + cursor[0]].focus();
    point(cursor);
  }

  /** @param {Turn} how */
  function turn(how) {
    if (!piece) return;
    shape = normalised(shape.map((c) => /** @type {Square} */ (how(c))));
    point(cursor);
  }

  function clear() {
    for (const c of cells) c.classList.remove("preview", "legal", "illegal");
    previewed = null;
    confirm.disabled = true;
  }

  /** @param {Square} at */
  function point(at) {
    cells[cursor[1] * width + cursor[0]].tabIndex = -1;
    cursor = at;
    cells[at[1] * width + at[0]].tabIndex = 0;
    clear();
    if (!piece) return;
    const [hx, hy] = handle(shape);
    const placed = shape.map(([x, y]) => /** @type {Square} */ ([x - hx + at[0], y - hy + at[1]]));
    const inside = placed.every(([x, y]) => x >= 0 && y >= 0 && x < width && y < height);
    const index = inside ? legal.get(keyOf(placed)) : undefined;
    const ok = index !== undefined;
    for (const [x, y] of placed) {
      if (x < 0 || y < 0 || x >= width || y >= height) continue;
      cells[y * width + x].classList.add("preview", ok ? "legal" : "illegal");
    }
    previewed = placed;
    confirm.disabled = !ok;
    status.textContent = ok
      ? t("{placement}: legal. Click, or press Enter, to place it.", { placement: match.texts[/** @type {number} */ (index)] || piece || "" })
      : t("{piece} at {x}, {y}: not legal here.", { piece: piece || "", x: at[0], y: at[1] });
  }

  function place() {
    if (!previewed) return;
    const index = legal.get(keyOf(previewed));
    if (index === undefined) {
      status.textContent = t("{piece} cannot be placed there: choose another square, or rotate or flip it.", { piece: piece || "" });
      return;
    }
    match.play(index);
  }

  /** @param {KeyboardEvent} event */
  function keys(event) {
    /** @type {Record<string, Square>} */
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (event.key in moves) {
      const [dx, dy] = moves[event.key];
      const to = /** @type {Square} */ ([Math.min(width - 1, Math.max(0, cursor[0] + dx)), Math.min(height - 1, Math.max(0, cursor[1] + dy))]);
      point(to);
      cells[to[1] * width + to[0]].focus();
    } else if (event.key === "r" || event.key === "R") turn((c) => [-c[1], c[0]]);
    else if (event.key === "f" || event.key === "F") turn((c) => [-c[0], c[1]]);
    else if (event.key === "Enter" || event.key === " ") place();
    else return;
    event.preventDefault();
  }
}
