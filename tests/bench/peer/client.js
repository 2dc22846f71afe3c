// One client process of the peer bench, driving boardgame.io's server the way tests/bench/api.py
// drives matchlog's moves socket: it plays its own matches one at a time, one socket.io connection
// per seat (websocket transport), one move in flight; a move counts when the mover's socket
// receives the state that follows it. Claims are random free cells.
//
// Usage: node client.js '{"port":..., "index":..., "precreate":..., "warmup":s, "duration":s}'
// It creates its matches (lobby API: create, then join each seat for its credentials), prints
// "ready", waits for a line "go <epoch seconds>" on stdin, plays until the window closes, and
// prints one JSON line of what it measured (times in seconds since the epoch).
'use strict';

const { performance } = require('node:perf_hooks');
const readline = require('node:readline');
const { io } = require('socket.io-client');
const { FiveInARow, CELLS } = require('./game');

const config = JSON.parse(process.argv[2]);
const base = `http://127.0.0.1:${config.port}`;
const GAME = FiveInARow.name;
const SEATS = 4;
const MOVE_TIMEOUT_MS = 10000; // the server refuses a move by not answering: this is the refusal

const now = () => (performance.timeOrigin + performance.now()) / 1000;

function random(seed) {
  // mulberry32: a seeded generator, so a client plays the same claims run to run
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rng = random(1000 + config.index);

async function post(path, body) {
  const response = await fetch(base + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}`);
  return response.json();
}

async function createMatch() {
  const { matchID } = await post(`/games/${GAME}/create`, { numPlayers: SEATS });
  const credentials = [];
  for (let seat = 0; seat < SEATS; seat++) {
    const joined = await post(`/games/${GAME}/${matchID}/join`, {
      playerID: String(seat),
      playerName: `p${seat}`,
    });
    credentials.push(joined.playerCredentials);
  }
  return { matchID, credentials };
}

// A seat's connection: synced to the match, keeping the newest state it was sent.
function openSeat(matchID, seat, credentials) {
  return new Promise((resolve, reject) => {
    const socket = io(`${base}/${GAME}`, {
      transports: ['websocket'],
      forceNew: true, // a connection of its own per seat, as matchlog's bench opens
      reconnection: false,
    });
    const holder = { socket, state: null, waiter: null };
    const take = (state) => {
      holder.state = state;
      if (holder.waiter && state._stateID > holder.waiter.after) {
        const { done } = holder.waiter;
        holder.waiter = null;
        done(state);
      }
    };
    socket.on('update', (_, state) => take(state));
    socket.on('sync', (_, syncInfo) => {
      take(syncInfo.state);
      resolve(holder);
    });
    socket.on('connect', () => socket.emit('sync', matchID, String(seat), credentials, SEATS));
    socket.on('connect_error', reject);
  });
}

function answer(holder, after) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      holder.waiter = null;
      reject(new Error(`no state after ${after} within ${MOVE_TIMEOUT_MS} ms`));
    }, MOVE_TIMEOUT_MS);
    holder.waiter = {
      after,
      done: (state) => {
        clearTimeout(timer);
        resolve(state);
      },
    };
  });
}

function freeCell(cells) {
  const free = [];
  for (let i = 0; i < CELLS; i++) if (cells[i] === null) free.push(i);
  return free[Math.floor(rng() * free.length)];
}

async function waitForGo() {
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.startsWith('go ')) {
      lines.close();
      return Number(line.slice(3));
    }
  }
  throw new Error('stdin closed before go');
}

async function main() {
  const pending = [];
  for (let i = 0; i < config.precreate; i++) pending.push(await createMatch());
  let created = pending.length;
  const createdBefore = created;
  console.log('ready');
  const start = await waitForGo();
  const windowStart = start + config.warmup;
  const windowEnd = windowStart + config.duration;
  while (now() < start) await new Promise((r) => setTimeout(r, 1));

  const latencies = [];
  const errors = {};
  const samples = [];
  let last = 0;
  let cpuAtStart = null;
  let moves = 0;
  let matches = 0; // finished, and the moves they took
  let finishedMoves = 0;
  let setup = 0; // seconds spent opening and syncing the seats' connections
  const fail = (kind, error) => {
    errors[kind] = (errors[kind] || 0) + 1;
    if (samples.length < 5) samples.push(`${kind}: ${error.message}`);
  };
  while (now() < windowEnd) {
    let match = pending.pop();
    if (!match) {
      match = await createMatch();
      created += 1;
    }
    let seats;
    const opening = now();
    try {
      seats = await Promise.all(
        match.credentials.map((c, seat) => openSeat(match.matchID, seat, c)),
      );
    } catch (error) {
      fail('connection', error);
      continue;
    }
    setup += now() - opening;
    let state = seats[0].state;
    const before = moves;
    while (state.ctx.gameover === undefined) {
      const t = now();
      if (t >= windowEnd) break;
      if (cpuAtStart === null && t >= windowStart) cpuAtStart = process.cpuUsage();
      const seat = Number(state.ctx.currentPlayer);
      const holder = seats[seat];
      const action = {
        type: 'MAKE_MOVE',
        payload: {
          type: 'claim',
          args: [freeCell(state.G.cells)],
          playerID: String(seat),
          credentials: match.credentials[seat],
        },
      };
      const begun = now();
      const answered = answer(holder, state._stateID);
      holder.socket.emit('update', action, state._stateID, match.matchID, String(seat));
      try {
        state = await answered;
      } catch (error) {
        fail('no answer', error);
        break;
      }
      const finished = now();
      moves += 1;
      if (begun >= windowStart) {
        latencies.push(finished - begun);
        last = finished;
      }
    }
    if (state.ctx.gameover !== undefined) {
      matches += 1;
      finishedMoves += moves - before;
    }
    for (const holder of seats) holder.socket.close();
  }
  const cpu = cpuAtStart === null ? { user: 0, system: 0 } : process.cpuUsage(cpuAtStart);
  console.log(
    JSON.stringify({
      index: config.index,
      latencies,
      errors,
      samples,
      last,
      window_start: windowStart,
      cpu: (cpu.user + cpu.system) / 1e6,
      created,
      created_in_run: created - createdBefore,
      moves,
      matches,
      finished_moves: finishedMoves,
      setup,
    }),
  );
  process.exit(0);
}

main().catch((error) => {
  console.log(JSON.stringify({ index: config.index, fatal: String(error && error.stack) }));
  process.exit(1);
});
