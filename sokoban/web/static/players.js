// The player: a display name (no password; the server's token kept in this browser), the
// "move to another device" code, and the merge of this browser's progress with the server's
// on sign-in. Playing without a name stays possible: progress then stays local.

import * as R from "./rules.js";
import * as api from "./api.js";
import * as capi from "./compete-api.js";
import * as store from "./progress.js";
import { $, el, announce, copyText } from "./ui.js";

const IDS = "sokoban:level-ids";

/** Level ids by board key ({key: "builtin/3"}): how local progress finds its server level. */
function ids() {
  try {
    return JSON.parse(localStorage.getItem(IDS) || "{}") || {};
  } catch (error) {
    return {};
  }
}

/** Remember which server level a board is (called whenever one is opened). */
export function rememberLevel(key, levelId) {
  const all = ids();
  if (all[key] === levelId) return;
  all[key] = levelId;
  try { localStorage.setItem(IDS, JSON.stringify(all)); } catch (error) { /* unsaved */ }
}

export function levelIdOf(key) {
  return ids()[key] || null;
}

export function keyOfLevelId(levelId) {
  for (const [key, id] of Object.entries(ids())) if (id === levelId) return key;
  return null;
}

function keyOfJson(json) {
  let level;
  try {
    level = R.levelFromJson(json);
  } catch (error) {
    level = R.parseBoard(json.xsb);
  }
  return store.levelKey(R.formatBoard(level));
}

/** Learn the ids of the served collections' levels (for progress made before ids were kept). */
async function learnServedIds() {
  for (const c of await api.collections()) {
    if (!c.count) continue;
    const listing = await api.collection(c.id, 0, 500);
    for (const json of listing.levels) rememberLevel(keyOfJson(json), json.id || `${c.id}/${json.index}`);
  }
}

/**
 * Merge this browser's best solutions into the server's and the server's into this browser's;
 * a solution the solver helped with is sent as assisted (kept off the boards).
 * Returns {sent, refused, received}.
 */
export async function mergeProgress() {
  const local = store.allBest();
  if (Object.keys(local).some((key) => !levelIdOf(key))) {
    try { await learnServedIds(); } catch (error) { /* merge what is known */ }
  }
  const solutions = [];
  for (const [key, best] of Object.entries(local)) {
    const levelId = levelIdOf(key);
    if (!levelId) continue;
    // The same solution may be both bests; it was assisted if either record says so.
    const sent = new Map();
    for (const entry of [best.moves, best.pushes]) {
      if (entry && entry.lurd) sent.set(entry.lurd, sent.get(entry.lurd) || Boolean(entry.assisted));
    }
    for (const [lurd, assisted] of sent) {
      solutions.push(assisted ? { level_id: levelId, lurd, assisted } : { level_id: levelId, lurd });
    }
  }
  let refused = 0;
  let server;
  if (solutions.length) {
    const answer = await capi.mergeProgress(solutions.slice(0, 500));
    refused = Array.isArray(answer?.refused) ? answer.refused.length : Number(answer?.refused || 0);
    server = answer?.levels;
  }
  if (!server) server = (await capi.progress()).levels || {};
  let received = 0;
  const unknown = Object.keys(server).filter((id) => !keyOfLevelId(id));
  for (const id of unknown) {
    // A level solved on another device: its board gives the key local progress uses.
    try {
      const json = id.startsWith("daily/") ? (await capi.daily(id.slice(6))).level
        : await api.level(id.slice(0, id.lastIndexOf("/")), id.slice(id.lastIndexOf("/") + 1));
      rememberLevel(keyOfJson(json), id);
    } catch (error) { /* a level this server no longer serves */ }
  }
  for (const [id, boards] of Object.entries(server)) {
    const key = keyOfLevelId(id);
    if (!key) continue;
    for (const entry of [boards.moves, boards.pushes]) {
      if (!entry || !entry.lurd) continue;
      const r = store.recordSolution(key, entry.moves, entry.pushes, entry.lurd, Boolean(entry.assisted));
      if (r.newMoves || r.newPushes) received += 1;
    }
  }
  return { sent: solutions.length, refused, received };
}

// --- the header link and the player page -------------------------------------------------------

export function showLink() {
  const me = capi.player();
  const link = $("player-link");
  link.textContent = me ? me.name : "Sign in";
  link.title = me ? "Your player page" : "Pick a name (optional)";
}

function message(text) {
  $("player-message").textContent = text;
  if (text) announce(text);
}

/** Keep the new sign-in; returns the merge of progress, which goes on in the background. */
function signedIn(value, how) {
  capi.savePlayer(value);
  showLink();
  message(`${how} as ${value.name}. Merging this browser's progress with the server's...`);
  showPage(false);
  return mergeProgress().then((r) => {
    message(`${how} as ${value.name}. Progress merged: ${r.sent} solutions sent`
      + `${r.refused ? ` (${r.refused} refused)` : ""}, ${r.received} new best${r.received === 1 ? "" : "s"} received.`);
    showPage(false);
  }, (error) => {
    message(`${how} as ${value.name}; the progress could not be merged: ${error.message}`);
  });
}

/** Show the recovery code sign-up gave, once: it is never asked for again. */
function showRecovery(value) {
  if (!value.recovery) return;
  $("recovery-name").textContent = value.name;
  $("recovery-code").textContent = value.recovery;
  $("recovery-copied").textContent = "";
  const dialog = $("recovery-dialog");
  if (!dialog.open) dialog.showModal();
}

/** Pick a name (register); returns the player or throws ApiError (409 when taken). */
export async function register(name) {
  const value = await capi.register(name.trim());
  signedIn(value, "Signed in"); // a race may be waiting: the merge need not
  showRecovery(value);
  return value;
}

export async function showPage(clear = true) {
  document.title = "Player - Sokoban";
  if (clear) message("");
  const me = capi.player();
  $("player-out").hidden = Boolean(me);
  $("player-in").hidden = !me;
  $("transfer-out").hidden = true;
  if (!me) return;
  $("player-shown").textContent = me.name;
  const stats = $("player-stats");
  stats.replaceChildren();
  try {
    const info = await capi.me();
    for (const [label, value] of [["Levels solved", info.solved], ["Daily streak", info.streak], ["Best streak", info.best_streak]]) {
      stats.append(el("dt", { text: label }), el("dd", { text: String(value ?? 0) }));
    }
  } catch (error) {
    if (error.status === 401) {
      message("This browser's sign-in is no longer known to the server: pick a name again.");
      capi.savePlayer(null);
      showLink();
      $("player-out").hidden = false;
      $("player-in").hidden = true;
    } else {
      message(`Cannot read your player: ${error.message}`);
    }
  }
}

export function setup() {
  showLink();
  $("player-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const name = $("player-name").value.trim();
    if (!name) return;
    try {
      await register(name);
    } catch (error) {
      message(error.status === 409 ? `The name "${name}" is taken: pick another.` : `Cannot pick that name: ${error.message}`);
    }
  });
  $("claim-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const code = $("claim-code").value.trim();
    if (!code) return;
    try {
      await signedIn(await capi.claim(code), "Moved here");
    } catch (error) {
      message(`The code was not accepted: ${error.message}`);
    }
  });
  $("recover-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const name = $("recover-name").value.trim();
    const code = $("recover-code").value.trim();
    if (!name || !code) return;
    try {
      await signedIn(await capi.recover(name, code), "Recovered");
    } catch (error) {
      message(error.status === 404 ? "No player has that name and recovery code: check both."
        : `The name could not be recovered: ${error.message}`);
    }
  });
  $("recovery-copy").addEventListener("click", async () => {
    const ok = await copyText($("recovery-code").textContent);
    const text = ok ? "Copied: keep it somewhere safe." : "Copying is not allowed here: select the code and copy it, or write it down.";
    $("recovery-copied").textContent = text;
    announce(text);
  });
  $("transfer").addEventListener("click", async () => {
    try {
      const t = await capi.transfer();
      $("transfer-code").textContent = t.code;
      $("transfer-expires").textContent = new Date(t.expires_at).toLocaleTimeString();
      $("transfer-out").hidden = false;
      announce(`Transfer code ${t.code}`);
    } catch (error) {
      message(`No code: ${error.message}`);
    }
  });
  // Signing out forgets the token, the only key to the name: ask first.
  $("sign-out").addEventListener("click", () => {
    const me = capi.player();
    $("sign-out-name").textContent = me ? me.name : "";
    $("sign-out-dialog").showModal();
  });
  $("sign-out-dialog").addEventListener("close", () => {
    if ($("sign-out-dialog").returnValue !== "sign-out") return;
    capi.savePlayer(null);
    showLink();
    showPage();
    message("Signed out of this browser. Your local progress stays here; a code from another device, or your recovery code, signs you in again.");
  });
}
