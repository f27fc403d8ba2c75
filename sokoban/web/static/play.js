// The play screen: a Game from rules.js on a BoardView, keys and pointer gestures, animation,
// the solver behind it (hint, solve, dead-position check, proof and rewind), best scores and
// the saved history.

import * as R from "./rules.js";
import * as api from "./api.js";
import * as store from "./progress.js";
import { BoardView } from "./board.js";
import { attachPointer } from "./input.js";
import { $, el, announce, describe, markFirstFrame, prefs, stepMs, shareRoute, copyText } from "./ui.js";

/** What is being played; null off the play screen. */
let S = null;
let view = null;

const METRIC_NAMES = [
  ["moves", "Moves"], ["pushes", "Pushes"], ["box_lines", "Box lines"],
  ["box_changes", "Box changes"], ["pushing_sessions", "Pushing sessions"],
  ["player_lines", "Player lines"],
];

function positionText() {
  return R.formatBoard(S.game.position);
}

/**
 * Open a level for play. `source`: {kind: "server", cid, index, count} or {kind: "share"};
 * `json` the server's LevelOut when there is one.
 */
export function open(level, title, source, json = null) {
  stop();
  if (!view) {
    view = new BoardView($("play-canvas"));
    attachPointer(view, { tap, drag, swipe: (d) => { clearSelection(); enqueue([d]); }, isBox: (c) => S && S.game.boxes.has(c) });
    window.addEventListener("resize", () => { if (S) { view.fit(); render(); } });
  }
  const game = new R.Game(level);
  const key = store.levelKey(R.formatBoard(level));
  S = {
    level, title, source, json, game, key,
    queue: [], token: 0, animating: false,
    selected: null, targets: null,
    dead: null, checked: new Map(), checkSeq: 0,
    plan: null, solving: false, wasSolved: false,
  };
  const saved = store.history(key);
  if (saved) {
    try { game.load(saved.lurd, saved.cursor); } catch (error) { /* a stale history: start afresh */ }
  }
  S.wasSolved = game.solved;
  $("play-title").textContent = title;
  document.title = `${title} - Sokoban`;
  $("play-where").textContent = source.kind === "server"
    ? `${source.collectionTitle || source.cid}, level ${source.index}${source.count ? ` of ${source.count}` : ""}`
    : "A level carried by its link";
  $("previous").disabled = !(source.kind === "server" && source.index > 1);
  $("next").disabled = !(source.kind === "server" && (!source.count || source.index < source.count));
  $("lurd-out").hidden = true;
  $("notice").hidden = true;
  $("board-text").textContent = "";
  hideNotice();
  $("speed").value = prefs().speed;
  $("palette").value = prefs().palette;
  view.setLevel(level);
  render();
  markFirstFrame();
  store.saveLastPlayed(location.hash, title, R.formatBoard(level, { rle: true }));
  const problems = R.problems(level);
  if (problems.length) notice(`This level cannot be solved as it is: ${problems.join("; ")}.`, { kind: "dead" });
  else if (game.solved) notice("Solved. Undo, restart or replay to play again.");
  else if (game.pushes) checkDead();
  announce(`${title}. ${summary()}`);
  document.dispatchEvent(new CustomEvent("sokoban:play", { detail: { source, json, key } }));
}

/** Leave the play screen: stop animations. */
export function stop() {
  if (S) {
    S.token += 1;
    S.queue = [];
    save();
  }
}

export function active() {
  return S !== null && !$("screen-play").hidden;
}

function summary() {
  const { game } = S;
  const onGoals = [...game.boxes].filter((b) => S.level.goals.has(b)).length;
  return `Moves ${game.moves}, pushes ${game.pushes}; ${onGoals} of ${game.boxes.size} boxes on goals.`
    + (game.solved ? " Solved." : "") + (S.dead ? " Dead position." : "");
}

function render(motion = null) {
  const { game } = S;
  view.draw(game.position, {
    palette: prefs().palette,
    targets: S.targets ? new Set(S.targets.keys()) : null,
    selected: S.selected,
    dead: S.dead ? S.dead.boxes : null,
    motion,
  });
  $("moves").textContent = String(game.moves);
  $("pushes").textContent = String(game.pushes);
  $("undo").disabled = game.cursor === 0;
  $("redo").disabled = game.cursor >= game.steps.length;
  $("restart").disabled = game.cursor === 0;
  view.canvas.setAttribute("aria-label", `Board. ${summary()}`);
  view.canvas.dataset.moves = String(game.moves);
  view.canvas.dataset.pushes = String(game.pushes);
  view.canvas.dataset.solved = String(game.solved);
  view.canvas.dataset.dead = String(Boolean(S.dead));
  const best = store.best(S.key);
  $("best").textContent = best
    ? `Best: ${best.moves.moves}/${best.moves.pushes} (fewest moves), ${best.pushes.moves}/${best.pushes.pushes} (fewest pushes)`
    : "";
}

function save() {
  if (!S) return;
  store.saveHistory(S.key, S.game.lurd(true), S.game.cursor);
}

// --- moving ----------------------------------------------------------------------------------

function enqueue(dirs, { solving = false } = {}) {
  if (!dirs.length) return;
  S.solving = solving;
  S.queue.push(...dirs);
  if (!S.animating) pump();
}

/** Finish any animation at once and drop the steps still queued. */
function cancel() {
  S.token += 1;
  S.queue = [];
  S.animating = false;
}

function pump() {
  const ms = stepMs();
  const state = S;
  const token = S.token;
  let pushed = false;
  while (S.queue.length) {
    const d = S.queue.shift();
    const step = S.game.tryStep(d);
    if (!step) continue; // a key into a wall: the keys pressed after it still count
    const from = S.game.player;
    const boxFrom = step.push ? R.neighbour(S.level, from, d) : null;
    S.game.move(d);
    pushed = pushed || step.push;
    followPlan(step);
    if (S.game.solved) S.queue = [];
    if (ms > 0) {
      S.animating = true;
      animate(from, boxFrom, ms, token).then(() => {
        if (S !== state || token !== S.token) return; // cancelled, or another level opened
        if (step.push) settleCheck();
        if (S.queue.length) pump();
        else settle(true);
      });
      return;
    }
  }
  S.animating = false;
  if (pushed) settleCheck();
  settle(true);
}

function animate(from, boxFrom, ms, token) {
  const to = S.game.player;
  const boxTo = boxFrom === null ? null : R.neighbour(S.level, boxFrom, S.game.steps[S.game.cursor - 1].d);
  const start = performance.now();
  const state = S;
  return new Promise((resolve) => {
    const frame = (now) => {
      if (S !== state || token !== S.token) {
        resolve();
        return;
      }
      const t = Math.min(1, (now - start) / ms);
      render({ player: [from, to], box: boxFrom === null ? null : [boxFrom, boxTo], t });
      if (t < 1) requestAnimationFrame(frame);
      else resolve();
    };
    requestAnimationFrame(frame);
  });
}

/** After a run of steps: draw, keep the history, and celebrate a solution. */
function settle(played) {
  S.animating = false;
  render();
  save();
  if (played && S.game.solved && !S.wasSolved) solved();
  S.wasSolved = S.game.solved;
  if (!S.game.solved && S.dead === null && played) announce(summary());
}

function settleCheck() {
  if (!S.solving) checkDead();
}

function followPlan(step) {
  if (S.plan && S.plan.steps.length && S.plan.steps[0].d === step.d) S.plan.steps.shift();
  else S.plan = null;
}

// --- actions ---------------------------------------------------------------------------------

export function move(d) {
  clearSelection(false);
  // Keys pressed during an animation wait their turn, a few at most (a held key repeats).
  if (S.queue.length < 3) enqueue([d]);
}

export function undo() {
  cancel();
  clearSelection(false);
  if (S.game.undo()) afterJump();
  else render();
}

export function redo() {
  cancel();
  clearSelection(false);
  if (S.game.redo()) afterJump();
  else render();
}

export function restart() {
  cancel();
  clearSelection(false);
  S.game.restart();
  afterJump();
  announce("Restarted: redo plays your moves again.");
}

/** After undo, redo, restart or rewind: the position changed without play. */
function afterJump() {
  S.plan = null;
  S.wasSolved = S.game.solved;
  hideNotice();
  checkDead();
  render();
  save();
  announce(summary());
}

function clearSelection(draw = true) {
  if (!S || S.selected === null) return;
  S.selected = null;
  S.targets = null;
  if (draw) render();
}

export function escape() {
  if (S && S.selected !== null) {
    clearSelection();
    return true;
  }
  return false;
}

function tap(cell) {
  if (!S || S.animating) {
    if (S) { cancel(); render(); }
    return;
  }
  const position = S.game.position;
  if (S.selected !== null) {
    if (S.targets.has(cell)) {
      const dirs = S.targets.get(cell);
      clearSelection(false);
      enqueue(dirs);
      return;
    }
    const same = cell === S.selected;
    clearSelection(false);
    if (same) {
      render();
      return;
    }
  }
  if (position.boxes.has(cell)) {
    const targets = R.pushTargets(position, cell);
    if (!targets.size) {
      announce("That box cannot be moved from here.");
      render();
      return;
    }
    S.selected = cell;
    S.targets = targets;
    announce(`Box selected: ${targets.size} cells it can be pushed to are marked.`);
    render();
    return;
  }
  const path = R.walkPath(position, cell);
  if (path && path.length) enqueue(path);
  else render();
}

function drag(from, to) {
  if (!S) return;
  cancel();
  clearSelection(false);
  const targets = R.pushTargets(S.game.position, from);
  if (targets.has(to)) enqueue(targets.get(to));
  else {
    announce("The box cannot be pushed there.");
    render();
  }
}

// --- notices and the solver ------------------------------------------------------------------

function notice(text, { rewind = false, kind = "info" } = {}) {
  const shown = !$("notice").hidden;
  $("notice").hidden = false;
  $("notice").dataset.kind = kind;
  $("notice-text").textContent = text;
  $("rewind").hidden = !rewind;
  if (!shown) refit();
}

function hideNotice() {
  if ($("notice").hidden) return;
  $("notice").hidden = true;
  $("rewind").hidden = true;
  refit();
}

/** The notice moves the board: size it again to the room left. */
function refit() {
  if (!view || !S) return;
  view.fit();
  if (!S.animating) render();
}

async function checkDead() {
  if (!S) return;
  const state = S;
  const text = positionText();
  if (state.game.pushes === 0) {
    state.dead = null;
    return;
  }
  let verdict = state.checked.get(text);
  if (!verdict) {
    const seq = ++state.checkSeq;
    try {
      verdict = await api.check(text);
    } catch (error) {
      return; // the check is a help, not a rule: play goes on without it
    }
    state.checked.set(text, verdict);
    if (seq !== state.checkSeq) return;
  }
  if (S !== state || positionText() !== text) return;
  const w = state.level.width;
  state.dead = verdict.dead
    ? { reason: verdict.reason || "dead position", boxes: new Set((verdict.dead_boxes || []).map(([r, c]) => r * w + c)) }
    : null;
  if (state.dead) {
    notice(`Dead position (${state.dead.reason}): no solution from here.`, { rewind: true, kind: "dead" });
    announce(`Dead position: ${state.dead.reason}.`);
  } else if ($("notice").dataset.kind === "dead") {
    hideNotice();
  }
  if (!state.animating) render();
}

/** The solver's plan from the current position (kept while the player follows it). */
async function plan() {
  if (S.plan && S.plan.steps.length) return S.plan;
  const state = S;
  notice("The solver is thinking...");
  const text = positionText();
  const result = await api.solve(text, "fast", 5);
  if (S !== state || positionText() !== text) {
    hideNotice(); // the player moved on while the solver thought
    return null;
  }
  if (result.status === "solved" && result.lurd !== null) {
    const { steps } = R.replay(state.game.position, result.lurd);
    state.plan = { steps, optimal: result.optimal, pushes: result.pushes, moves: result.moves };
    return state.plan;
  }
  if (result.status === "unsolvable") {
    notice("No solution from here: the solver proved it.", { rewind: true, kind: "dead" });
  } else {
    notice(`The solver found no solution (${result.message || result.status}).`);
  }
  return null;
}

export async function hint(all = false) {
  if (!S || S.game.solved) return;
  cancel();
  clearSelection(false);
  let p;
  try {
    p = await plan();
  } catch (error) {
    notice(`No hint: ${error.message}`);
    return;
  }
  if (!p) return;
  const pushAt = p.steps.findIndex((s) => s.push);
  const steps = all || pushAt < 0 ? p.steps.slice() : p.steps.slice(0, pushAt + 1);
  const left = p.steps.filter((s) => s.push).length;
  const quality = p.optimal ? "optimal" : "not proven optimal";
  notice(all
    ? `Hint: the solver plays the rest, ${left} pushes (${quality}).`
    : `Hint: the next push of a ${left}-push solution (${quality}).`);
  enqueue(steps.map((s) => s.d), { solving: true });
}

export async function prove() {
  if (!S) return;
  const state = S;
  notice("The solver is looking for a solution from here...");
  try {
    const text = positionText();
    const result = await api.solve(text, "fast", 10);
    if (S !== state || positionText() !== text) return;
    if (result.status === "solved") {
      const { steps } = R.replay(state.game.position, result.lurd);
      state.plan = { steps, optimal: result.optimal, pushes: result.pushes, moves: result.moves };
      notice(`Solvable: a solution of ${result.pushes} pushes exists from here${result.optimal ? " (optimal)" : ""}.`);
    } else if (result.status === "unsolvable") {
      notice("Unsolvable: no solution exists from here.", { rewind: state.game.cursor > 0, kind: "dead" });
    } else {
      notice(`Undecided: ${result.message || result.status}.`);
    }
  } catch (error) {
    notice(`The solver is unavailable: ${error.message}`);
  }
}

export async function rewind() {
  if (!S) return;
  const state = S;
  cancel();
  notice("Looking for the last position from which a solution exists...");
  try {
    const result = await api.rewind(R.formatBoard(state.level), state.game.lurd(), 10);
    if (S !== state) return;
    const back = state.game.cursor - result.steps;
    state.game.seek(result.steps);
    afterJump();
    if (result.solution) {
      const { steps } = R.replay(state.game.position, result.solution);
      state.plan = { steps, optimal: false };
    }
    notice(`Back ${back} moves, to the last solvable position (redo brings them back).`);
  } catch (error) {
    notice(`Cannot rewind: ${error.message}`);
  }
}

// --- solved ----------------------------------------------------------------------------------

function solved() {
  const metrics = S.game.metrics();
  const record = store.recordSolution(S.key, metrics.moves, metrics.pushes, S.game.lurd());
  const list = $("solved-metrics");
  list.replaceChildren();
  for (const [name, label] of METRIC_NAMES) {
    list.append(el("dt", { text: label }), el("dd", { text: String(metrics[name]), "data-metric": name }));
  }
  const b = record.best;
  let text = `Fewest moves: ${b.moves.moves} moves, ${b.moves.pushes} pushes${record.newMoves ? " (new best)" : ""}. `
    + `Fewest pushes: ${b.pushes.pushes} pushes, ${b.pushes.moves} moves${record.newPushes ? " (new best)" : ""}.`;
  const optimal = S.json && S.json.optimal;
  if (optimal) text += ` Optimal: ${optimal.pushes} pushes.`;
  $("solved-best").textContent = text;
  $("solved-next").disabled = $("next").disabled;
  notice("Solved!");
  announce(`Solved in ${metrics.moves} moves and ${metrics.pushes} pushes.`);
  const dialog = $("solved");
  if (!dialog.open) dialog.showModal();
  document.dispatchEvent(new CustomEvent("sokoban:solved", { detail: { lurd: S.game.lurd(), metrics } }));
}

// --- the rest of the toolbar -----------------------------------------------------------------

export function copyLurd() {
  const text = S.game.lurd();
  const out = $("lurd-out");
  out.textContent = text || "(no moves yet)";
  const shown = !out.hidden;
  out.hidden = false;
  if (!shown) refit();
  copyText(text).then((ok) => announce(ok ? `Copied ${S.game.moves} moves as LURD.` : "The moves are shown as LURD."));
}

export function describeBoard() {
  $("board-text").textContent = describe(S.game.position);
}

/** The route of the replay screen for this level. */
export function replayRoute() {
  const src = S.source;
  if (src.kind === "server") return `#/replay/${encodeURIComponent(src.cid)}/${src.index}`;
  return shareRoute(S.level, S.title, "replay");
}

export function editRoute() {
  return shareRoute(S.level, S.title, "edit");
}

export function neighbourRoute(delta) {
  const src = S && S.source;
  if (!src || src.kind !== "server") return null;
  const index = src.index + delta;
  if (index < 1 || (src.count && index > src.count)) return null;
  return `#/play/${encodeURIComponent(src.cid)}/${index}`;
}

export function redraw() {
  if (S) render();
}

export function current() {
  return S;
}
