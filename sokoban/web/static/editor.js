// The level editor: a grid of XSB characters painted with a tool (mouse and touch), resized,
// undone; validated live by rules.problems() (Level.problems() in JS); tested, solved, saved
// and shared through the server. The draft is kept in localStorage. Saving needs a player:
// a saved level is the player's own (their "mine"), its link open to anyone.

import * as R from "./rules.js";
import * as api from "./api.js";
import { geometry, paint } from "./board.js";
import { $, el, announce, markFirstFrame, prefs, shareRoute, copyText } from "./ui.js";

const DRAFT = "sokoban:editor";
const MAX = 50;

function blank(w, h) {
  const rows = [];
  for (let y = 0; y < h; y++) {
    rows.push([...Array(w)].map((_, x) => (x === 0 || y === 0 || x === w - 1 || y === h - 1 ? "#" : " ")));
  }
  return rows;
}

function starter() {
  const rows = blank(9, 7);
  rows[3][2] = "@";
  rows[3][4] = "$";
  rows[3][6] = ".";
  return rows;
}

function fromLevel(level) {
  const rows = [];
  for (let y = 0; y < level.height; y++) {
    rows.push([...Array(level.width)].map((_, x) => R.cellChar(level, y * level.width + x)));
  }
  return rows;
}

/** The grid as a level, cell for cell (no trimming: cells match the canvas). */
function cellLevel(rows, w, h) {
  const level = { width: w, height: h, walls: new Set(), goals: new Set(), boxes: new Set(), players: new Set() };
  rows.forEach((row, y) => row.forEach((c, x) => {
    const cell = y * w + x;
    if (c === "#") level.walls.add(cell);
    if (c === "." || c === "*" || c === "+") level.goals.add(cell);
    if (c === "$" || c === "*") level.boxes.add(cell);
    if (c === "@" || c === "+") level.players.add(cell);
  }));
  level.player = level.players.size ? Math.min(...level.players) : null;
  return level;
}

function xsbOf(rows) {
  return rows.map((r) => r.join("").replace(/\s+$/, "")).join("\n").replace(/^\n+|\n+$/g, "");
}

/**
 * The grid at a new size, its outer rows and columns kept at the new edges (a walled board
 * stays walled): the cells inside are kept where they fit, new ones are floor, and new
 * cells on the edge repeat the old corner.
 */
function resized(rows, w, h) {
  const ow = rows[0].length;
  const oh = rows.length;
  // The old line a new one shows: the last stays last; null for a line that is new.
  const from = (v, n, old) => (v === n - 1 ? old - 1 : v >= old - 1 ? null : v);
  return [...Array(h)].map((_, y) => [...Array(w)].map((__, x) => {
    const ox = from(x, w, ow);
    const oy = from(y, h, oh);
    if (ox !== null && oy !== null) return rows[oy][ox];
    const edge = x === 0 || y === 0 || x === w - 1 || y === h - 1;
    return edge ? rows[oy ?? oh - 1][ox ?? ow - 1] : " ";
  }));
}

const clamp = (n) => Math.max(3, Math.min(MAX, Number.isFinite(n) ? Math.round(n) : 3));

/** The editor screen (#screen-edit). */
class EditorScreen {
  constructor() {
    /** The board being edited (rows of XSB characters, the undo stack, the stroke); null
     * until the editor is first opened. */
    this.draft = null;
  }

  /** Open the editor, on `level` when given, else on the saved draft. */
  open(level, title) {
    if (!this.draft) this.setup();
    let rows = null;
    if (level) rows = fromLevel(level);
    else {
      try {
        const draft = JSON.parse(localStorage.getItem(DRAFT) || "null");
        if (draft && Array.isArray(draft.rows) && draft.rows.length) {
          rows = draft.rows.map((r) => [...r]);
          title = title || draft.title;
        }
      } catch (error) { rows = null; }
    }
    this.draft.rows = rows || starter();
    this.draft.undo = [];
    $("edit-name").value = title || "";
    $("edit-message").textContent = "";
    $("share-url").value = "";
    $("edit-signin").hidden = Boolean(api.player());
    this.render();
  }

  setup() {
    this.draft = { rows: starter(), undo: [], drawing: false, cell: 32 };
    const canvas = $("edit-canvas");
    canvas.addEventListener("pointerdown", (e) => {
      if (e.button > 0) return;
      e.preventDefault();
      canvas.setPointerCapture?.(e.pointerId);
      this.snapshot();
      this.draft.drawing = true;
      this.draft.last = null;
      this.paintAt(e);
    });
    canvas.addEventListener("pointermove", (e) => { if (this.draft.drawing) this.paintAt(e); });
    const end = () => { if (this.draft.drawing) { this.draft.drawing = false; this.changed(); } };
    canvas.addEventListener("pointerup", end);
    canvas.addEventListener("pointercancel", end);
    const resize = () => {
      const w = clamp(Number($("edit-width").value));
      const h = clamp(Number($("edit-height").value));
      if (w === this.draft.rows[0].length && h === this.draft.rows.length) return;
      this.snapshot();
      this.draft.rows = resized(this.draft.rows, w, h);
      this.changed();
    };
    $("edit-width").addEventListener("change", resize);
    $("edit-height").addEventListener("change", resize);
    $("edit-undo").addEventListener("click", () => this.undo());
    $("edit-clear").addEventListener("click", () => {
      this.snapshot();
      this.draft.rows = blank(this.draft.rows[0].length, this.draft.rows.length);
      this.changed();
    });
    $("edit-xsb").addEventListener("input", () => {
      try {
        const level = R.parseBoard($("edit-xsb").value);
        this.snapshot();
        this.draft.rows = fromLevel(level);
        this.render({ keepText: true });
      } catch (error) {
        this.showProblems([`${error.message}${error.line ? ` (line ${error.line})` : ""}`]);
      }
    });
    $("edit-name").addEventListener("input", () => this.saveDraft());
    $("edit-test").addEventListener("click", () => this.test());
    $("edit-solve").addEventListener("click", () => this.solve());
    $("edit-save").addEventListener("click", () => this.saveLevel());
    $("edit-share").addEventListener("click", () => this.share());
    window.addEventListener("resize", () => { if (!$("screen-edit").hidden) this.render({ keepText: true }); });
  }

  tool() {
    return document.querySelector('input[name="tool"]:checked').value;
  }

  paintAt(e) {
    const canvas = $("edit-canvas");
    const rect = canvas.getBoundingClientRect();
    const w = this.draft.rows[0].length;
    const h = this.draft.rows.length;
    const x = Math.floor(((e.clientX - rect.left) / rect.width) * w);
    const y = Math.floor(((e.clientY - rect.top) / rect.height) * h);
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    if (this.draft.last === y * w + x) return;
    this.draft.last = y * w + x;
    this.put(x, y, this.tool());
    this.render({ quiet: true });
  }

  /** Set one cell with a tool, keeping a goal under a box or the player. */
  put(x, y, t) {
    const old = this.draft.rows[y][x];
    const goal = old === "." || old === "*" || old === "+";
    if (t === "#" || t === " ") this.draft.rows[y][x] = t;
    else if (t === ".") this.draft.rows[y][x] = old === "$" ? "*" : old === "@" ? "+" : ".";
    else if (t === "$") this.draft.rows[y][x] = goal ? "*" : "$";
    else if (t === "@") {
      for (const row of this.draft.rows) {
        row.forEach((c, i) => {
          if (c === "@") row[i] = " ";
          else if (c === "+") row[i] = ".";
        });
      }
      this.draft.rows[y][x] = goal ? "+" : "@";
    }
  }

  snapshot() {
    this.draft.undo.push(this.draft.rows.map((r) => r.slice()));
    if (this.draft.undo.length > 200) this.draft.undo.shift();
  }

  undo() {
    if (!this.draft.undo.length) return;
    this.draft.rows = this.draft.undo.pop();
    this.changed();
    announce("Undone.");
  }

  changed() {
    this.render();
    this.saveDraft();
  }

  saveDraft() {
    try {
      localStorage.setItem(DRAFT, JSON.stringify({ rows: this.draft.rows.map((r) => r.join("")), title: $("edit-name").value }));
    } catch (error) { /* no storage: the draft is not kept */ }
  }

  /** The edited level (trimmed, as XSB reads it) or null when there is no board. */
  level() {
    try {
      return R.parseBoard(xsbOf(this.draft.rows));
    } catch (error) {
      return null;
    }
  }

  showProblems(list) {
    const box = $("edit-problems");
    box.replaceChildren(...list.map((p) => el("li", { text: p })));
    $("edit-ok").hidden = list.length > 0;
    $("edit-problems").dataset.count = String(list.length);
  }

  render({ keepText = false, quiet = false } = {}) {
    const rows = this.draft.rows;
    const w = rows[0].length;
    const h = rows.length;
    $("edit-width").value = String(w);
    $("edit-height").value = String(h);
    const canvas = $("edit-canvas");
    const stage = $("edit-stage");
    const dpr = window.devicePixelRatio || 1;
    const css = Math.max(12, Math.min(40, (stage.clientWidth || 600) / w));
    const cell = Math.floor(css * dpr);
    canvas.width = cell * w;
    canvas.height = cell * h;
    canvas.dataset.cols = String(w);
    canvas.dataset.rows = String(h);
    canvas.style.width = `${(cell * w) / dpr}px`;
    canvas.style.height = `${(cell * h) / dpr}px`;
    const ctx = canvas.getContext("2d");
    const lvl = cellLevel(rows, w, h);
    paint(ctx, lvl, cell, { theme: prefs().theme, geo: geometry(lvl, { trim: false }) });
    markFirstFrame();
    ctx.strokeStyle = "rgba(0, 0, 0, 0.12)";
    ctx.lineWidth = 1;
    for (let x = 0; x <= w; x++) { ctx.beginPath(); ctx.moveTo(x * cell + 0.5, 0); ctx.lineTo(x * cell + 0.5, h * cell); ctx.stroke(); }
    for (let y = 0; y <= h; y++) { ctx.beginPath(); ctx.moveTo(0, y * cell + 0.5); ctx.lineTo(w * cell, y * cell + 0.5); ctx.stroke(); }
    if (quiet) return;
    const text = xsbOf(rows);
    if (!keepText) $("edit-xsb").value = text;
    const lv = this.level();
    const problems = lv ? R.problems(lv) : ["no board"];
    this.showProblems(problems);
    for (const id of ["edit-test", "edit-solve", "edit-save", "edit-share"]) $(id).disabled = problems.length > 0;
    $("share-url").value = "";
  }

  test() {
    const lv = this.level();
    if (lv) location.hash = shareRoute(lv, $("edit-name").value || "Test level");
  }

  async solve() {
    const lv = this.level();
    if (!lv) return;
    const message = $("edit-message");
    message.textContent = "The solver is proving it (optimal pushes)...";
    try {
      const board = R.formatBoard(lv);
      const result = await api.solve(board, "astar", 10);
      this.draft.verdict = { board, status: result.status };
      if (result.status === "solved") {
        message.textContent = `Solvable: ${result.pushes} pushes${result.optimal ? " (optimal)" : ""}, ${result.moves} moves.`;
      } else if (result.status === "unsolvable") {
        message.textContent = "Unsolvable: no solution exists.";
      } else {
        message.textContent = `Undecided: ${result.message || result.status}.`;
      }
    } catch (error) {
      message.textContent = `The solver is unavailable: ${error.message}`;
    }
  }

  async saveLevel() {
    const lv = this.level();
    if (!lv) return;
    const message = $("edit-message");
    const title = $("edit-name").value.trim() || null;
    const board = R.formatBoard(lv);
    const verdict = this.draft.verdict;
    if (verdict && verdict.board === board && verdict.status === "unsolvable" && !verdict.warned) {
      // The solver has just proved this very board unsolvable: say so before saving it.
      verdict.warned = true;
      message.textContent = "The solver proved this level unsolvable: press Save again to save it anyway.";
      announce(message.textContent);
      return;
    }
    if (!api.player()) {
      message.replaceChildren("Not saved: sign in to save levels (", el("a", { href: "#/player", text: "pick a name" }),
        "); Share gives a link that carries the level without saving it.");
      announce(message.textContent);
      return;
    }
    try {
      const saved = await api.save(board, title);
      // Its number is its id: the same link opens it for anyone.
      message.replaceChildren(
        `Saved in your levels as level ${saved.index}. `,
        el("a", { href: `#/play/${encodeURIComponent(saved.collection)}/${saved.index}`, id: "edit-saved-link", text: "Play it" }),
      );
      announce("Saved.");
    } catch (error) {
      message.textContent = error.status === 401
        ? `Not saved: ${error.message} (the Player page signs you in).`
        : `Not saved: ${error.message}`;
    }
  }

  async share() {
    const lv = this.level();
    if (!lv) return;
    const url = `${location.origin}${location.pathname}${shareRoute(lv, $("edit-name").value.trim())}`;
    $("share-url").value = url;
    const ok = await copyText(url);
    if (!ok) $("share-url").select();
    $("edit-message").textContent = ok ? "The link is copied: it carries the level itself."
      : "The clipboard did not take the link: copy it from the Share URL box (it carries the level itself).";
  }

  /** The editor's keys (Ctrl+Z undoes a stroke); true when the key was one. */
  keydown(e) {
    if ($("screen-edit").hidden) return false;
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "z" && e.target.tagName !== "TEXTAREA" && e.target.tagName !== "INPUT") {
      e.preventDefault();
      this.undo();
      return true;
    }
    return false;
  }

  /** Leaving the editor: nothing runs in the background. */
  stop() {
    // nothing runs in the background
  }
}

const screen = new EditorScreen();

export const open = (level, title) => screen.open(level, title);
export const keydown = (e) => screen.keydown(e);
export const stop = () => screen.stop();
