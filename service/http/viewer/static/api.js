// The public API, as the viewer reads it: the same calls any third-party client makes.

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `the server answered ${status}`);
    this.status = status;
    this.reason = body && body.error;
  }
}

export async function getJson(path, headers = {}) {
  const response = await fetch(path, { headers: { Accept: "application/json", ...headers } });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

export async function postJson(path, body, headers = {}) {
  const json = body === undefined ? {} : { "Content-Type": "application/json" };
  const response = await fetch(path, {
    method: "POST",
    headers: { Accept: "application/json", ...json, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, answer);
  return answer;
}

export async function getText(path, accept, headers = {}) {
  const response = await fetch(path, { headers: { Accept: accept, ...headers } });
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
  return response.text();
}

// Server-Sent Events read with fetch, not EventSource: EventSource cannot send Authorization, and a
// seat's token must never travel in a URL. Calls onEntry(entry) for each entry; resolves at the end.
export async function followLog(path, headers, onEntry, signal) {
  const response = await fetch(path, { headers: { Accept: "text/event-stream", ...headers }, signal });
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = block.split("\n");
      const kind = lines.find((l) => l.startsWith("event: "));
      const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
      if (kind === "event: end") return;
      if (data) onEntry(JSON.parse(data));
    }
  }
}

export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export function players(match) {
  return match.players.map((p) => (p.open ? `(open seat ${p.seat})` : p.name)).join(", ");
}

export function showProblem(error) {
  const problem = document.getElementById("problem");
  problem.textContent = error.reason ? `${error.message} (${error.reason})` : String(error.message || error);
  problem.hidden = false;
}
