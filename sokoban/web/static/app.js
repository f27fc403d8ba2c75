// The page module: the hash router, the global keys, and the wiring of each screen's buttons.
// Routes: #/ collections, #/c/{cid} a collection, #/play/{cid}/{index} a level,
// #/play?level=<RLE>&title= a level carried by its link, #/replay/... the same for replays,
// #/import, #/edit (or #/edit?level=<RLE>).

import * as R from "./rules.js";
import * as api from "./api.js";
import * as store from "./progress.js";
import { BINDINGS, inField } from "./input.js";
import { $, el, applyTheme, showError } from "./ui.js";
import { THEME_NAMES, onSystemTheme } from "./board.js";
import * as browse from "./browse.js";
import * as play from "./play.js";
import * as replay from "./replay.js";
import * as editor from "./editor.js";
import * as compete from "./compete.js";

const SCREENS = ["home", "collection", "play", "replay", "import", "edit", ...compete.SCREENS];

/**
 * The screens that run something (a board, timers, a socket), in one lifecycle: each opens
 * when its route is shown, `stop()` when the route changes, `keydown(e, go)` true when the
 * key was its own (each checks that its screen is the one shown).
 */
const LIVE = [play, replay, compete, editor];

function show(name) {
  for (const s of SCREENS) $(`screen-${s}`).hidden = s !== name;
  document.body.dataset.screen = name;
}

function parseHash() {
  let hash = location.hash.replace(/^#/, "") || "/";
  if (!hash.startsWith("/")) hash = "/";
  const q = hash.indexOf("?");
  const path = q < 0 ? hash : hash.slice(0, q);
  const params = new URLSearchParams(q < 0 ? "" : hash.slice(q + 1));
  return { parts: path.split("/").filter(Boolean).map(decodeURIComponent), params };
}

/** The level a route names: from the server, or carried by the link itself. */
async function routeLevel(parts, params) {
  if (params.has("level")) {
    const level = R.parseBoard(params.get("level"));
    return { level, title: params.get("title") || "Shared level", source: { kind: "share" }, json: null };
  }
  const [cid, index] = [parts[1], Number(parts[2])];
  if (!cid || !Number.isInteger(index)) throw new Error("no level in the address");
  if (cid.startsWith("local:")) {
    // A collection imported into this browser: its levels are kept here.
    const kept = browse.localCollection(cid);
    const json = kept.levels[index - 1];
    if (!json) throw new Error(`no level ${index} in ${kept.title}`);
    return {
      level: R.parseBoard(json.xsb), json: json.solution ? { solution: json.solution } : null,
      title: json.title || `Level ${index}`,
      source: { kind: "local", cid, index, count: kept.count, collectionTitle: kept.title },
    };
  }
  // The level and the list of collections (for "level n of m") are fetched side by side.
  const listed = browse.collections().catch(() => []);
  const json = await api.level(cid, index);
  let count = null;
  let collectionTitle = null;
  const c = (await listed).find((x) => x.id === cid);
  if (c) ({ count, title: collectionTitle } = c);
  let level;
  try {
    level = R.levelFromJson(json);
  } catch (error) {
    level = R.parseBoard(json.xsb);
  }
  const source = { kind: "server", cid, index: json.index, count, collectionTitle };
  if (cid === "mine") Object.assign(source, await ownPlace(json.index));
  return {
    level, json,
    title: json.title && json.title !== String(json.index) ? json.title : `Level ${json.index}`,
    source,
  };
}

/**
 * Where a saved level sits among the signed-in player's own ("mine" is theirs; a level's
 * number is its id, the same for everyone): {position, neighbours: {-1: number, 1: number}},
 * with no neighbours for a level someone else saved, opened by its link.
 */
async function ownPlace(number) {
  let own = null;
  try {
    own = api.player() ? await api.collection("mine") : null;
  } catch (error) {
    own = null;
  }
  const levels = own ? own.levels : [];
  const at = levels.findIndex((l) => l.index === number);
  if (at < 0) return { position: null, count: null, neighbours: {} };
  return {
    position: at + 1, count: own.count,
    neighbours: { [-1]: levels[at - 1]?.index ?? null, 1: levels[at + 1]?.index ?? null },
  };
}

let routing = 0;

async function route() {
  // In-page anchors (the skip link's #main) are not routes: the screen stays as it is.
  if (routing && location.hash && !location.hash.startsWith("#/")) return;
  const seq = ++routing;
  showError("");
  for (const screen of LIVE) screen.stop();
  for (const d of document.querySelectorAll("dialog[open]")) d.close();
  const { parts, params } = parseHash();
  const screen = parts[0] || "";
  try {
    if (screen === "" || screen === "home") {
      show("home");
      document.title = "Sokoban";
      await browse.showHome();
    } else if (screen === "c") {
      show("collection");
      await browse.showCollection(parts[1]);
    } else if (screen === "play") {
      const r = await routeLevel(parts, params);
      if (seq !== routing) return;
      show("play");
      play.open(r.level, r.title, r.source, r.json);
    } else if (screen === "replay") {
      const r = await routeLevel(parts, params);
      if (seq !== routing) return;
      show("replay");
      const back = r.source.kind === "server" || r.source.kind === "local"
        ? `#/play/${encodeURIComponent(r.source.cid)}/${r.source.index}`
        : location.hash.replace("#/replay", "#/play").replace(/&lurd=[^&]*/, "");
      replay.open(r.level, r.title, replay.sourcesFor(r.level, r.json, params.get("lurd")), back);
    } else if (screen === "import") {
      show("import");
      document.title = "Import - Sokoban";
    } else if (screen === "edit") {
      show("edit");
      document.title = "Editor - Sokoban";
      let level = null;
      if (params.has("level")) level = R.parseBoard(params.get("level"));
      editor.open(level, params.get("title"));
    } else if (compete.handles(screen)) {
      await compete.route(screen, parts, params, { show, current: () => seq === routing });
    } else {
      show("home");
      showError(`No such page: ${location.hash}`);
    }
  } catch (error) {
    if (seq !== routing) return;
    show(screen === "play" || screen === "replay" ? "home" : SCREENS.includes(screen) ? screen : "home");
    showError(error.message);
  }
}

// --- keys --------------------------------------------------------------------------------------

function openHelp() {
  const dialog = $("help");
  if (!dialog.open) dialog.showModal();
}

function go(route) {
  if (route) location.hash = route;
}

document.addEventListener("keydown", (e) => {
  if (document.querySelector("dialog[open]")) return; // Esc and Tab belong to the dialog
  if (inField(e)) return;
  if (e.key === "?") {
    e.preventDefault();
    openHelp();
    return;
  }
  for (const screen of LIVE) if (screen.keydown(e, go)) return;
});

// --- wiring ------------------------------------------------------------------------------------

function setup() {
  const table = $("help-table").tBodies[0];
  for (const [keys, what] of BINDINGS) table.append(el("tr", {}, el("th", { scope: "row", text: keys }), el("td", { text: what })));
  $("help-button").addEventListener("click", openHelp);

  play.setup(go);
  const theme = $("theme");
  theme.replaceChildren(...THEME_NAMES.map(([value, text]) => el("option", { value, text })));
  theme.value = store.settings().theme;
  theme.addEventListener("change", () => {
    store.saveSettings({ ...store.settings(), theme: theme.value });
    themeChanged();
  });
  onSystemTheme(themeChanged);

  replay.setup();
  browse.setupImport();
  compete.setup();
  // Saving a level adds to "mine": list the collections afresh next time.
  $("edit-save").addEventListener("click", () => browse.forgetCollections());
}

/** A new theme (chosen, or the system's light or dark): the page and the boards follow. */
function themeChanged() {
  applyTheme();
  play.redraw();
  replay.redraw();
  compete.redraw();
  if (!$("screen-home").hidden || !$("screen-collection").hidden) route();
}

applyTheme();
setup();
window.addEventListener("hashchange", route);
route();
