// One board being played, for every screen that plays (the play screen, races): a Game from
// rules.js on a BoardView, the steps queued and animated, the keys and pointer gestures
// (tap to walk, a box and a marked cell to push it there, drag, swipe), undo, redo, restart.
// The screen that owns it hears of what happens through callbacks and draws its own
// counters; whether play is allowed at all (a race before "Go!") is its `canPlay`.

import * as R from "./rules.js";
import { BoardView } from "./board.js";
import { attachPointer } from "./input.js";
import { announce, prefs, stepMs } from "./ui.js";

/** Steps waiting beyond this many are played at double speed, to catch up with the keys. */
const CATCH_UP = 3;

export class BoardController {
  /**
   * `canvas`: the board's canvas. Options: `maxCell`, `below` (BoardView's); `canPlay()`
   * whether steps are taken now; callbacks `onStep(step)` after each step played,
   * `onSettle({pushed, solving})` after a run of steps ends (whether it pushed; whether the
   * solver played it), `onJump()` after undo, redo,
   * restart or seek, `onSolved()` when the position becomes solved (by play or by redo),
   * `onRender()` after each drawing; `marks()` extra drawing options (dead boxes, overlay).
   */
  constructor(canvas, options = {}) {
    this.options = options;
    this.view = new BoardView(canvas, { maxCell: options.maxCell, below: options.below });
    this.game = null;
    this.level = null;
    this.queue = [];
    this.token = 0;
    this.animating = false;
    this.solving = false;
    this.runPushed = false;
    this.selected = null;
    this.targets = null;
    this.facing = "d";
    this.wasSolved = false;
    attachPointer(this.view, {
      tap: (cell) => this.tap(cell),
      drag: (from, to) => this.drag(from, to),
      swipe: (d) => this.move(d),
      isBox: (c) => Boolean(this.game && this.game.boxes.has(c)),
    });
    window.addEventListener("resize", () => this.refit());
    // The board's box can change without the window (a table beside it fills in).
    if ("ResizeObserver" in window) {
      let width = 0;
      new ResizeObserver(([entry]) => {
        const now = Math.round(entry.contentRect.width);
        if (now !== width) {
          width = now;
          this.refit();
        }
      }).observe(canvas.parentElement);
    }
  }

  /** Play `level` (or a game of it already under way). */
  setLevel(level, game = new R.Game(level)) {
    this.cancel();
    this.level = level;
    this.game = game;
    this.selected = null;
    this.targets = null;
    this.facing = "d";
    this.wasSolved = game.solved;
    this.view.setLevel(level);
    this.render();
  }

  /** The screen is left: animations stop, nothing more is played. */
  stop() {
    this.cancel();
  }

  get canvas() {
    return this.view.canvas;
  }

  canPlay() {
    return Boolean(this.game) && (this.options.canPlay ? this.options.canPlay() : true);
  }

  /** Size the board again to the room it has (the window or the things above it changed). */
  refit() {
    if (!this.game) return;
    this.view.fit();
    if (!this.animating) this.render();
  }

  render(motion = null) {
    if (!this.game) return;
    const extra = this.options.marks ? this.options.marks() : {};
    this.view.draw(this.game.position, {
      theme: prefs().theme,
      targets: this.targets ? new Set(this.targets.keys()) : null,
      selected: this.selected,
      facing: this.facing,
      motion,
      ...extra,
    });
    const { dataset } = this.view.canvas;
    dataset.moves = String(this.game.moves);
    dataset.pushes = String(this.game.pushes);
    dataset.solved = String(this.game.solved);
    dataset.animating = String(motion !== null);
    if (this.options.onRender) this.options.onRender();
  }

  // --- keys ----------------------------------------------------------------------------------

  /**
   * A play action of input.js's keyAction ({type: "move", d} and undo, redo, restart); true
   * when it was one of these. `repeat` (a held key's auto-repeat) is dropped while steps are
   * still waiting: every key typed counts, a held key does not pile up.
   */
  key(action, repeat = false) {
    switch (action.type) {
      case "move": this.move(action.d, { repeat }); return true;
      case "undo": this.undo(); return true;
      case "redo": this.redo(); return true;
      case "restart": this.restart(); return true;
      default: return false;
    }
  }

  move(d, { repeat = false } = {}) {
    if (!this.canPlay()) return;
    this.clearSelection(false);
    if (repeat && (this.queue.length || this.animating)) return;
    this.enqueue([d]);
  }

  // --- playing -------------------------------------------------------------------------------

  /** Play directions, animated; `solving` marks the solver's steps (a hint, a solve). */
  enqueue(dirs, { solving = false } = {}) {
    if (!dirs.length || !this.canPlay()) return;
    this.solving = solving;
    this.queue.push(...dirs);
    if (!this.animating) this.pump();
  }

  /** Finish any animation at once and drop the steps still queued. */
  cancel() {
    this.token += 1;
    this.queue = [];
    this.animating = false;
  }

  pump() {
    const token = this.token;
    while (this.queue.length) {
      const d = this.queue.shift();
      const step = this.game.tryStep(d);
      if (!step) continue; // a key into a wall: the keys pressed after it still count
      const from = this.game.player;
      const boxFrom = step.push ? R.neighbour(this.level, from, d) : null;
      this.game.move(d);
      this.facing = d;
      this.runPushed = this.runPushed || step.push;
      if (this.options.onStep) this.options.onStep(step);
      if (this.game.solved) this.queue = [];
      const base = stepMs();
      if (base > 0) {
        const ms = this.queue.length >= CATCH_UP ? base / 2 : base;
        this.animating = true;
        this.animate(from, boxFrom, ms, token).then(() => {
          if (token !== this.token) return; // cancelled, or another level set
          if (this.queue.length) this.pump();
          else this.settle();
        });
        return;
      }
    }
    this.settle();
  }

  animate(from, boxFrom, ms, token) {
    const to = this.game.player;
    const boxTo = boxFrom === null ? null : R.neighbour(this.level, boxFrom, this.facing);
    return new Promise((resolve) => {
      const start = performance.now();
      const frame = (now) => {
        if (token !== this.token) {
          resolve();
          return;
        }
        const t = Math.min(1, (now - start) / ms);
        this.render({ player: [from, to], box: boxFrom === null ? null : [boxFrom, boxTo], t });
        if (t < 1) requestAnimationFrame(frame);
        else resolve();
      };
      requestAnimationFrame(frame);
    });
  }

  /** After a run of steps: draw, tell the screen, and celebrate a solution. */
  settle() {
    const pushed = this.runPushed;
    this.runPushed = false;
    this.animating = false;
    this.render();
    if (this.options.onSettle) this.options.onSettle({ pushed, solving: this.solving });
    this.checkSolved();
  }

  checkSolved() {
    const solved = this.game.solved;
    const arrived = solved && !this.wasSolved;
    this.wasSolved = solved;
    if (arrived && this.options.onSolved) this.options.onSolved();
  }

  /** After undo, redo, restart or seek: the position changed without play. */
  jumped() {
    this.render();
    if (this.options.onJump) this.options.onJump();
    this.checkSolved();
  }

  undo() {
    if (!this.canPlay()) return;
    this.cancel();
    this.clearSelection(false);
    if (this.game.undo()) this.jumped();
    else this.render();
  }

  redo() {
    if (!this.canPlay()) return;
    this.cancel();
    this.clearSelection(false);
    const step = this.game.cursor < this.game.steps.length ? this.game.steps[this.game.cursor] : null;
    if (this.game.redo()) {
      this.facing = step.d;
      this.jumped();
    } else this.render();
  }

  restart() {
    if (!this.canPlay()) return;
    this.cancel();
    this.clearSelection(false);
    this.game.restart();
    this.jumped();
  }

  /** Move the cursor to `n` steps played (the rewind). */
  seek(n) {
    this.cancel();
    this.clearSelection(false);
    this.game.seek(n);
    this.jumped();
  }

  // --- the pointer ---------------------------------------------------------------------------

  clearSelection(draw = true) {
    if (this.selected === null) return;
    this.selected = null;
    this.targets = null;
    if (draw) this.render();
  }

  /** Esc: drop a box selection; true when there was one. */
  escape() {
    if (this.selected === null) return false;
    this.clearSelection();
    return true;
  }

  /**
   * A tap or click on a cell: walk there, select a box (its targets are marked), or push
   * the selected box to a marked cell. During a walk it takes the player somewhere else
   * from where the walk has got to.
   */
  tap(cell) {
    if (!this.canPlay()) return;
    if (this.animating || this.queue.length) this.cancel();
    const position = this.game.position;
    if (this.selected !== null) {
      if (this.targets.has(cell)) {
        const dirs = this.targets.get(cell);
        this.clearSelection(false);
        this.enqueue(dirs);
        return;
      }
      const same = cell === this.selected;
      this.clearSelection(false);
      if (same) {
        this.render();
        return;
      }
    }
    if (position.boxes.has(cell)) {
      const targets = R.pushTargets(position, cell);
      if (!targets.size) {
        announce("That box cannot be moved from here.");
        this.render();
        return;
      }
      this.selected = cell;
      this.targets = targets;
      announce(`Box selected: ${targets.size} cells it can be pushed to are marked.`);
      this.render();
      return;
    }
    const path = R.walkPath(position, cell);
    if (path && path.length) this.enqueue(path);
    else this.render();
  }

  /** A box dragged to a cell: pushed there with the fewest pushes, when it can be. */
  drag(from, to) {
    if (!this.canPlay()) return;
    this.cancel();
    this.clearSelection(false);
    const targets = R.pushTargets(this.game.position, from);
    if (targets.has(to)) this.enqueue(targets.get(to));
    else {
      announce("The box cannot be pushed there.");
      this.render();
    }
  }
}
