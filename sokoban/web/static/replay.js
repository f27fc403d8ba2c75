// The replay screen: any solution (the level's own, the player's, a pasted LURD, the
// solver's) on a Game whose cursor is driven by play/pause, steps by move or by push, and a
// scrubber.

import * as R from "./rules.js";
import * as api from "./api.js";
import * as store from "./progress.js";
import { BoardView } from "./board.js";
import { $, el, announce, markFirstFrame, prefs } from "./ui.js";


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

/** The replay screen (#screen-replay). */
class ReplayScreen {
  constructor() {
    /** The replay on screen (level, game, timer, sources); null elsewhere. */
    this.shown = null;
    this.view = null;
  }

  /**
   * Open the replay of `level`; `sources` are [{id, label, lurd}] offered in the menu, the
   * first with a LURD loaded. `back` is the route of the level.
   */
  open(level, title, sources, back) {
    this.stop();
    if (!this.view) {
      this.view = new BoardView($("replay-canvas"), { below: 50 });
      window.addEventListener("resize", () => { if (this.shown) { this.view.fit(); this.render(); } });
    }
    this.shown = { level, title, game: new R.Game(level), timer: null, sources };
    $("replay-title").textContent = `Replay: ${title}`;
    document.title = `Replay: ${title} - Sokoban`;
    $("replay-back-link").setAttribute("href", back);
    const menu = $("replay-source");
    menu.replaceChildren();
    for (const source of sources) menu.append(el("option", { value: source.id, text: source.label }));
    menu.append(el("option", { value: "paste", text: "Paste a LURD" }));
    const first = sources.find((s) => s.lurd);
    menu.value = first ? first.id : "paste";
    this.view.setLevel(level);
    this.choose(menu.value);
    markFirstFrame();
  }

  stop() {
    if (this.shown) this.pause();
  }

  active() {
    return this.shown !== null && !$("screen-replay").hidden;
  }

  /** The replay screen's keys (Space, arrows, Shift+arrows); true when the key was one. */
  keydown(e) {
    if (!this.active()) return false;
    if (e.key === " " && e.target.tagName !== "BUTTON") this.toggle();
    else if (e.key === "ArrowRight") (e.shiftKey ? this.stepPush(1) : this.step(1));
    else if (e.key === "ArrowLeft") (e.shiftKey ? this.stepPush(-1) : this.step(-1));
    else return false;
    e.preventDefault();
    return true;
  }

  /** Load the solution of the chosen source. */
  choose(id) {
    const paste = id === "paste";
    $("replay-paste").hidden = !paste;
    if (paste) {
      this.load($("replay-lurd").value);
      return;
    }
    const source = this.shown.sources.find((s) => s.id === id);
    this.load(source ? source.lurd || "" : "");
  }

  /** Load LURD text; an illegal step keeps the legal part and says where it stops. */
  load(lurd) {
    this.pause();
    const game = new R.Game(this.shown.level);
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
    this.shown.game = game;
    const { metrics, solved } = R.replay(this.shown.level, game.steps);
    if (!message) {
      message = game.steps.length
        ? `${metrics.moves} moves, ${metrics.pushes} pushes; ${solved ? "it solves the level" : "it does not solve the level"}.`
        : "No solution loaded.";
    }
    $("replay-message").textContent = message;
    const scrub = $("replay-scrub");
    scrub.max = String(game.steps.length);
    this.render();
  }

  /** Offer the solver's solution from the start of the level. */
  async ask() {
    const state = this.shown;
    $("replay-message").textContent = "The solver is thinking...";
    try {
      const result = await api.solve(R.formatBoard(state.level), "fast", 10);
      if (this.shown !== state) return;
      if (result.status !== "solved") {
        $("replay-message").textContent = `The solver found no solution (${result.message || result.status}).`;
        return;
      }
      const id = "solver";
      this.shown.sources = this.shown.sources.filter((s) => s.id !== id);
      this.shown.sources.push({ id, label: `The solver's (${result.pushes} pushes${result.optimal ? ", optimal" : ""})`, lurd: result.lurd });
      const menu = $("replay-source");
      menu.querySelector('option[value="solver"]')?.remove();
      menu.insertBefore(el("option", { value: id, text: this.shown.sources[this.shown.sources.length - 1].label }), menu.lastChild);
      menu.value = id;
      this.choose(id);
    } catch (error) {
      $("replay-message").textContent = error.status === 403
        ? `No solver's solution: ${error.message}.` : `The solver is unavailable: ${error.message}`;
    }
  }

  render() {
    const { game } = this.shown;
    this.view.draw(game.position, { theme: prefs().theme });
    $("replay-move").textContent = String(game.cursor);
    $("replay-total").textContent = String(game.steps.length);
    $("replay-pushes").textContent = String(game.pushes);
    $("replay-scrub").value = String(game.cursor);
    $("replay-play").textContent = this.shown.timer ? "Pause" : "Play";
    this.view.canvas.dataset.cursor = String(game.cursor);
    this.view.canvas.setAttribute("aria-label", `Replay at move ${game.cursor} of ${game.steps.length}, ${game.pushes} pushes.`);
  }

  step(n) {
    this.pause();
    if (n > 0) this.shown.game.redo();
    else this.shown.game.undo();
    this.render();
  }

  /** Forward to just after the next push, or back to just after the previous one. */
  stepPush(n) {
    this.pause();
    const { game } = this.shown;
    if (n > 0) {
      while (game.redo() && !game.steps[game.cursor - 1].push);
    } else {
      game.undo();
      while (game.cursor > 0 && !game.steps[game.cursor - 1].push) game.undo();
    }
    this.render();
  }

  seek(n) {
    this.pause();
    this.shown.game.seek(n);
    this.render();
  }

  toggle() {
    if (this.shown.timer) this.pause();
    else this.play();
  }

  play() {
    if (this.shown.game.cursor >= this.shown.game.steps.length) this.shown.game.seek(0);
    const rate = Number($("replay-speed").value) || 10;
    this.shown.timer = setInterval(() => {
      if (!this.shown.game.redo()) this.pause();
      this.render();
    }, 1000 / rate);
    this.render();
    announce("Playing.");
  }

  pause() {
    if (this.shown && this.shown.timer) {
      clearInterval(this.shown.timer);
      this.shown.timer = null;
      this.render();
    }
  }

  /** Draw again (a new theme). */
  redraw() {
    if (this.shown) this.render();
  }
}

const screen = new ReplayScreen();

export const open = (level, title, sources, back) => screen.open(level, title, sources, back);
export const stop = () => screen.stop();
export const active = () => screen.active();
export const keydown = (e) => screen.keydown(e);
export const redraw = () => screen.redraw();

/** The replay screen's controls. */
export function setup() {
  const on = (id, type, fn) => $(id).addEventListener(type, fn);
  on("replay-source", "change", () => screen.choose($("replay-source").value));
  on("replay-load", "click", () => screen.load($("replay-lurd").value));
  on("replay-ask", "click", () => screen.ask());
  on("replay-start", "click", () => screen.seek(0));
  on("replay-end", "click", () => screen.seek(Infinity));
  on("replay-back", "click", () => screen.step(-1));
  on("replay-forward", "click", () => screen.step(1));
  on("replay-back-push", "click", () => screen.stepPush(-1));
  on("replay-forward-push", "click", () => screen.stepPush(1));
  on("replay-play", "click", () => screen.toggle());
  on("replay-scrub", "input", () => screen.seek(Number($("replay-scrub").value)));
}
