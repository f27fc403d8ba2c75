// The board on a canvas, drawn in code: walls joined into brick shapes with a drop shadow,
// a textured floor, goals as rings, crates that turn round and change colour on a goal, a
// player that faces the way it last moved. Boards are trimmed to their outer wall, scaled to
// fit their box and crisp on high-DPI screens (the backing store counts device pixels, each
// cell a whole number of them).

import { interior } from "./rules.js";

/**
 * The themes: light and dark (the system's choice picks one of them for "auto") and high
 * contrast. Boxes are orange off a goal and blue on one (hues told apart by colour-blind
 * players), and change shape too.
 */
export const THEMES = {
  light: {
    floor: "#ece3cf", floor2: "#e4d9c1", speck: "rgba(110, 80, 40, 0.10)",
    wall: "#69718a", wallTop: "#8b93ab", wallEdge: "#474e62", mortar: "rgba(30, 34, 48, 0.30)",
    shadow: "rgba(40, 30, 20, 0.28)",
    goal: "#d1495b", goalPad: "rgba(209, 73, 91, 0.16)",
    box: "#d08a3a", boxLight: "#ebb56f", boxDark: "#87541c",
    boxGoal: "#2f86b8", boxGoalLight: "#86c6e8", boxGoalDark: "#1a4f70", boxGoalMark: "#ffffff",
    player: "#2f5d8a", playerLight: "#4f84b8", playerAccent: "#f2b134", playerOutline: "#1d3a57",
    eye: "#ffffff", pupil: "#1b2233",
    target: "#1b9e77", selected: "#111111", dead: "#c0392b", line: 0.05,
  },
  dark: {
    floor: "#2d3240", floor2: "#292e3a", speck: "rgba(255, 255, 255, 0.05)",
    wall: "#545d78", wallTop: "#6f7a98", wallEdge: "#363c4f", mortar: "rgba(10, 12, 20, 0.40)",
    shadow: "rgba(0, 0, 0, 0.45)",
    goal: "#ff7a85", goalPad: "rgba(255, 122, 133, 0.14)",
    box: "#d9953f", boxLight: "#f0bd72", boxDark: "#7d4d18",
    boxGoal: "#3ea0d6", boxGoalLight: "#96d3f2", boxGoalDark: "#17506f", boxGoalMark: "#ffffff",
    player: "#8fc1f0", playerLight: "#b9daf7", playerAccent: "#f2b134", playerOutline: "#2d5a85",
    eye: "#ffffff", pupil: "#10151f",
    target: "#3ddc97", selected: "#ffffff", dead: "#ff5a4a", line: 0.05,
  },
  contrast: {
    floor: "#ffffff", floor2: "#ffffff", speck: null,
    wall: "#000000", wallTop: "#000000", wallEdge: "#000000", mortar: null,
    shadow: null,
    goal: "#0000d0", goalPad: "rgba(0, 0, 208, 0.12)",
    box: "#ffd000", boxLight: "#ffd000", boxDark: "#000000",
    boxGoal: "#00a040", boxGoalLight: "#00a040", boxGoalDark: "#000000", boxGoalMark: "#ffffff",
    player: "#d00000", playerLight: "#d00000", playerAccent: "#000000", playerOutline: "#000000",
    eye: "#ffffff", pupil: "#000000",
    target: "#007a55", selected: "#000000", dead: "#d00000", line: 0.09,
  },
};

/** The theme names a player can choose, "auto" following the system's light or dark. */
export const THEME_NAMES = [["auto", "Follow the system"], ["light", "Light"], ["dark", "Dark"], ["contrast", "High contrast"]];

const darkQuery = window.matchMedia?.("(prefers-color-scheme: dark)");

/** The theme a setting stands for now ("auto" and unknown names follow the system). */
export function resolveTheme(name) {
  if (name === "light" || name === "dark" || name === "contrast") return name;
  return darkQuery && darkQuery.matches ? "dark" : "light";
}

/** Call `fn` when the system switches between light and dark. */
export function onSystemTheme(fn) {
  darkQuery?.addEventListener?.("change", fn);
}

const ANGLE = { r: 0, d: Math.PI / 2, l: Math.PI, u: -Math.PI / 2 };

/**
 * What of a level is drawn: its floor (inside the walls, and every box, goal and player),
 * the walls that touch the floor (the rest lies outside the outer wall and is left out), and
 * the rectangle they fill: {floor, walls, x0, y0, cols, rows}. Untrimmed (the editor), every
 * wall is drawn and the rectangle is the whole grid.
 */
export function geometry(level, { trim = true } = {}) {
  const w = level.width;
  const floor = interior(level);
  for (const c of [...level.boxes, ...level.goals, ...level.players]) floor.add(c);
  for (const c of level.walls) floor.delete(c);
  const walls = new Set();
  for (const c of level.walls) {
    const x = c % w;
    const y = Math.floor(c / w);
    let touches = false;
    for (let dy = -1; dy <= 1 && !touches; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const nx = x + dx;
        const ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= w || ny >= level.height) continue;
        if (floor.has(ny * w + nx)) { touches = true; break; }
      }
    }
    if (touches || !trim) walls.add(c);
  }
  if (!trim) return { floor, walls, x0: 0, y0: 0, cols: w, rows: level.height };
  let x0 = w;
  let y0 = level.height;
  let x1 = -1;
  let y1 = -1;
  for (const c of [...floor, ...walls]) {
    const x = c % w;
    const y = Math.floor(c / w);
    x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
  }
  if (x1 < 0) { x0 = 0; y0 = 0; x1 = w - 1; y1 = level.height - 1; }
  return { floor, walls, x0, y0, cols: x1 - x0 + 1, rows: y1 - y0 + 1 };
}

/** A rectangle with its own radius at each corner (top-left, top-right, bottom-right, bottom-left). */
function cornerRect(path, x, y, w, h, [tl, tr, br, bl]) {
  path.moveTo(x + tl, y);
  path.lineTo(x + w - tr, y);
  if (tr) path.arcTo(x + w, y, x + w, y + tr, tr); else path.lineTo(x + w, y);
  path.lineTo(x + w, y + h - br);
  if (br) path.arcTo(x + w, y + h, x + w - br, y + h, br); else path.lineTo(x + w, y + h);
  path.lineTo(x + bl, y + h);
  if (bl) path.arcTo(x, y + h, x, y + h - bl, bl); else path.lineTo(x, y + h);
  path.lineTo(x, y + tl);
  if (tl) path.arcTo(x, y, x + tl, y, tl); else path.lineTo(x, y);
  path.closePath();
}

function roundRect(ctx, x, y, w, h, r) {
  ctx.beginPath();
  cornerRect(ctx, x, y, w, h, [r, r, r, r]);
}

/** A small hash of a cell, for the floor's speckles (the same on every draw). */
function hash(c) {
  let h = (c + 1) * 0x9e3779b1;
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca77);
  h ^= h >>> 13;
  return (h >>> 0) / 4294967296;
}

function drawFloor(ctx, level, geo, s, t) {
  const w = level.width;
  for (const c of geo.floor) {
    const x = (c % w) * s;
    const y = Math.floor(c / w) * s;
    ctx.fillStyle = ((c % w) + Math.floor(c / w)) % 2 ? t.floor2 : t.floor;
    ctx.fillRect(x, y, s, s);
    if (t.speck && s >= 12) {
      ctx.fillStyle = t.speck;
      for (let k = 0; k < 3; k++) {
        const a = hash(c * 7 + k);
        const b = hash(c * 13 + k + 3);
        ctx.fillRect(x + a * (s - 3), y + b * (s - 3), Math.max(1, s * 0.05), Math.max(1, s * 0.05));
      }
    }
  }
}

/** The walls as one path: each cell a square, rounded at the corners no other wall meets. */
function wallPath(level, geo, s) {
  const w = level.width;
  const path = new Path2D();
  const r = s * 0.28;
  const has = (x, y) => x >= 0 && y >= 0 && x < w && y < level.height && geo.walls.has(y * w + x);
  for (const c of geo.walls) {
    const x = c % w;
    const y = Math.floor(c / w);
    const n = has(x, y - 1);
    const e = has(x + 1, y);
    const so = has(x, y + 1);
    const we = has(x - 1, y);
    cornerRect(path, x * s, y * s, s, s, [
      !n && !we ? r : 0, !n && !e ? r : 0, !so && !e ? r : 0, !so && !we ? r : 0,
    ]);
  }
  return path;
}

function drawWalls(ctx, level, geo, s, t) {
  const w = level.width;
  const path = wallPath(level, geo, s);
  if (t.shadow) {
    // The walls' shadow falls on the floor below and to the right.
    ctx.save();
    ctx.translate(s * 0.06, s * 0.1);
    ctx.fillStyle = t.shadow;
    ctx.fill(path);
    ctx.restore();
  }
  ctx.fillStyle = t.wall;
  ctx.fill(path);
  if (!t.mortar || s < 8) return;
  ctx.save();
  ctx.clip(path);
  const has = (x, y) => x >= 0 && y >= 0 && x < w && y < level.height && geo.walls.has(y * w + x);
  const line = Math.max(1, Math.round(s * 0.05));
  for (const c of geo.walls) {
    const x = c % w;
    const y = Math.floor(c / w);
    const px = x * s;
    const py = y * s;
    // A lit top edge and a dark bottom edge where the wall meets the floor.
    if (!has(x, y - 1)) { ctx.fillStyle = t.wallTop; ctx.fillRect(px, py, s, s * 0.14); }
    if (!has(x, y + 1)) { ctx.fillStyle = t.wallEdge; ctx.fillRect(px, py + s * 0.86, s, s * 0.14); }
    // Bricks in running bond: two courses a cell, the joints of one course halfway along the other's.
    ctx.fillStyle = t.mortar;
    ctx.fillRect(px, py + s / 2 - line / 2, s, line);
    if (has(x, y - 1)) ctx.fillRect(px, py - line / 2, s, line);
    ctx.fillRect(px + s / 2 - line / 2, py, line, s / 2);
    if (has(x - 1, y)) ctx.fillRect(px - line / 2, py + s / 2, line, s / 2);
  }
  ctx.restore();
}

function drawGoal(ctx, x, y, s, t) {
  const cx = x + s / 2;
  const cy = y + s / 2;
  ctx.fillStyle = t.goalPad;
  roundRect(ctx, x + s * 0.1, y + s * 0.1, s * 0.8, s * 0.8, s * 0.18);
  ctx.fill();
  ctx.strokeStyle = t.goal;
  ctx.lineWidth = Math.max(1, s * 0.07);
  ctx.beginPath();
  ctx.arc(cx, cy, s * 0.24, 0, 2 * Math.PI);
  ctx.stroke();
  ctx.fillStyle = t.goal;
  ctx.beginPath();
  ctx.arc(cx, cy, s * 0.09, 0, 2 * Math.PI);
  ctx.fill();
}

/** A crate off a goal (square, braced); on a goal it turns round-cornered, blue, with a tick. */
function drawBox(ctx, x, y, s, t, onGoal) {
  const line = Math.max(1, s * t.line);
  ctx.lineWidth = line;
  if (!onGoal) {
    const i = s * 0.08;
    const side = s - 2 * i;
    ctx.fillStyle = t.box;
    roundRect(ctx, x + i, y + i, side, side, s * 0.06);
    ctx.fill();
    ctx.fillStyle = t.boxLight;
    ctx.fillRect(x + i + line, y + i + line, side - 2 * line, s * 0.08);
    ctx.strokeStyle = t.boxDark;
    roundRect(ctx, x + i, y + i, side, side, s * 0.06);
    ctx.stroke();
    const f = s * 0.2;
    ctx.strokeRect(x + f, y + f, s - 2 * f, s - 2 * f);
    ctx.beginPath();
    ctx.moveTo(x + f, y + f);
    ctx.lineTo(x + s - f, y + s - f);
    ctx.moveTo(x + s - f, y + f);
    ctx.lineTo(x + f, y + s - f);
    ctx.stroke();
    return;
  }
  const i = s * 0.1;
  const side = s - 2 * i;
  ctx.fillStyle = t.boxGoal;
  roundRect(ctx, x + i, y + i, side, side, s * 0.3);
  ctx.fill();
  ctx.fillStyle = t.boxGoalLight;
  ctx.beginPath();
  ctx.arc(x + s * 0.36, y + s * 0.34, s * 0.09, 0, 2 * Math.PI);
  ctx.fill();
  ctx.strokeStyle = t.boxGoalDark;
  roundRect(ctx, x + i, y + i, side, side, s * 0.3);
  ctx.stroke();
  ctx.strokeStyle = t.boxGoalMark;
  ctx.lineWidth = Math.max(1.5, s * 0.09);
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  ctx.beginPath();
  ctx.moveTo(x + s * 0.32, y + s * 0.52);
  ctx.lineTo(x + s * 0.45, y + s * 0.65);
  ctx.lineTo(x + s * 0.69, y + s * 0.38);
  ctx.stroke();
  ctx.lineCap = "butt";
  ctx.lineJoin = "miter";
}

/** The player seen from above, turned to face `facing` (l, u, r, d): a visor and eyes in front. */
function drawPlayer(ctx, x, y, s, t, facing) {
  ctx.save();
  ctx.translate(x + s / 2, y + s / 2);
  ctx.rotate(ANGLE[facing] ?? ANGLE.d);
  const line = Math.max(1, s * t.line);
  ctx.fillStyle = t.player;
  ctx.beginPath();
  ctx.arc(0, 0, s * 0.33, 0, 2 * Math.PI);
  ctx.fill();
  ctx.fillStyle = t.playerLight;
  ctx.beginPath();
  ctx.arc(-s * 0.05, 0, s * 0.22, 0, 2 * Math.PI);
  ctx.fill();
  ctx.strokeStyle = t.playerAccent;
  ctx.lineWidth = Math.max(2, s * 0.1);
  ctx.lineCap = "round";
  ctx.beginPath();
  ctx.arc(0, 0, s * 0.27, -0.95, 0.95);
  ctx.stroke();
  ctx.lineCap = "butt";
  ctx.lineWidth = line;
  ctx.strokeStyle = t.playerOutline || t.player;
  ctx.beginPath();
  ctx.arc(0, 0, s * 0.33, 0, 2 * Math.PI);
  ctx.stroke();
  for (const side of [-1, 1]) {
    ctx.fillStyle = t.eye;
    ctx.beginPath();
    ctx.arc(s * 0.1, side * s * 0.1, s * 0.065, 0, 2 * Math.PI);
    ctx.fill();
    ctx.fillStyle = t.pupil;
    ctx.beginPath();
    ctx.arc(s * 0.13, side * s * 0.1, s * 0.032, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.restore();
}

const ease = (t) => (t < 0.5 ? 2 * t * t : 1 - ((-2 * t + 2) ** 2) / 2);

/**
 * Draw a position at `s` pixels a cell. `opts`: theme (a name), geo (the level's cached
 * geometry), targets (cells to mark), selected (a box cell), dead (box cells), facing (the
 * player's direction), motion ({player: [from, to], box: [from, to] | null, t}: the position
 * is the one after the step), overlay(ctx, s) drawn last in the board's own coordinates.
 */
export function paint(ctx, level, s, opts = {}) {
  const t = THEMES[resolveTheme(opts.theme)];
  const geo = opts.geo || geometry(level);
  const w = level.width;
  const xy = (c) => [(c % w) * s, Math.floor(c / w) * s];
  ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
  ctx.save();
  ctx.translate(-geo.x0 * s, -geo.y0 * s);
  drawFloor(ctx, level, geo, s, t);
  drawWalls(ctx, level, geo, s, t);
  for (const g of level.goals) {
    if (level.boxes.has(g)) continue;
    const [x, y] = xy(g);
    drawGoal(ctx, x, y, s, t);
  }
  if (opts.targets) {
    // Where the selected box can go: soft rounded marks, under any box or player.
    ctx.fillStyle = t.target;
    ctx.globalAlpha = 0.4;
    for (const c of opts.targets) {
      const [x, y] = xy(c);
      roundRect(ctx, x + s * 0.28, y + s * 0.28, s * 0.44, s * 0.44, s * 0.1);
      ctx.fill();
    }
    ctx.globalAlpha = 1;
  }
  const motion = opts.motion;
  const k = motion ? ease(motion.t) : 1;
  const at = (from, to) => {
    const [x0, y0] = xy(from);
    const [x1, y1] = xy(to);
    return [x0 + (x1 - x0) * k, y0 + (y1 - y0) * k];
  };
  for (const b of level.boxes) {
    let [x, y] = xy(b);
    if (motion && motion.box && motion.box[1] === b) [x, y] = at(motion.box[0], b);
    // A box reaching a goal changes as it arrives (past halfway), leaving one as it leaves.
    const onGoal = motion && motion.box && motion.box[1] === b && k < 0.5
      ? level.goals.has(motion.box[0]) : level.goals.has(b);
    drawBox(ctx, x, y, s, t, onGoal);
    if (opts.dead && opts.dead.has(b)) {
      ctx.strokeStyle = t.dead;
      ctx.lineWidth = Math.max(2, s * 0.09);
      ctx.beginPath();
      ctx.moveTo(x + s * 0.18, y + s * 0.18);
      ctx.lineTo(x + s * 0.82, y + s * 0.82);
      ctx.moveTo(x + s * 0.82, y + s * 0.18);
      ctx.lineTo(x + s * 0.18, y + s * 0.82);
      ctx.stroke();
    }
    if (opts.selected === b) {
      ctx.strokeStyle = t.selected;
      ctx.lineWidth = Math.max(2, s * 0.07);
      ctx.setLineDash([Math.max(2, s * 0.1), Math.max(2, s * 0.06)]);
      ctx.strokeRect(x + 1, y + 1, s - 2, s - 2);
      ctx.setLineDash([]);
    }
  }
  for (const p of level.players) {
    let [x, y] = xy(p);
    if (motion && motion.player && motion.player[1] === p) [x, y] = at(motion.player[0], p);
    drawPlayer(ctx, x, y, s, t, opts.facing || "d");
  }
  if (opts.overlay) opts.overlay(ctx, s);
  ctx.restore();
}

/** A canvas that shows one board, sized to fit its parent element. */
export class BoardView {
  /**
   * `maxCell`: CSS pixels a cell at most; `below`: CSS pixels kept free under the board (the
   * controls there), a number or a function giving it.
   */
  constructor(canvas, { maxCell = 72, below = 60 } = {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.maxCell = maxCell;
    this.below = below;
    this.level = null;
    this.geo = null;
    this.cell = 0; // device pixels a cell
    this.opts = {};
  }

  /** A new board (walls and goals); its geometry (floor, walls drawn, trim) is cached. */
  setLevel(level) {
    this.level = level;
    this.geo = geometry(level);
    const { dataset } = this.canvas;
    dataset.cols = String(this.geo.cols);
    dataset.rows = String(this.geo.rows);
    dataset.col0 = String(this.geo.x0);
    dataset.row0 = String(this.geo.y0);
    this.fit();
  }

  /**
   * Size the canvas to its parent's width and to the window's height below the parent's
   * top (less `below`), whole device pixels a cell.
   */
  fit() {
    if (!this.level) return;
    const parent = this.canvas.parentElement;
    const dpr = window.devicePixelRatio || 1;
    const top = parent.getBoundingClientRect().top + window.scrollY;
    const below = typeof this.below === "function" ? this.below() : this.below;
    const availW = Math.max(60, parent.clientWidth);
    const availH = Math.max(120, window.innerHeight - top - below);
    const { cols, rows } = this.geo;
    const css = Math.min(this.maxCell, availW / cols, availH / rows);
    const cell = Math.max(4, Math.floor(css * dpr));
    this.cell = cell;
    this.canvas.width = cell * cols;
    this.canvas.height = cell * rows;
    this.canvas.style.width = `${(cell * cols) / dpr}px`;
    this.canvas.style.height = `${(cell * rows) / dpr}px`;
  }

  /** Draw `position` (a level with its boxes and player) with the marks in `opts`. */
  draw(position, opts = {}) {
    this.position = position;
    this.opts = opts;
    paint(this.ctx, position, this.cell, { ...opts, geo: this.geo });
  }

  redraw() {
    if (this.position) this.draw(this.position, this.opts);
  }

  /** The cell under a client (CSS pixel) point, or null off the board. */
  cellAt(clientX, clientY) {
    if (!this.level) return null;
    const rect = this.canvas.getBoundingClientRect();
    const { cols, rows, x0, y0 } = this.geo;
    const x = Math.floor(((clientX - rect.left) / rect.width) * cols);
    const y = Math.floor(((clientY - rect.top) / rect.height) * rows);
    if (x < 0 || y < 0 || x >= cols || y >= rows) return null;
    return (y + y0) * this.level.width + (x + x0);
  }
}

/** Draw a small picture of a level into `canvas`, at most `size` CSS pixels a side. */
export function thumbnail(canvas, level, size, theme) {
  const dpr = window.devicePixelRatio || 1;
  const geo = geometry(level);
  const cell = Math.max(2, Math.floor((size * dpr) / Math.max(geo.cols, geo.rows)));
  canvas.width = cell * geo.cols;
  canvas.height = cell * geo.rows;
  canvas.style.width = `${(cell * geo.cols) / dpr}px`;
  canvas.style.height = `${(cell * geo.rows) / dpr}px`;
  paint(canvas.getContext("2d"), level, cell, { theme, geo });
}
