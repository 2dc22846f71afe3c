// Five in a row for four players on an 8 x 8 grid: the simple boardgame.io game the peer bench
// serves (a tic-tac-toe for four). Each turn a player claims one free cell; the game ends when
// someone holds five in a line or the grid is full (62 moves on average with random claims, about
// what the bench's random four-player Blokus games last on matchlog's side).
'use strict';

const { INVALID_MOVE } = require('boardgame.io/core');

const SIDE = 8;
const CELLS = SIDE * SIDE;
const LINE = 5;
const DIRECTIONS = [
  [0, 1],
  [1, 0],
  [1, 1],
  [1, -1],
];

// Does the claim at `cell` complete a line of LINE for its owner? Only lines through the last
// claim can be new, so the check walks out from it in each direction.
function completesLine(cells, cell) {
  const owner = cells[cell];
  const row = Math.floor(cell / SIDE);
  const col = cell % SIDE;
  return DIRECTIONS.some(([dr, dc]) => {
    let run = 1;
    for (const sign of [1, -1]) {
      let r = row + sign * dr;
      let c = col + sign * dc;
      while (r >= 0 && r < SIDE && c >= 0 && c < SIDE && cells[r * SIDE + c] === owner) {
        run += 1;
        r += sign * dr;
        c += sign * dc;
      }
    }
    return run >= LINE;
  });
}

const FiveInARow = {
  name: 'five-in-a-row',
  minPlayers: 4,
  maxPlayers: 4,
  setup: () => ({ cells: Array(CELLS).fill(null), last: null }),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    claim: ({ G, playerID }, cell) => {
      if (!Number.isInteger(cell) || cell < 0 || cell >= CELLS || G.cells[cell] !== null) {
        return INVALID_MOVE;
      }
      G.cells[cell] = playerID;
      G.last = cell;
    },
  },
  endIf: ({ G, ctx }) => {
    if (G.last !== null && completesLine(G.cells, G.last)) return { winner: ctx.currentPlayer };
    if (G.cells.every((c) => c !== null)) return { draw: true };
    return undefined;
  },
};

module.exports = { FiveInARow, CELLS };
