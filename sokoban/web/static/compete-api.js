// The server's API for players, scores, the daily challenge and races (docs/web.md, "Players,
// scores, daily, races"): one function per endpoint. A signed-in player's requests carry the
// token as a Bearer header; errors come back as api.js's ApiError with the server's reason
// (and, for a refused solution, the failing step in `body.step`).

import { ApiError, player, request } from "./api.js";

// The signed-in player is kept by api.js (the solver's routes are signed too).
export { player, savePlayer } from "./api.js";

function call(method, path, body, { auth = false } = {}) {
  const me = player();
  if (auth && !me) return Promise.reject(new ApiError("sign in with a name first", 401, null));
  return request(method, path, body, auth ? { Authorization: `Bearer ${me.token}` } : {});
}

const q = encodeURIComponent;

// Players
export const register = (name) => call("POST", "/api/players", { name });
export const me = () => call("GET", "/api/me", undefined, { auth: true });
export const transfer = () => call("POST", "/api/me/transfer", undefined, { auth: true });
export const claim = (code) => call("POST", "/api/players/claim", { code });
/** Sign in again with the name and the recovery code sign-up gave (a new token). */
export const recover = (name, recovery) => call("POST", "/api/players/recover", { name, recovery });
export const progress = () => call("GET", "/api/me/progress", undefined, { auth: true });
export const mergeProgress = (solutions) => call("POST", "/api/me/progress", { solutions }, { auth: true });

// Scores
/**
 * Submit a solution; `seconds` (how long it took) only paces the ghost of this solution;
 * `assisted` (the solver helped: hint, solve or rewind) keeps it off the boards, and is sent
 * only when true.
 */
export function submit(levelId, lurd, seconds = null, assisted = false) {
  const body = { level_id: levelId, lurd };
  if (seconds !== null) body.seconds = Math.round(seconds * 10) / 10;
  if (assisted) body.assisted = true;
  return call("POST", "/api/scores", body, { auth: true });
}
/** A leaderboard; signed in, the server adds the player's own entry as `me`. */
export function leaderboard(levelId, board, limit = 10) {
  return call("GET", `/api/leaderboard?level=${q(levelId)}&board=${q(board)}&limit=${limit}`, undefined, { auth: Boolean(player()) });
}

// Daily
export const daily = (date = null) => call("GET", date ? `/api/daily/${q(date)}` : "/api/daily");
export const dailyArchive = () => call("GET", "/api/daily/archive");

// Races
export const createRace = (options) => call("POST", "/api/races", options, { auth: true });
export const race = (code) => call("GET", `/api/races/${q(code)}`, undefined, { auth: Boolean(player()) });
export const joinRace = (code) => call("POST", `/api/races/${q(code)}/join`, undefined, { auth: true });
export const startRace = (code) => call("POST", `/api/races/${q(code)}/start`, undefined, { auth: true });
export const ghost = (levelId, source) =>
  call("GET", `/api/ghost?level=${q(levelId)}&source=${q(source)}`, undefined, { auth: Boolean(player()) });

/**
 * The race's live socket (same host). The token goes as the first message, not in the URL
 * (URLs end up in logs); without one the socket only watches.
 */
export function raceSocket(code) {
  const me = player();
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/races/${q(code)}/ws`);
  if (me) socket.addEventListener("open", () => socket.send(JSON.stringify({ type: "auth", token: me.token })));
  return socket;
}
