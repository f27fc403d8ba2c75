// The play screen: a level on the shared board controller (controller.js), the solver behind
// it (hint, solve, dead-position check, proof and rewind), best scores, the saved history
// and the solved dialog. Its part of the page is #screen-play (less the daily line and the
// scores panel, which daily.js and scores.js own); it tells the others what happens through
// the "sokoban:play" and "sokoban:solved" events.

import * as R from "./rules.js";
import * as api from "./api.js";
import * as store from "./progress.js";
import { BoardController } from "./controller.js";
import { keyAction } from "./input.js";
import { tone } from "./sound.js";
import { $, el, announce, describe, markFirstFrame, prefs, shareRoute, copyText, metricLabel } from "./ui.js";

/** Seconds a busy solver is waited for at most before a hint gives up. */
const RETRY_AT_MOST_S = 120;

/**
 * The line shown when the server refuses the solver's help (403: the board is today's daily
 * level or a race's, competed on now), or null for another error.
 */
export function refusedHelp(error) {
  if (error.status !== 403) return null;
  const reason = error.message.charAt(0).toUpperCase() + error.message.slice(1);
  return `${reason}: this one is yours to solve alone.`;
}

class PlayScreen {
  constructor() {
    /** The round being played: level, source, solver state; null off the screen. */
    this.round = null;
    this.board = null;
  }

  get game() {
    return this.board.game;
  }

  /** The board controller, made on first use (its canvas is this screen's). */
  controller() {
    if (!this.board) {
      this.board = new BoardController($("play-canvas"), {
        below: () => bottomRoom(),
        onStep: (step) => this.followPlan(step),
        onSettle: ({ pushed, solving }) => this.settled(pushed, solving),
        onJump: () => this.jumped(),
        onSolved: () => this.solved(),
        onRender: () => this.counters(),
        marks: () => ({ dead: this.round && this.round.dead ? this.round.dead.boxes : null }),
      });
    }
    return this.board;
  }

  /**
   * Open a level for play. `source`: {kind: "server", cid, index, count}, {kind: "daily",
   * ...} or {kind: "share"}; `json` the server's LevelOut when there is one.
   */
  open(level, title, source, json = null) {
    this.stop();
    const board = this.controller();
    const game = new R.Game(level);
    const key = store.levelKey(R.formatBoard(level));
    const saved = store.history(key);
    let assisted = false;
    if (saved) {
      try {
        game.load(saved.lurd, saved.cursor);
        assisted = Boolean(saved.assisted);
      } catch (error) { /* a stale history: start afresh */ }
    }
    this.round = {
      level, title, source, json, key, assisted,
      dead: null, checked: new Map(), checkSeq: 0, plan: null, retry: null,
      // The deadlock check is the solver's help too: not on today's daily puzzle.
      noCheck: source.kind === "daily" && Boolean(source.today),
    };
    $("play-title").textContent = title;
    document.title = `${title} - Sokoban`;
    const where = $("play-where");
    where.hidden = source.kind === "daily"; // the daily line says where instead
    const listed = source.kind === "server" || source.kind === "local";
    const shared = source.neighbours && !source.position; // someone's saved level, by its link
    where.textContent = shared ? "A saved level, opened by its link"
      : listed ? `${source.collectionTitle || source.cid}, level ${source.position || source.index}${source.count ? ` of ${source.count}` : ""}`
        : "A level carried by its link";
    $("previous").disabled = this.neighbourRoute(-1) === null;
    $("next").disabled = this.neighbourRoute(1) === null;
    // No solver help on a daily puzzle while its day runs.
    const helpless = source.kind === "daily" && source.today;
    for (const id of ["hint", "solve", "prove"]) $(id).disabled = helpless;
    $("hint").title = helpless ? "No hints on today's daily puzzle" : "Hint (I): the solver plays the next push";
    $("lurd-out").hidden = true;
    $("board-text").textContent = "";
    this.hideNotice();
    closeMenu();
    $("speed").value = prefs().speed;
    $("theme").value = prefs().theme;
    $("sound").checked = Boolean(prefs().sound);
    board.setLevel(level, game);
    markFirstFrame();
    store.saveLastPlayed(location.hash, title, R.formatBoard(level, { rle: true }));
    const problems = R.problems(level);
    if (problems.length) this.notice(`This level cannot be solved as it is: ${problems.join("; ")}.`, { kind: "dead" });
    else if (game.solved) this.notice("Solved. Undo, restart or replay to play again.");
    else if (game.pushes) this.checkDead();
    announce(`${title}. ${this.summary()}`);
    document.dispatchEvent(new CustomEvent("sokoban:play", { detail: { source, json, key } }));
  }

  /** Leave the screen: stop animations and the solver's retries, keep the history. */
  stop() {
    if (!this.round) return;
    this.board.stop();
    this.save();
    clearTimeout(this.round.retry);
    this.round = null;
  }

  active() {
    return this.round !== null && !$("screen-play").hidden;
  }

  /** The play screen's keys; true when the key was one. */
  keydown(e, go) {
    if (!this.active()) return false;
    const action = keyAction(e);
    if (!action) return false;
    // Space and Enter stay with the focused button; game keys are ours.
    e.preventDefault();
    if (this.board.key(action, e.repeat)) return true;
    switch (action.type) {
      case "next": go(this.neighbourRoute(1)); break;
      case "previous": go(this.neighbourRoute(-1)); break;
      case "hint": if (!$("hint").disabled) this.hint(false); break;
      case "escape": if (!this.board.escape()) closeMenu(); break;
      default: return false;
    }
    return true;
  }

  summary() {
    const { game } = this;
    const onGoals = [...game.boxes].filter((b) => this.round.level.goals.has(b)).length;
    return `Moves ${game.moves}, pushes ${game.pushes}; ${onGoals} of ${game.boxes.size} boxes on goals.`
      + (game.solved ? " Solved." : "") + (this.round.dead ? " Dead position." : "");
  }

  /** The counters, the buttons' states and the board's label (after each drawing). */
  counters() {
    if (!this.round) return;
    const { game } = this;
    $("moves").textContent = String(game.moves);
    $("pushes").textContent = String(game.pushes);
    $("undo").disabled = game.cursor === 0;
    $("redo").disabled = game.cursor >= game.steps.length;
    $("restart").disabled = game.cursor === 0;
    const canvas = this.board.canvas;
    canvas.setAttribute("aria-label", `Board. ${this.summary()}`);
    canvas.dataset.dead = String(Boolean(this.round.dead));
    canvas.dataset.assisted = String(this.round.assisted);
    const best = store.best(this.round.key);
    $("best").textContent = best
      ? `Best: ${best.moves.moves}/${best.moves.pushes} (fewest moves), ${best.pushes.moves}/${best.pushes.pushes} (fewest pushes)`
      : "";
  }

  save() {
    if (!this.round) return;
    store.saveHistory(this.round.key, this.game.lurd(true), this.game.cursor, this.round.assisted);
  }

  render() {
    if (this.round) this.board.render();
  }

  // --- what the controller tells -------------------------------------------------------------

  followPlan(step) {
    const r = this.round;
    // A fresh attempt from the start, played by hand, is no longer helped.
    if (!this.board.solving && this.game.cursor === 1 && this.game.steps.length === 1) r.assisted = false;
    if (step.push) {
      const box = R.neighbour(r.level, this.game.player, step.d);
      tone(r.level.goals.has(box) ? "goal" : "push");
    }
    if (r.plan && r.plan.steps.length && r.plan.steps[0].d === step.d) r.plan.steps.shift();
    else r.plan = null;
  }

  settled(pushed, solving) {
    this.save();
    if (pushed && !solving) this.checkDead();
    if (!this.game.solved && this.round.dead === null) announce(this.summary());
  }

  jumped() {
    this.round.plan = null;
    this.hideNotice();
    this.checkDead();
    this.save();
    announce(this.summary());
  }

  // --- actions -------------------------------------------------------------------------------

  undo() { this.board.undo(); }

  redo() { this.board.redo(); }

  restart() {
    this.board.restart();
    announce("Restarted: redo plays your moves again.");
  }

  // --- notices and the solver ----------------------------------------------------------------

  notice(text, { rewind = false, kind = "info" } = {}) {
    const shown = !$("notice").hidden;
    $("notice").hidden = false;
    $("notice").dataset.kind = kind;
    $("notice-text").textContent = text;
    $("rewind").hidden = !rewind || ($("hint").disabled);
    if (!shown) this.board.refit();
  }

  hideNotice() {
    if ($("notice").hidden) return;
    $("notice").hidden = true;
    $("rewind").hidden = true;
    if (this.board) this.board.refit();
  }

  positionText() {
    return R.formatBoard(this.game.position);
  }

  async checkDead() {
    const r = this.round;
    if (!r) return;
    const text = this.positionText();
    if (this.game.pushes === 0 || r.noCheck) {
      r.dead = null;
      return;
    }
    let verdict = r.checked.get(text);
    if (!verdict) {
      const seq = ++r.checkSeq;
      try {
        verdict = await api.check(text);
      } catch (error) {
        // The check is a help, not a rule: play goes on without it (and on a board competed
        // on now, 403, it is not asked again).
        if (error.status === 403) r.noCheck = true;
        return;
      }
      r.checked.set(text, verdict);
      if (seq !== r.checkSeq) return;
    }
    if (this.round !== r || this.positionText() !== text) return;
    const w = r.level.width;
    r.dead = verdict.dead
      ? { reason: verdict.reason || "dead position", boxes: new Set((verdict.dead_boxes || []).map(([row, col]) => row * w + col)) }
      : null;
    if (r.dead) {
      this.notice(`Dead position (${r.dead.reason}): no solution from here.`, { rewind: true, kind: "dead" });
      announce(`Dead position: ${r.dead.reason}.`);
    } else if ($("notice").dataset.kind === "dead") {
      this.hideNotice();
    }
    if (!this.board.animating) this.render();
  }

  /**
   * Ask the solver from the current position; a busy solver (503), or one whose share for
   * this client is in use (429), is asked again after its Retry-After, the wait shown. Null
   * when the position changed meanwhile.
   */
  async ask(timeLimit) {
    const r = this.round;
    const text = this.positionText();
    const waited = performance.now();
    for (;;) {
      try {
        return { text, result: await api.solve(text, "fast", timeLimit) };
      } catch (error) {
        const seconds = error.status === 503 || error.status === 429 ? error.retryAfter || 5 : null;
        if (seconds === null || (performance.now() - waited) / 1000 + seconds > RETRY_AT_MOST_S) throw error;
        this.notice(error.status === 429
          ? `This browser's share of the solver is in use: asking again in ${seconds} s...`
          : `The solver is busy: asking again in ${seconds} s...`);
        await new Promise((resolve) => { r.retry = setTimeout(resolve, seconds * 1000); });
        if (this.round !== r || this.positionText() !== text) return null;
        this.notice("The solver is thinking...");
      }
    }
  }

  /** The solver's plan from the current position (kept while the player follows it). */
  async plan() {
    const r = this.round;
    if (r.plan && r.plan.steps.length) return r.plan;
    this.notice("The solver is thinking...");
    const asked = await this.ask(5);
    if (!asked || this.round !== r || this.positionText() !== asked.text) {
      if (this.round === r) this.hideNotice(); // the player moved on while the solver thought
      return null;
    }
    const { result } = asked;
    if (result.status === "solved" && result.lurd !== null) {
      const { steps } = R.replay(this.game.position, result.lurd);
      r.plan = { steps, optimal: result.optimal, pushes: result.pushes, moves: result.moves };
      return r.plan;
    }
    if (result.status === "unsolvable") {
      this.notice("No solution from here: the solver proved it.", { rewind: true, kind: "dead" });
    } else {
      this.notice(`The solver found no solution (${result.message || result.status}).`);
    }
    return null;
  }

  async hint(all = false) {
    if (!this.round || this.game.solved) return;
    this.board.cancel();
    this.board.clearSelection(false);
    let p;
    try {
      p = await this.plan();
    } catch (error) {
      this.notice(refusedHelp(error) || `No hint: ${error.message}`);
      return;
    }
    if (!p) return;
    const pushAt = p.steps.findIndex((s) => s.push);
    const steps = all || pushAt < 0 ? p.steps.slice() : p.steps.slice(0, pushAt + 1);
    const left = p.steps.filter((s) => s.push).length;
    const quality = p.optimal ? "optimal" : "not proven optimal";
    this.notice(all
      ? `Hint: the solver plays the rest, ${left} pushes (${quality}).`
      : `Hint: the next push of a ${left}-push solution (${quality}).`);
    this.round.assisted = true;
    this.board.enqueue(steps.map((s) => s.d), { solving: true });
  }

  async prove() {
    const r = this.round;
    if (!r) return;
    this.notice("The solver is looking for a solution from here...");
    try {
      const asked = await this.ask(10);
      if (!asked || this.round !== r || this.positionText() !== asked.text) return;
      const { result } = asked;
      if (result.status === "solved") {
        const { steps } = R.replay(this.game.position, result.lurd);
        r.plan = { steps, optimal: result.optimal, pushes: result.pushes, moves: result.moves };
        this.notice(`Solvable: a solution of ${result.pushes} pushes exists from here${result.optimal ? " (optimal)" : ""}.`);
      } else if (result.status === "unsolvable") {
        this.notice("Unsolvable: no solution exists from here.", { rewind: this.game.cursor > 0, kind: "dead" });
      } else {
        this.notice(`Undecided: ${result.message || result.status}.`);
      }
    } catch (error) {
      this.notice(refusedHelp(error) || `The solver is unavailable: ${error.message}`);
    }
  }

  async rewind() {
    const r = this.round;
    if (!r) return;
    this.board.cancel();
    this.notice("Looking for the last position from which a solution exists...");
    try {
      const result = await api.rewind(R.formatBoard(r.level), this.game.lurd(), 10);
      if (this.round !== r) return;
      const back = this.game.cursor - result.steps;
      r.assisted = true;
      this.board.seek(result.steps);
      if (result.solution) {
        const { steps } = R.replay(this.game.position, result.solution);
        r.plan = { steps, optimal: false };
      }
      this.notice(`Back ${back} moves, to the last solvable position (redo brings them back).`);
    } catch (error) {
      this.notice(refusedHelp(error) || `Cannot rewind: ${error.message}`);
    }
  }

  // --- solved --------------------------------------------------------------------------------

  solved() {
    const r = this.round;
    const lurd = this.game.lurd();
    const local = this.game.metrics();
    const record = store.recordSolution(r.key, local.moves, local.pushes, lurd, r.assisted);
    showMetrics(R.formatBoard(r.level), lurd, local);
    const b = record.best;
    let text = `Fewest moves: ${b.moves.moves} moves, ${b.moves.pushes} pushes${record.newMoves ? " (new best)" : ""}. `
      + `Fewest pushes: ${b.pushes.pushes} pushes, ${b.pushes.moves} moves${record.newPushes ? " (new best)" : ""}.`;
    const optimal = r.json && r.json.optimal;
    if (optimal) text += ` Optimal: ${optimal.pushes} pushes.`;
    if (r.assisted) text += " Solved with the solver's help (hint, solve or rewind).";
    $("solved-best").textContent = text;
    $("solved-next").disabled = $("next").disabled;
    this.notice("Solved!");
    tone("solved");
    const canvas = this.board.canvas;
    canvas.classList.remove("celebrate");
    void canvas.offsetWidth; // restart the animation when solved again
    canvas.classList.add("celebrate");
    announce(`Solved in ${local.moves} moves and ${local.pushes} pushes.`);
    const dialog = $("solved");
    if (!dialog.open) dialog.showModal();
    document.dispatchEvent(new CustomEvent("sokoban:solved", {
      detail: { lurd, metrics: local, assisted: r.assisted },
    }));
  }

  // --- the rest of the toolbar ---------------------------------------------------------------

  copyLurd() {
    const text = this.game.lurd();
    const out = $("lurd-out");
    out.textContent = text || "(no moves yet)";
    const shown = !out.hidden;
    out.hidden = false;
    if (!shown) this.board.refit();
    copyText(text).then((ok) => announce(ok ? `Copied ${this.game.moves} moves as LURD.` : "The clipboard did not take the moves: they are shown as LURD, to select and copy."));
  }

  describeBoard() {
    $("board-text").textContent = describe(this.game.position);
  }

  /** The route of the replay screen for this level. */
  replayRoute() {
    const { source, level, title } = this.round;
    if (source.kind === "server" || source.kind === "local") return `#/replay/${encodeURIComponent(source.cid)}/${source.index}`;
    return shareRoute(level, title, "replay");
  }

  editRoute() {
    return shareRoute(this.round.level, this.round.title, "edit");
  }

  /** The route of the next (`delta` 1) or previous (-1) level of the collection, or null. */
  neighbourRoute(delta) {
    const src = this.round && this.round.source;
    if (!src || (src.kind !== "server" && src.kind !== "local")) return null;
    if (src.neighbours) {
      // The player's own levels, numbered by id: the neighbours are theirs, not id + 1.
      const number = src.neighbours[delta];
      return number ? `#/play/${encodeURIComponent(src.cid)}/${number}` : null;
    }
    const index = src.index + delta;
    if (index < 1 || (src.count && index > src.count)) return null;
    return `#/play/${encodeURIComponent(src.cid)}/${index}`;
  }
}

/**
 * The solved dialog's metrics: the server's verify answer names them (and their order); the
 * rules' own count shows until it answers, and stays if the server cannot be reached.
 */
async function showMetrics(board, lurd, local) {
  const list = $("solved-metrics");
  const fill = (metrics, source) => {
    list.replaceChildren();
    list.dataset.source = source;
    for (const [name, value] of Object.entries(metrics)) {
      list.append(el("dt", { text: metricLabel(name) }), el("dd", { text: String(value), "data-metric": name }));
    }
  };
  fill({ moves: local.moves, pushes: local.pushes }, "page");
  try {
    const answer = await api.verify(board, lurd);
    const metrics = answer.metrics && typeof answer.metrics === "object" ? answer.metrics
      : Object.fromEntries(Object.entries(answer).filter(([, v]) => typeof v === "number"));
    fill(metrics, "server");
  } catch (error) {
    fill(local, "page");
  }
}

/** CSS pixels the board leaves free under it: the thumb bar on a phone, a margin elsewhere. */
function bottomRoom() {
  const bar = $("play-bar");
  if (bar && getComputedStyle(bar).position === "fixed") return bar.offsetHeight + 8;
  return 16;
}

function closeMenu() {
  const menu = $("play-menu");
  if (!menu || !menu.dataset.open) return;
  delete menu.dataset.open;
  $("play-more").setAttribute("aria-expanded", "false");
}

function toggleMenu() {
  const menu = $("play-menu");
  const open = !menu.dataset.open;
  if (open) menu.dataset.open = "1";
  else delete menu.dataset.open;
  $("play-more").setAttribute("aria-expanded", String(open));
}

const screen = new PlayScreen();

export const open = (...args) => screen.open(...args);
export const stop = () => screen.stop();
export const active = () => screen.active();
export const keydown = (e, go) => screen.keydown(e, go);
export const redraw = () => screen.render();
/** The round on the screen ({level, key, source, ...} and its game), or null. */
export const current = () => (screen.round ? { ...screen.round, game: screen.game } : null);

/** The play screen's buttons; `go(route)` follows a route. */
export function setup(go) {
  const on = (id, fn) => $(id).addEventListener("click", fn);
  on("undo", () => screen.undo());
  on("redo", () => screen.redo());
  on("restart", () => screen.restart());
  on("hint", () => screen.hint(false));
  on("solve", () => { closeMenu(); screen.hint(true); });
  on("prove", () => { closeMenu(); screen.prove(); });
  on("rewind", () => screen.rewind());
  on("copy-lurd", () => { closeMenu(); screen.copyLurd(); });
  on("describe", () => { closeMenu(); screen.describeBoard(); });
  on("replay-open", () => go(screen.replayRoute()));
  on("edit-this", () => go(screen.editRoute()));
  on("previous", () => go(screen.neighbourRoute(-1)));
  on("next", () => go(screen.neighbourRoute(1)));
  on("play-more", toggleMenu);
  // The menu closes when a tap lands anywhere else.
  document.addEventListener("pointerdown", (e) => {
    if ($("play-menu").dataset.open && !$("play-bar").contains(e.target)) closeMenu();
  });
  on("solved-next", () => { $("solved").close(); go(screen.neighbourRoute(1)); });
  on("solved-replay", () => { $("solved").close(); go(screen.replayRoute()); });
  $("sound").addEventListener("change", () => {
    store.saveSettings({ ...store.settings(), sound: $("sound").checked });
    if ($("sound").checked) tone("goal");
  });
  $("speed").addEventListener("change", () => {
    store.saveSettings({ ...store.settings(), speed: $("speed").value, speedChosen: true });
  });
}
