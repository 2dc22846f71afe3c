// boardgame.io's own server (koa + socket.io, one Node process), serving the peer bench's game on
// the Redis storage above, or on its default in-memory storage with `--memory`.
// Usage: node server.js PORT REDIS_URL PREFIX [--memory]
'use strict';

const { Server } = require('boardgame.io/server');
const { FiveInARow } = require('./game');
const { RedisStorage } = require('./storage');

const [port, url, prefix, memory] = process.argv.slice(2);
const db = memory === '--memory' ? undefined : new RedisStorage({ url, prefix });
const server = Server({ games: [FiveInARow], db, origins: [] });
// `run` listens on every interface; the bench talks over loopback only, so listen there.
const listen = server.app.listen;
server.app.listen = (listenPort, callback) => listen(listenPort, '127.0.0.1', callback);
server.run({ port: Number(port), callback: () => console.log(`ready ${port}`) });
