// The seats this browser holds: match id -> seat token, in this origin's localStorage only, so that a
// person who closes the tab finds their matches again. Nothing here is ever sent but to this server.
const KEY = "matchlog.seats";

/** @returns {Record<string, string>} */
export function held() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}");
  } catch {
    return {};
  }
}

/** @param {string} matchId @param {string} token */
export function remember(matchId, token) {
  localStorage.setItem(KEY, JSON.stringify({ ...held(), [matchId]: token }));
}

/** @param {string} matchId @returns {string | null} */
export function remembered(matchId) {
  return held()[matchId] || null;
}

// The creator token of a match made from this browser (it may abort the match), kept apart from the seats.
const CREATED = "matchlog.created";

/** @param {string} matchId @param {string} token */
export function rememberCreated(matchId, token) {
  localStorage.setItem(CREATED, JSON.stringify({ ...createdHeld(), [matchId]: token }));
}

/** @param {string} matchId @returns {string | null} */
export function createdToken(matchId) {
  return createdHeld()[matchId] || null;
}

/** @returns {Record<string, string>} */
function createdHeld() {
  try {
    return JSON.parse(localStorage.getItem(CREATED) || "{}");
  } catch {
    return {};
  }
}
