// The level browser (collections, then a collection's levels as thumbnails with solved marks
// and the player's best moves and pushes on them) and the import screen (pasted text or a
// file, read by /api/parse). "mine" is the signed-in player's own saved levels.

import * as R from "./rules.js";
import * as api from "./api.js";
import * as capi from "./compete-api.js";
import * as store from "./progress.js";
import { thumbnail } from "./board.js";
import { $, el, markFirstFrame, prefs, shareRoute, showError } from "./ui.js";

/** The list of collections, for the player it was asked for ("mine" counts theirs). */
let collectionsCache = null;

export async function collections() {
  const token = api.player()?.token || null;
  if (!collectionsCache || collectionsCache.token !== token) {
    collectionsCache = { token, list: await api.collections() };
  }
  return collectionsCache.list;
}

export function forgetCollections() {
  collectionsCache = null;
}

/**
 * The player's best of each level, from their own records: the server's (by level id, when
 * signed in) and this browser's (by board key), the better of each. {moves, pushes}: the
 * fewest moves of any solution, the fewest pushes of any; null when unsolved.
 */
function bestOf(local, server) {
  const moves = [local?.moves?.moves, server?.moves?.moves].filter(Number.isInteger);
  const pushes = [local?.pushes?.pushes, server?.pushes?.pushes].filter(Number.isInteger);
  if (!moves.length || !pushes.length) return null;
  return { moves: Math.min(...moves), pushes: Math.min(...pushes) };
}

/** The signed-in player's records on the server ({level id: {moves, pushes}}), or none. */
async function serverRecords() {
  if (!capi.player()) return {};
  try {
    return (await capi.progress()).levels || {};
  } catch (error) {
    return {}; // this browser's records still show
  }
}

/** Thumbnails are drawn when they scroll into view. */
const observer = "IntersectionObserver" in window
  ? new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      observer.unobserve(entry.target);
      drawThumb(entry.target);
    }
  }, { rootMargin: "200px" })
  : null;

const pending = new WeakMap();

function drawThumb(canvas) {
  const level = pending.get(canvas);
  if (!level) return;
  thumbnail(canvas, level, 96, prefs().theme);
  markFirstFrame();
}

function thumb(level, lazy = true) {
  const canvas = el("canvas", { class: "thumb", "aria-hidden": "true" });
  pending.set(canvas, level);
  if (observer && lazy) observer.observe(canvas);
  else drawThumb(canvas);
  return canvas;
}

function levelOf(json) {
  if (json.width === undefined) return R.parseBoard(json.xsb); // a level kept in this browser
  try {
    return R.levelFromJson(json);
  } catch (error) {
    return R.parseBoard(json.xsb);
  }
}

/**
 * The start page: Continue (the level played last, or the first built-in level, with its
 * picture), today's daily (its picture once the server has it), a race, then the collections.
 */
export async function showHome() {
  const list = $("collections");
  list.replaceChildren();
  const last = store.lastPlayed();
  // The built-in collection is always there: its first level is asked for alongside the
  // list, so that the first picture costs one round trip, not two.
  const firsts = new Map([["builtin", api.collection("builtin", 0, 1).catch(() => null)]]);
  const picture = (canvas, level) => {
    canvas.hidden = false;
    thumbnail(canvas, level, 96, prefs().theme);
    markFirstFrame();
  };
  if (last) {
    $("continue-link").setAttribute("href", last.route);
    $("continue-label").textContent = "Continue";
    $("continue-title").textContent = last.title || "your last level";
    try {
      picture($("continue-thumb"), R.parseBoard(last.rle || ""));
    } catch (error) {
      $("continue-thumb").hidden = true;
    }
  } else {
    firsts.get("builtin").then((data) => {
      const first = data && data.levels && data.levels[0];
      if (!first) return;
      $("continue-title").textContent = first.title ? `${first.title}, the first built-in level` : "the first built-in level";
      picture($("continue-thumb"), levelOf(first));
    }).catch(() => {});
  }
  capi.daily().then((day) => {
    $("daily-about").textContent = `${day.date}, ${day.band}: the same puzzle for everyone today.`;
    picture($("daily-thumb"), levelOf(day.level));
  }).catch(() => { $("daily-thumb").hidden = true; });
  let cols;
  try {
    cols = await collections();
  } catch (error) {
    showError(`Cannot list the collections: ${error.message}`);
    return;
  }
  // The player's own imported collections come after the server's.
  const own = store.importedList().map((c) => ({ id: `local:${c.id}`, title: c.title, count: c.count,
    description: "Imported into this browser." }));
  for (const c of [...cols, ...own]) {
    const item = el("li", { class: "card collection", "data-id": c.id });
    const link = el("a", { href: `#/c/${encodeURIComponent(c.id)}` });
    const pictureBox = el("span", { class: "thumb-box" });
    link.append(pictureBox, el("strong", { text: c.title || c.id }),
      el("span", { class: "muted", text: `${c.count} level${c.count === 1 ? "" : "s"}` }));
    if (c.description) link.append(el("span", { class: "description", text: c.description }));
    item.append(link);
    list.append(item);
    if (c.count > 0) {
      const first = c.id.startsWith("local:") ? Promise.resolve(localCollection(c.id)) : firsts.get(c.id) || api.collection(c.id, 0, 1);
      first.then((data) => {
        if (data && data.levels && data.levels[0]) pictureBox.append(thumb(levelOf(data.levels[0]), false));
      }).catch(() => {});
    }
  }
}

/** The route of a level of a collection (an imported one lives in this browser). */
export function levelRoute(cid, index) {
  return `#/play/${encodeURIComponent(cid)}/${index}`;
}

/** An imported collection kept in this browser, as the server lists its own. */
export function localCollection(cid) {
  const kept = cid.startsWith("local:") ? store.imported(cid.slice(6)) : null;
  if (!kept) throw new Error(`no such collection in this browser: ${cid}`);
  return {
    id: cid, title: kept.title, count: kept.levels.length,
    levels: kept.levels.map((l, i) => ({ index: i + 1, title: l.title, xsb: l.rle, solution: l.solution || null })),
  };
}

export async function showCollection(cid) {
  const list = $("levels");
  list.replaceChildren();
  $("collection-title").textContent = "";
  const local = cid.startsWith("local:");
  const records = local ? Promise.resolve({}) : serverRecords();
  let data;
  try {
    data = local ? localCollection(cid) : await api.collection(cid);
  } catch (error) {
    showError(`Cannot open the collection: ${error.message}`);
    return;
  }
  $("collection-title").textContent = data.title || data.id;
  document.title = `${data.title || data.id} - Sokoban`;
  const best = store.allBest();
  const server = await records;
  let solvedCount = 0;
  for (const json of data.levels) {
    let level;
    try {
      level = levelOf(json);
    } catch (error) {
      continue;
    }
    const key = store.levelKey(R.formatBoard(level));
    const b = bestOf(best[key], local ? null : server[json.id || `${cid}/${json.index}`]);
    if (b) solvedCount += 1;
    const label = json.title && json.title !== String(json.index)
      ? `${json.index}. ${json.title}` : `Level ${json.index}`;
    const link = el("a", { href: levelRoute(cid, json.index) });
    const picture = el("span", { class: "thumb-wrap" }, thumb(level));
    if (b) {
      // The best on the picture itself: fewest moves, fewest pushes (of any solutions).
      picture.append(el("span", {
        class: "thumb-best", "data-moves": b.moves, "data-pushes": b.pushes,
        title: "Your best: the fewest moves, the fewest pushes", text: `${b.moves}\u00a0moves \u00b7 ${b.pushes}\u00a0pushes`,
      }));
    }
    link.append(picture, el("span", { class: "name", text: label }));
    if (b) {
      link.append(el("span", { class: "solved", text: "\u2713 Solved" }));
    } else if (json.optimal) {
      link.append(el("span", { class: "muted", text: `Optimal ${json.optimal.pushes} pushes` }));
    }
    list.append(el("li", { class: b ? "card level is-solved" : "card level", "data-index": json.index }, link));
  }
  const more = data.count > data.levels.length ? ` (the first ${data.levels.length} shown)` : "";
  $("collection-summary").textContent = `${data.count} levels${more}, ${solvedCount} solved.`;
  if (cid === "mine" && !api.player()) {
    // The player's own levels need a name: say where to pick one.
    $("collection-summary").replaceChildren("Your saved levels show here once you ",
      el("a", { href: "#/player", text: "sign in" }), ": the editor saves levels for signed-in players.");
  } else if (cid === "mine" && !data.count) {
    $("collection-summary").replaceChildren("No saved levels yet: make one in the ",
      el("a", { href: "#/edit", text: "editor" }), " and save it.");
  }
}

// --- import ----------------------------------------------------------------------------------

export function setupImport() {
  $("import-file").addEventListener("change", async () => {
    const file = $("import-file").files[0];
    if (!file) return;
    if (file.size > 2_000_000) {
      showImportErrors([{ line: null, message: `${file.name} is over 2 MB: not a level file` }]);
      return;
    }
    $("import-text").value = await file.text();
    $("import-name").value = file.name.replace(/\.[^.]*$/, "");
    read();
  });
  $("import-read").addEventListener("click", read);
  $("import-keep-button").addEventListener("click", keep);
}

function showImportErrors(errors) {
  // The server's messages usually name their line already; else it is put in front.
  $("import-errors").replaceChildren(...errors.map((e) => el("li", {
    text: e.line && !e.message.includes(`line ${e.line}`) ? `Line ${e.line}: ${e.message}` : e.message,
  })));
}

/** The playable levels last read on the import screen, to keep as a collection. */
let readLevels = [];

/** Keep the levels read as the player's own collection, and open it. */
function keep() {
  if (!readLevels.length) return;
  const title = $("import-name").value.trim() || "Imported levels";
  const id = store.saveImported(title, readLevels);
  if (!id) {
    showImportErrors([{ line: null, message: "This browser's storage is full: the levels were not kept." }]);
    return;
  }
  forgetCollections();
  location.hash = `#/c/${encodeURIComponent(`local:${id}`)}`;
}

async function read() {
  const text = $("import-text").value;
  $("import-levels").replaceChildren();
  $("import-keep").hidden = true;
  readLevels = [];
  showImportErrors([]);
  if (!text.trim()) {
    showImportErrors([{ line: null, message: "Paste some levels first." }]);
    return;
  }
  let result;
  try {
    result = await api.parse(text);
  } catch (error) {
    showImportErrors([{ line: null, message: error.message }]);
    return;
  }
  showImportErrors(result.errors || []);
  result.levels.forEach((json, i) => {
    let level;
    try {
      level = levelOf(json);
    } catch (error) {
      return;
    }
    const title = json.title || `Imported level ${i + 1}`;
    const playable = R.problems(level).length === 0;
    const item = el("li", { class: "card level" });
    item.append(thumb(level, false), el("span", { class: "name", text: title }));
    const actions = el("span", { class: "toolbar" });
    if (playable) {
      actions.append(el("a", { class: "button", href: shareRoute(level, title), text: "Play" }));
      readLevels.push({ title, rle: R.formatBoard(level, { rle: true }), solution: json.solution || null });
    }
    else item.append(el("span", { class: "muted", text: R.problems(level).join("; ") }));
    if (playable && json.solution) {
      // The level's own solution travels in the replay link.
      const route = `${shareRoute(level, title, "replay")}&lurd=${encodeURIComponent(json.solution)}`;
      actions.append(el("a", { class: "button", href: route, text: "Replay its solution" }));
    }
    actions.append(el("a", { class: "button", href: shareRoute(level, title, "edit"), text: "Edit" }));
    item.append(actions);
    $("import-levels").append(item);
  });
  $("import-keep").hidden = readLevels.length === 0;
  $("import-keep-button").textContent = `Keep ${readLevels.length === 1 ? "this level" : `these ${readLevels.length} levels`} as my collection`;
  if (!result.levels.length && !(result.errors || []).length) {
    showImportErrors([{ line: null, message: "No level found in the text." }]);
  }
}
