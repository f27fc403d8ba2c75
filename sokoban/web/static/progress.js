// What the browser keeps between visits (localStorage): settings, best scores per level
// (fewest moves, fewest pushes), and each level's history with its redo tail. Levels are
// keyed by a hash of their board, so a level keeps its scores in any collection or share URL.

const PREFIX = "sokoban:";

function read(name, fallback) {
  try {
    const text = localStorage.getItem(PREFIX + name);
    return text === null ? fallback : JSON.parse(text);
  } catch (error) {
    return fallback;
  }
}

function write(name, value) {
  try {
    localStorage.setItem(PREFIX + name, JSON.stringify(value));
  } catch (error) {
    // Storage full or disabled: play goes on, unsaved.
  }
}

/** FNV-1a of the canonical board text, as 8 hex digits. */
export function levelKey(xsb) {
  let h = 0x811c9dc5;
  for (let i = 0; i < xsb.length; i++) {
    h ^= xsb.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

const DEFAULTS = { speed: "normal", theme: "auto", speedChosen: false, sound: false };

export function settings() {
  return { ...DEFAULTS, ...read("settings", {}) };
}

export function saveSettings(value) {
  write("settings", value);
}

/**
 * Best scores of every level: {key: {moves: {moves, pushes, lurd, assisted}, pushes: {...}}};
 * `assisted` (the solver helped) is there only when true.
 */
export function allBest() {
  return read("best", {});
}

export function best(key) {
  return allBest()[key] || null;
}

/** Record a solution (`assisted`: the solver helped); returns {best, newMoves, newPushes}. */
export function recordSolution(key, moves, pushes, lurd, assisted = false) {
  const all = allBest();
  const old = all[key] || {};
  const entry = assisted ? { moves, pushes, lurd, assisted } : { moves, pushes, lurd };
  const better = (a, b, first, second) => !b || a[first] < b[first]
    || (a[first] === b[first] && a[second] < b[second]);
  const newMoves = better(entry, old.moves, "moves", "pushes");
  const newPushes = better(entry, old.pushes, "pushes", "moves");
  const value = { moves: newMoves ? entry : old.moves, pushes: newPushes ? entry : old.pushes };
  all[key] = value;
  write("best", all);
  return { best: value, newMoves, newPushes };
}

/** A level's history: {lurd (every step, redo tail included), cursor, assisted (the solver
 * helped: hint, solve or rewind)}, or null. */
export function history(key) {
  return read(`history:${key}`, null);
}

export function saveHistory(key, lurd, cursor, assisted = false) {
  if (!lurd) {
    try { localStorage.removeItem(`${PREFIX}history:${key}`); } catch (error) { /* ignore */ }
    return;
  }
  write(`history:${key}`, assisted ? { lurd, cursor, assisted } : { lurd, cursor });
}

/** The route of the level played last, for "Continue". */
export function lastPlayed() {
  return read("last", null);
}

export function saveLastPlayed(route, title, rle = null) {
  write("last", { route, title, rle });
}

// --- imported collections --------------------------------------------------------------------

/** The player's own collections, imported from files: [{id, title, count}], newest first. */
export function importedList() {
  return read("imported", []);
}

/** One imported collection: {id, title, levels: [{title, rle, solution}]}, or null. */
export function imported(id) {
  return read(`imported:${id}`, null);
}

/**
 * Keep imported levels ([{title, rle, solution}]) as a collection of the player's own; the
 * same levels again are the same collection. Returns its id, or null when storage is full.
 */
export function saveImported(title, levels) {
  const id = levelKey(levels.map((l) => l.rle).join("\n"));
  write(`imported:${id}`, { id, title, levels });
  if (!imported(id)) return null;
  const list = importedList().filter((c) => c.id !== id);
  list.unshift({ id, title, count: levels.length });
  write("imported", list);
  return id;
}
