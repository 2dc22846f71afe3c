// A Redis storage for boardgame.io's server (its `Async` storage interface), written for the peer
// bench: every match's state, initial state and metadata are JSON strings and its log a Redis list,
// under one key prefix. `setState` writes the state and appends the move's log entries in one
// MULTI, so with `appendfsync always` the promise resolves only once Redis has synced both.
'use strict';

const { Async } = require('boardgame.io/internal');
const { createClient } = require('redis');

class RedisStorage extends Async {
  constructor({ url, prefix }) {
    super();
    this.client = createClient({ url });
    this.prefix = prefix;
  }

  key(matchID, part) {
    return `${this.prefix}:m:${matchID}:${part}`;
  }

  async connect() {
    await this.client.connect();
  }

  async createMatch(matchID, { initialState, metadata }) {
    await this.client
      .multi()
      .set(this.key(matchID, 'initial'), JSON.stringify(initialState))
      .set(this.key(matchID, 'state'), JSON.stringify(initialState))
      .set(this.key(matchID, 'metadata'), JSON.stringify(metadata))
      .sAdd(`${this.prefix}:matches`, matchID)
      .exec();
  }

  async setState(matchID, state, deltalog) {
    const writes = this.client.multi().set(this.key(matchID, 'state'), JSON.stringify(state));
    if (deltalog && deltalog.length > 0) {
      writes.rPush(
        this.key(matchID, 'log'),
        deltalog.map((entry) => JSON.stringify(entry)),
      );
    }
    await writes.exec();
  }

  async setMetadata(matchID, metadata) {
    await this.client.set(this.key(matchID, 'metadata'), JSON.stringify(metadata));
  }

  async fetch(matchID, opts) {
    const parts = ['state', 'metadata', 'initialState'].filter((part) => opts[part]);
    const [values, log] = await Promise.all([
      parts.length
        ? this.client.mGet(parts.map((p) => this.key(matchID, p === 'initialState' ? 'initial' : p)))
        : [],
      opts.log ? this.client.lRange(this.key(matchID, 'log'), 0, -1) : null,
    ]);
    const result = {};
    parts.forEach((part, i) => {
      result[part] = values[i] === null ? undefined : JSON.parse(values[i]);
    });
    if (opts.log) result.log = log.map((entry) => JSON.parse(entry));
    return result;
  }

  async wipe(matchID) {
    await this.client
      .multi()
      .del(['initial', 'state', 'metadata', 'log'].map((p) => this.key(matchID, p)))
      .sRem(`${this.prefix}:matches`, matchID)
      .exec();
  }

  async listMatches(opts = {}) {
    const ids = await this.client.sMembers(`${this.prefix}:matches`);
    if (!opts.gameName && !opts.where) return ids;
    const listed = [];
    for (const id of ids) {
      const { metadata } = await this.fetch(id, { metadata: true });
      if (!metadata) continue;
      if (opts.gameName && metadata.gameName !== opts.gameName) continue;
      const where = opts.where || {};
      const over = metadata.gameover !== undefined && metadata.gameover !== null;
      if (where.isGameover !== undefined && over !== where.isGameover) continue;
      if (where.updatedBefore !== undefined && metadata.updatedAt >= where.updatedBefore) continue;
      if (where.updatedAfter !== undefined && metadata.updatedAt <= where.updatedAfter) continue;
      listed.push(id);
    }
    return listed;
  }
}

module.exports = { RedisStorage };
