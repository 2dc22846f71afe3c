// Runs a program of this folder, compiled to JavaScript, against a server (tests/test_generated_client.py):
//   node --experimental-websocket run.mjs every.js BASE_URL PLATFORM_KEY
// Its everyOperation is given the way to open the moves socket: Node's WebSocket (undici's, behind a flag in
// Node 20) takes the seat's token in the Authorization header the socket asks for, which the standard
// WebSocket (a browser's, and so the DOM's type the programs are written against) cannot send.
import { pathToFileURL } from "node:url";

const [program, base, key] = process.argv.slice(2);
const { everyOperation } = await import(pathToFileURL(program).href);
await everyOperation(base, key, (url, token) => new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } }));
