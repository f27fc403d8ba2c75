// The server's JSON API (docs/web.md, /docs): one function per endpoint. Errors come back as
// ApiError with the server's one-line reason. The signed-in player (its token) is kept here
// too: the solver's routes are signed with it, so the server knows whom it helped, and so
// are the collections (the server lists the player's own levels as "mine") and a save.

export class ApiError extends Error {
  /** `retryAfter`: the seconds a 503 or 429 asks to wait (its Retry-After header), or null. */
  constructor(message, status, body, retryAfter = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
    this.retryAfter = retryAfter;
  }
}

/** One JSON request: `extra` headers (a Bearer token), the answer's JSON, or an ApiError
 * with the server's one-line reason. Shared with compete-api.js. */
export async function request(method, path, body, extra = {}) {
  const init = { method, headers: { Accept: "application/json", ...extra } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError("the server cannot be reached", 0, null);
  }
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    let reason = `${response.status} ${response.statusText}`;
    if (data && typeof data.detail === "string") reason = data.detail;
    else if (data && Array.isArray(data.detail)) {
      reason = data.detail.map((d) => (typeof d === "string" ? d : d.msg || JSON.stringify(d))).join("; ");
    }
    if (response.status === 503) reason = `the solver is busy, try again soon (${reason})`;
    if (response.status === 429) reason = `too many requests, slow down (${reason})`;
    const wait = Number.parseInt(response.headers.get("Retry-After") || "", 10);
    throw new ApiError(reason, response.status, data, Number.isFinite(wait) && wait >= 0 ? wait : null);
  }
  return data;
}

const call = (method, path, body) => request(method, path, body);

const PLAYER = "sokoban:player";

/** The signed-in player kept in this browser: {id, name, token}, or null. */
export function player() {
  try {
    const value = JSON.parse(localStorage.getItem(PLAYER) || "null");
    return value && typeof value.token === "string" ? value : null;
  } catch (error) {
    return null;
  }
}

export function savePlayer(value) {
  try {
    if (value) localStorage.setItem(PLAYER, JSON.stringify({ id: value.id, name: value.name, token: value.token }));
    else localStorage.removeItem(PLAYER);
  } catch (error) {
    // Storage disabled: the player stays signed in for this page only.
  }
}

/**
 * A request signed with the player's token when there is one: for the solver's help (the
 * server then keeps the player's later score on this board as assisted) and the collections
 * (with the player's own levels in "mine"). A token the server no longer knows (401) changes
 * nothing for these: asked again unsigned.
 */
async function maybeSigned(method, path, body) {
  const me = player();
  if (!me) return request(method, path, body);
  try {
    return await request(method, path, body, { Authorization: `Bearer ${me.token}` });
  } catch (error) {
    if (error.status !== 401) throw error;
    return request(method, path, body);
  }
}

/** The collections; "mine" counts the signed-in player's levels (none signed out). */
export const collections = () => maybeSigned("GET", "/api/collections");
/** A page of a collection; "mine" is the signed-in player's levels, each by its number. */
export const collection = (cid, offset = 0, limit = 500) =>
  maybeSigned("GET", `/api/collections/${encodeURIComponent(cid)}?offset=${offset}&limit=${limit}`);
export const level = (cid, index) =>
  call("GET", `/api/levels/${encodeURIComponent(cid)}/${encodeURIComponent(index)}`);
export const solve = (level, method = "fast", timeLimit = 5) =>
  maybeSigned("POST", "/api/solve", { level, method, time_limit: timeLimit });
export const check = (level) => call("POST", "/api/check", { level });
export const rewind = (level, lurd, timeLimit = 5) =>
  maybeSigned("POST", "/api/rewind", { level, lurd, time_limit: timeLimit });
export const verify = (level, solution) => call("POST", "/api/verify", { level, solution });
export const parse = (text) => call("POST", "/api/parse", { text });
/** Save a level as the signed-in player's (an ApiError 401 signed out: sign in to save). */
export function save(level, title) {
  const me = player();
  if (!me) return Promise.reject(new ApiError("sign in to save levels", 401, null));
  return request("POST", "/api/levels", { level, title }, { Authorization: `Bearer ${me.token}` });
}
export const methods = () => call("GET", "/api/methods");
