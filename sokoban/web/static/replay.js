// The replay screen: any solution (the level's own, the player's, a pasted LURD, the
// solver's) on a Game whose cursor is driven by play/pause, steps by move or by push, and a
// scrubber.

import * as R from "./rules.js";
import * as api from "./api.js";
import * as store from "./progress.js";
import { BoardView } from "./board.js";
import { $, el, announce, markFirstFrame, prefs } from "./ui.js";

let S = null;
let view = null;

/**
 * Open the replay of `level`; `sources` are [{id, label, lurd}] offered in the menu, the
 * first with a LURD loaded. `back` is the route of the level.
 */
export function open(level, title, sources, back) {
  stop();
  if (!view) {
    view = new BoardView($("replay-canvas"), { below: 50 });
    window.addEventListener("resize", () => { if (S) { view.fit(); render(); } });
  }
  S = { level, title, game: new R.Game(level), timer: null, sources };
  $("replay-title").textContent = `Replay: ${title}`;
  document.title = `Replay: ${title} - Sokoban`;
  $("replay-back-link").setAttribute("href", back);
  const menu = $("replay-source");
  menu.replaceChildren();
  for (const source of sources) menu.append(el("option", { value: source.id, text: source.label }));
  menu.append(el("option", { value: "paste", text: "Paste a LURD" }));
  const first = sources.find((s) => s.lurd);
  menu.value = first ? first.id : "paste";
  view.setLevel(level);
  choose(menu.value);
  markFirstFrame();
}

export function stop() {
  if (S) pause();
}

export function active() {
  return S !== null && !$("screen-replay").hidden;
}

/** The replay screen's keys (Space, arrows, Shift+arrows); true when the key was one. */
export function keydown(e) {
  if (!active()) return false;
  if (e.key === " " && e.target.tagName !== "BUTTON") toggle();
  else if (e.key === "ArrowRight") (e.shiftKey ? stepPush : step)(1);
  else if (e.key === "ArrowLeft") (e.shiftKey ? stepPush : step)(-1);
  else return false;
  e.preventDefault();
  return true;
}

/** Load the solution of the chosen source. */
export function choose(id) {
  const paste = id === "paste";
  $("replay-paste").hidden = !paste;
  if (paste) {
    load($("replay-lurd").value);
    return;
  }
  const source = S.sources.find((s) => s.id === id);
  load(source ? source.lurd || "" : "");
}

/** Load LURD text; an illegal step keeps the legal part and says where it stops. */
export function load(lurd) {
  pause();
  const game = new R.Game(S.level);
  let message = "";
  try {
    game.load(lurd, 0);
  } catch (error) {
    if (error instanceof R.IllegalMove) {
      const steps = R.parseLurd(lurd).slice(0, error.index);
      game.load(R.formatLurd(steps), 0);
      message = `${error.message}: the replay stops before it.`;
    } else {
      message = `Not a solution: ${error.message}`;
    }
  }
  S.game = game;
  const { metrics, solved } = R.replay(S.level, game.steps);
  if (!message) {
    message = game.steps.length
      ? `${metrics.moves} moves, ${metrics.pushes} pushes; ${solved ? "it solves the level" : "it does not solve the level"}.`
      : "No solution loaded.";
  }
  $("replay-message").textContent = message;
  const scrub = $("replay-scrub");
  scrub.max = String(game.steps.length);
  render();
}

/** Offer the solver's solution from the start of the level. */
export async function ask() {
  const state = S;
  $("replay-message").textContent = "The solver is thinking...";
  try {
    const result = await api.solve(R.formatBoard(state.level), "fast", 10);
    if (S !== state) return;
    if (result.status !== "solved") {
      $("replay-message").textContent = `The solver found no solution (${result.message || result.status}).`;
      return;
    }
    const id = "solver";
    S.sources = S.sources.filter((s) => s.id !== id);
    S.sources.push({ id, label: `The solver's (${result.pushes} pushes${result.optimal ? ", optimal" : ""})`, lurd: result.lurd });
    const menu = $("replay-source");
    menu.querySelector('option[value="solver"]')?.remove();
    menu.insertBefore(el("option", { value: id, text: S.sources[S.sources.length - 1].label }), menu.lastChild);
    menu.value = id;
    choose(id);
  } catch (error) {
    $("replay-message").textContent = `The solver is unavailable: ${error.message}`;
  }
}

function render() {
  const { game } = S;
  view.draw(game.position, { theme: prefs().theme });
  $("replay-move").textContent = String(game.cursor);
  $("replay-total").textContent = String(game.steps.length);
  $("replay-pushes").textContent = String(game.pushes);
  $("replay-scrub").value = String(game.cursor);
  $("replay-play").textContent = S.timer ? "Pause" : "Play";
  view.canvas.dataset.cursor = String(game.cursor);
  view.canvas.setAttribute("aria-label", `Replay at move ${game.cursor} of ${game.steps.length}, ${game.pushes} pushes.`);
}

export function step(n) {
  pause();
  if (n > 0) S.game.redo();
  else S.game.undo();
  render();
}

/** Forward to just after the next push, or back to just after the previous one. */
export function stepPush(n) {
  pause();
  const { game } = S;
  if (n > 0) {
    while (game.redo() && !game.steps[game.cursor - 1].push);
  } else {
    game.undo();
    while (game.cursor > 0 && !game.steps[game.cursor - 1].push) game.undo();
  }
  render();
}

export function seek(n) {
  pause();
  S.game.seek(n);
  render();
}

export function toggle() {
  if (S.timer) pause();
  else play();
}

function play() {
  if (S.game.cursor >= S.game.steps.length) S.game.seek(0);
  const rate = Number($("replay-speed").value) || 10;
  S.timer = setInterval(() => {
    if (!S.game.redo()) pause();
    render();
  }, 1000 / rate);
  render();
  announce("Playing.");
}

function pause() {
  if (S && S.timer) {
    clearInterval(S.timer);
    S.timer = null;
    render();
  }
}

/** The replay sources of a level: its own solution, the player's moves and best scores. */
export function sourcesFor(level, json, extra) {
  const key = store.levelKey(R.formatBoard(level));
  const out = [];
  if (extra) out.push({ id: "link", label: "The linked solution", lurd: extra });
  const history = store.history(key);
  if (history && history.lurd && history.cursor > 0) {
    out.push({ id: "mine", label: "Your moves", lurd: R.formatLurd(R.parseLurd(history.lurd).slice(0, history.cursor)) });
  }
  if (json && json.solution) out.push({ id: "level", label: "The level's solution", lurd: json.solution });
  const best = store.best(key);
  if (best) {
    out.push({ id: "best-moves", label: `Your fewest moves (${best.moves.moves}/${best.moves.pushes})`, lurd: best.moves.lurd });
    out.push({ id: "best-pushes", label: `Your fewest pushes (${best.pushes.moves}/${best.pushes.pushes})`, lurd: best.pushes.lurd });
  }
  return out;
}

/** Draw again (a new theme). */
export function redraw() {
  if (S) render();
}
