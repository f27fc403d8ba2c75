// Scores on the play screen of a server level (and of a daily puzzle): the player's best, the
// board's best and the proven optimum; the two leaderboards (fewest moves, fewest pushes); a
// solution submitted when a signed-in player solves (the server replays it, so counts are never
// the client's); a pasted LURD submitted the same way; links to race this level or its ghost.

import * as capi from "./compete-api.js";
import * as store from "./progress.js";
import * as players from "./players.js";
import * as play from "./play.js";
import { $, el, announce } from "./ui.js";

/** The level on the play screen, when it has a server id: {levelId, key, daily, json}. */
let current = null;
let seq = 0;

const BOARDS = [["moves", "Fewest moves"], ["pushes", "Fewest pushes"]];

function counts(e) {
  return e ? `${e.moves} moves, ${e.pushes} pushes` : "none yet";
}

/** The play screen opened a level (play.js's "sokoban:play" event). */
export function opened({ source, json, key }) {
  const panel = $("compete-panel");
  let levelId = null;
  if (source.kind === "server") levelId = json?.id || `${source.cid}/${source.index}`;
  else if (source.kind === "daily") levelId = source.levelId;
  if (!levelId) {
    current = null;
    panel.hidden = true;
    panel.replaceChildren();
    return;
  }
  players.rememberLevel(key, levelId);
  current = { levelId, key, daily: source.kind === "daily" ? source : null, json, openedAt: performance.now() };
  build(panel);
  refresh();
}

function build(panel) {
  panel.replaceChildren();
  panel.hidden = false;
  const me = capi.player();
  const head = el("div", { class: "compete-head" },
    el("h2", { text: current.daily ? "Today's challenge" : "Scores" }));
  head.append(el("dl", { id: "score-summary", class: "score-summary" }));
  if (!me) {
    head.append(el("p", { class: "muted" }, el("a", { href: "#/player", text: "Pick a name" }),
      " to put your solutions on the leaderboards (playing without one keeps your progress in this browser)."));
  }
  head.append(el("p", { id: "score-status", role: "status" }));
  panel.append(head);
  const boards = el("div", { class: "boards", id: "score-boards" });
  for (const [board, label] of BOARDS) {
    boards.append(el("table", { class: "table leaderboard", id: `board-${board}`, "data-board": board },
      el("caption", { text: label }),
      el("thead", {}, el("tr", {}, ...["#", "Player", "Moves", "Pushes"].map((t) => el("th", { scope: "col", text: t })))),
      el("tbody")));
  }
  panel.append(boards);
  const paste = el("details", { class: "submit-lurd" },
    el("summary", { text: "Submit a solution as LURD" }),
    el("label", { for: "submit-lurd", text: "LURD (from another program, or your own)" }),
    el("textarea", { id: "submit-lurd", rows: "2", spellcheck: "false" }),
    el("button", { type: "button", id: "submit-lurd-send", text: "Submit to the server" }));
  panel.append(paste);
  const idParam = encodeURIComponent(current.levelId);
  const ghostSelect = el("select", { id: "ghost-source" },
    el("option", { value: "best", text: "your best" }),
    el("option", { value: "leader", text: "the leader's" }),
    el("option", { value: "optimal", text: "the optimal solution" }));
  const ghostGo = el("button", { type: "button", id: "ghost-go", text: "Race the ghost" });
  panel.append(el("div", { class: "toolbar" },
    el("a", { class: "button", id: "race-this", href: `#/race/new?level=${idParam}`, text: "Race others on this level" }),
    el("label", {}, "Ghost of ", ghostSelect), ghostGo));
  ghostGo.addEventListener("click", () => {
    location.hash = `#/ghost/${current.levelId.split("/").map(encodeURIComponent).join("/")}?source=${ghostSelect.value}`;
  });
  $("submit-lurd-send").addEventListener("click", () => {
    const lurd = $("submit-lurd").value.replace(/\s+/g, "");
    if (lurd) submit(lurd, { pasted: true });
  });
}

/** Whether the daily's par and leaderboard may be shown (after solving it). */
function revealed() {
  if (!current.daily) return true;
  const s = play.current();
  return Boolean(store.best(current.key) || (s && s.game.solved));
}

async function refresh() {
  if (!current) return;
  const mine = ++seq;
  const state = current;
  const summary = $("score-summary");
  const optimal = state.json?.optimal || (state.daily ? state.daily.par : null);
  const line = (label, text) => [el("dt", { text: label }), el("dd", { text })];
  if (!revealed()) {
    summary.replaceChildren(...line("Par", "Solve it to see the par and the day's leaderboard."));
    $("score-boards").hidden = true;
    return;
  }
  $("score-boards").hidden = false;
  let results;
  try {
    results = await Promise.all(BOARDS.map(([board]) => capi.leaderboard(state.levelId, board, 10)));
  } catch (error) {
    if (mine === seq) summary.replaceChildren(...line("Leaderboards", `unavailable: ${error.message}`));
    return;
  }
  if (mine !== seq || current !== state) return;
  const [byMoves, byPushes] = results;
  const opt = byMoves.optimal || optimal;
  const local = store.best(state.key);
  // One line per claim; a best that is the same solution on both boards is said once.
  const pair = (a, b, ra, rb) => {
    if (!a && !b) return "none yet";
    const rank = (r) => (r ? ` (#${r})` : "");
    if (a && b && a.moves === b.moves && a.pushes === b.pushes) return `${counts(a)}${ra ? ` (#${ra} by moves, #${rb} by pushes)` : ""}`;
    return `fewest moves: ${counts(a)}${rank(ra)}; fewest pushes: ${counts(b)}${rank(rb)}`;
  };
  const rows = [];
  if (byMoves.me || byPushes.me) rows.push(line("Your best", pair(byMoves.me, byPushes.me, byMoves.me?.rank, byPushes.me?.rank)));
  else if (local) rows.push(line("Your best (this browser)", pair(local.moves, local.pushes)));
  rows.push(line("Board's best", pair(byMoves.entries[0], byPushes.entries[0])));
  rows.push(line(state.daily ? "Par" : "Proven optimum",
    opt ? `${opt.pushes} pushes (${opt.moves} moves)` : "not known"));
  if (state.daily && capi.player()) {
    try {
      const me = await capi.me();
      rows.push(line("Your streak", `${me.streak} day${me.streak === 1 ? "" : "s"} (best ${me.best_streak})`));
    } catch (error) { /* the boards still show */ }
    if (mine !== seq || current !== state) return;
  }
  summary.replaceChildren(...rows.flat());
  for (const [result, [board]] of [[byMoves, BOARDS[0]], [byPushes, BOARDS[1]]]) fill($(`board-${board}`), result);
}

function fill(table, result) {
  const body = table.tBodies[0];
  body.replaceChildren();
  const me = capi.player();
  const rows = result.entries.slice();
  if (result.me && !rows.some((e) => e.rank === result.me.rank)) rows.push(result.me);
  if (!rows.length) {
    body.append(el("tr", {}, el("td", { colspan: "4", class: "muted", text: "No solutions yet: be the first." })));
    return;
  }
  for (const e of rows) {
    const own = me && e.name === me.name;
    body.append(el("tr", { class: own ? "me" : null, "data-rank": e.rank },
      el("td", { text: String(e.rank) }), el("td", { class: "name", text: e.name }),
      el("td", { text: String(e.moves) }), el("td", { text: String(e.pushes) })));
  }
}

/** Submit a solution of the current level; the answer is shown, in the solved dialog too. */
export async function submit(lurd, { pasted = false, assisted = false } = {}) {
  if (!current) return;
  const state = current;
  const status = $("score-status");
  const say = (text) => {
    if (current === state) status.textContent = text;
    const dialogLine = $("solved-server");
    if (!pasted && dialogLine) dialogLine.textContent = text;
    announce(text);
  };
  if (!capi.player()) {
    if (pasted) say("Pick a name first (Player page): only a named player's solutions go on the leaderboards.");
    return;
  }
  say("Sending the solution to the server, which replays it...");
  try {
    const seconds = pasted ? null : Math.min(86400, (performance.now() - state.openedAt) / 1000);
    const r = await capi.submit(state.levelId, lurd, seconds, assisted);
    if (r.assisted || r.rank_moves === null || r.rank_moves === undefined) {
      say(`Verified by the server: ${r.moves} moves, ${r.pushes} pushes; solved with help, so kept off the leaderboards (shown as assisted).`);
    } else {
      say(`Verified by the server: ${r.moves} moves, ${r.pushes} pushes; rank ${r.rank_moves} by moves, `
        + `${r.rank_pushes} by pushes${r.improved ? " (a new best)" : " (not better than your best)"}.`);
    }
  } catch (error) {
    if (assisted && error.status === 422) {
      // A server that does not know of assisted solves: the solve is not sent to be ranked.
      say("Solved with the solver's help: not sent to the leaderboards.");
      return;
    }
    // The server's reason names the failing step.
    say(error.status === 422 ? `Refused by the server: ${error.message}.` : `Not submitted: ${error.message}`);
    return;
  }
  if (current === state) refresh();
}

/** The play screen's level was solved (play.js's "sokoban:solved" event). */
export function solved({ lurd, assisted = false }) {
  if (!current) return;
  let line = $("solved-server");
  if (!line) {
    line = el("p", { id: "solved-server", role: "status" });
    $("solved-best").after(line);
  }
  line.textContent = capi.player() ? "" : "Pick a name (Player page) to put your solutions on the leaderboards.";
  if (current.daily) build($("compete-panel")); // the par and the day's board appear
  if (capi.player()) submit(lurd, { assisted });
  else refresh();
}

export function setup() {
  document.addEventListener("sokoban:play", (e) => opened(e.detail));
  document.addEventListener("sokoban:solved", (e) => solved(e.detail));
}
