// The board on a canvas: the look of `sokoban render` (sokoban/render.py), drawn in code,
// scaled to fit its box and crisp on high-DPI screens (the backing store counts device
// pixels, each cell a whole number of them).

import { interior } from "./rules.js";

/** render.COLOURS, and a colour-blind-safe variant (Okabe-Ito hues). */
export const PALETTES = {
  classic: {
    wall: "#4b5263", wall_edge: "#3a404e", floor: "#efe9dc", goal: "#e0533d",
    box: "#d59a4e", box_edge: "#8c5a24", box_on_goal: "#4caf72", box_on_goal_edge: "#2b7a4b",
    player: "#3d7bd9", player_edge: "#1f4d99",
  },
  safe: {
    wall: "#4b5263", wall_edge: "#33383f", floor: "#f2efe8", goal: "#d55e00",
    box: "#e69f00", box_edge: "#8a5f00", box_on_goal: "#56b4e9", box_on_goal_edge: "#1f6f9e",
    player: "#0072b2", player_edge: "#003f63",
  },
};
const MARK = { target: "#1b9e77", selected: "#111111", dead: "#c0392b" };

// Proportions of a cell, as in render.py.
const GOAL_RADIUS = 0.16;
const BOX_INSET = 0.1;
const BOX_ROUND = 0.12;
const BOX_INNER = 0.24;
const PLAYER_RADIUS = 0.3;
const LINE = 0.06;
const PLAYER_GOAL_RADIUS = 0.1;

function floorCells(level) {
  const cells = interior(level);
  for (const c of [...level.boxes, ...level.goals, ...level.players]) cells.add(c);
  for (const w of level.walls) cells.delete(w);
  return cells;
}

function roundRect(ctx, x, y, w, h, r) {
  ctx.beginPath();
  ctx.moveTo(x + r, y);
  ctx.arcTo(x + w, y, x + w, y + h, r);
  ctx.arcTo(x + w, y + h, x, y + h, r);
  ctx.arcTo(x, y + h, x, y, r);
  ctx.arcTo(x, y, x + w, y, r);
  ctx.closePath();
}

/**
 * Draw a position at `s` pixels a cell. `opts`: palette, floor (cached floor cells),
 * targets (cells to mark), selected (a box cell), dead (box cells), motion
 * ({player: [from, to], box: [from, to] | null, t}: the position is the one after the step).
 */
export function paint(ctx, level, s, opts = {}) {
  const colours = PALETTES[opts.palette] || PALETTES.classic;
  const w = level.width;
  const xy = (c) => [(c % w) * s, Math.floor(c / w) * s];
  ctx.clearRect(0, 0, level.width * s, level.height * s);
  ctx.fillStyle = colours.floor;
  for (const c of opts.floor || floorCells(level)) {
    const [x, y] = xy(c);
    ctx.fillRect(x, y, s, s);
  }
  const edge = Math.max(1, (s * LINE) / 2);
  ctx.lineWidth = edge;
  for (const c of level.walls) {
    const [x, y] = xy(c);
    ctx.fillStyle = colours.wall;
    ctx.fillRect(x, y, s, s);
    ctx.strokeStyle = colours.wall_edge;
    ctx.strokeRect(x + edge / 2, y + edge / 2, s - edge, s - edge);
  }
  const disc = (cx, cy, r, fill) => {
    ctx.beginPath();
    ctx.arc(cx, cy, r, 0, 2 * Math.PI);
    ctx.fillStyle = fill;
    ctx.fill();
  };
  const motion = opts.motion;
  const lerp = (a, b, t) => a + (b - a) * t;
  const at = (from, to) => {
    const [x0, y0] = xy(from);
    const [x1, y1] = xy(to);
    return [lerp(x0, x1, motion.t), lerp(y0, y1, motion.t)];
  };
  for (const g of level.goals) {
    if (level.boxes.has(g) || level.players.has(g)) continue;
    const [x, y] = xy(g);
    disc(x + s / 2, y + s / 2, GOAL_RADIUS * s, colours.goal);
  }
  if (opts.targets) {
    // Where the selected box can go: soft rounded marks, under any box or player.
    ctx.fillStyle = MARK.target;
    ctx.globalAlpha = 0.35;
    for (const c of opts.targets) {
      const [x, y] = xy(c);
      roundRect(ctx, x + s * 0.28, y + s * 0.28, s * 0.44, s * 0.44, s * 0.1);
      ctx.fill();
    }
    ctx.globalAlpha = 1;
  }
  const line = Math.max(1, LINE * s);
  ctx.lineWidth = line;
  for (const b of level.boxes) {
    let [x, y] = xy(b);
    if (motion && motion.box && motion.box[1] === b) [x, y] = at(motion.box[0], b);
    const onGoal = level.goals.has(b);
    const kind = onGoal ? "box_on_goal" : "box";
    const inset = BOX_INSET * s;
    ctx.fillStyle = colours[kind];
    ctx.strokeStyle = colours[kind + "_edge"];
    roundRect(ctx, x + inset, y + inset, s - 2 * inset, s - 2 * inset, BOX_ROUND * s);
    ctx.fill();
    ctx.stroke();
    if (onGoal) {
      // On a goal the inner square becomes a disc: told apart by shape, not only colour.
      ctx.beginPath();
      ctx.arc(x + s / 2, y + s / 2, (0.5 - BOX_INNER) * s, 0, 2 * Math.PI);
      ctx.stroke();
      disc(x + s / 2, y + s / 2, GOAL_RADIUS * s * 0.8, colours[kind + "_edge"]);
    } else {
      const inner = BOX_INNER * s;
      ctx.strokeRect(x + inner, y + inner, s - 2 * inner, s - 2 * inner);
    }
    if (opts.dead && opts.dead.has(b)) {
      ctx.strokeStyle = MARK.dead;
      ctx.lineWidth = Math.max(2, s * 0.08);
      ctx.beginPath();
      ctx.moveTo(x + s * 0.2, y + s * 0.2);
      ctx.lineTo(x + s * 0.8, y + s * 0.8);
      ctx.moveTo(x + s * 0.8, y + s * 0.2);
      ctx.lineTo(x + s * 0.2, y + s * 0.8);
      ctx.stroke();
      ctx.lineWidth = line;
    }
    if (opts.selected === b) {
      ctx.strokeStyle = MARK.selected;
      ctx.lineWidth = Math.max(2, s * 0.07);
      ctx.setLineDash([Math.max(2, s * 0.1), Math.max(2, s * 0.06)]);
      ctx.strokeRect(x + 1, y + 1, s - 2, s - 2);
      ctx.setLineDash([]);
      ctx.lineWidth = line;
    }
  }
  for (const p of level.players) {
    let [x, y] = xy(p);
    if (motion && motion.player && motion.player[1] === p) [x, y] = at(motion.player[0], p);
    const cx = x + s / 2;
    const cy = y + s / 2;
    ctx.beginPath();
    ctx.arc(cx, cy, PLAYER_RADIUS * s, 0, 2 * Math.PI);
    ctx.fillStyle = colours.player;
    ctx.fill();
    ctx.strokeStyle = colours.player_edge;
    ctx.stroke();
    if (level.goals.has(p)) disc(cx, cy, PLAYER_GOAL_RADIUS * s, colours.goal);
  }
}

/** A canvas that shows one board, sized to fit its parent element. */
export class BoardView {
  constructor(canvas, { maxCell = 72 } = {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.maxCell = maxCell;
    this.level = null;
    this.floor = null;
    this.cell = 0; // device pixels a cell
    this.opts = {};
  }

  /** A new board (walls and goals); the floor is cached. */
  setLevel(level) {
    this.level = level;
    this.floor = floorCells(level);
    this.canvas.dataset.cols = String(level.width);
    this.canvas.dataset.rows = String(level.height);
    this.fit();
  }

  /** Size the canvas to the parent's box: whole device pixels a cell. */
  fit() {
    if (!this.level) return;
    const parent = this.canvas.parentElement;
    const dpr = window.devicePixelRatio || 1;
    const availW = Math.max(60, parent.clientWidth);
    const availH = Math.max(60, parent.clientHeight || window.innerHeight * 0.7);
    const css = Math.min(this.maxCell, availW / this.level.width, availH / this.level.height);
    const cell = Math.max(4, Math.floor(css * dpr));
    this.cell = cell;
    this.canvas.width = cell * this.level.width;
    this.canvas.height = cell * this.level.height;
    this.canvas.style.width = `${(cell * this.level.width) / dpr}px`;
    this.canvas.style.height = `${(cell * this.level.height) / dpr}px`;
  }

  /** Draw `position` (a level with its boxes and player) with the marks in `opts`. */
  draw(position, opts = {}) {
    this.position = position;
    this.opts = opts;
    paint(this.ctx, position, this.cell, { ...opts, floor: this.floor });
  }

  redraw() {
    if (this.position) this.draw(this.position, this.opts);
  }

  /** The cell under a client (CSS pixel) point, or null off the board. */
  cellAt(clientX, clientY) {
    if (!this.level) return null;
    const rect = this.canvas.getBoundingClientRect();
    const x = Math.floor(((clientX - rect.left) / rect.width) * this.level.width);
    const y = Math.floor(((clientY - rect.top) / rect.height) * this.level.height);
    if (x < 0 || y < 0 || x >= this.level.width || y >= this.level.height) return null;
    return y * this.level.width + x;
  }
}

/** Draw a small picture of a level into `canvas`, at most `size` CSS pixels a side. */
export function thumbnail(canvas, level, size, palette) {
  const dpr = window.devicePixelRatio || 1;
  const cell = Math.max(2, Math.floor((size * dpr) / Math.max(level.width, level.height)));
  canvas.width = cell * level.width;
  canvas.height = cell * level.height;
  canvas.style.width = `${(cell * level.width) / dpr}px`;
  canvas.style.height = `${(cell * level.height) / dpr}px`;
  paint(canvas.getContext("2d"), level, cell, { palette });
}
