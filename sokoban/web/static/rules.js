// The game rules, pure and without the DOM: they mirror sokoban.xsb (boards, RLE),
// sokoban.level (problems), sokoban.lurd (replay, metrics, walks) and sokoban.game (play).
// The browser tests replay a corpus made by the Python side through this module, so that
// the two cannot drift apart.
//
// Cells are ints, y * width + x, as in Python. A level is a plain object:
// {width, height, walls: Set, goals: Set, boxes: Set, player: int | null, players: Set}.

export const DIRECTIONS = ["l", "u", "r", "d"];
const DX = { l: -1, u: 0, r: 1, d: 0 };
const DY = { l: 0, u: -1, r: 0, d: 1 };
export const OPPOSITE = { l: "r", r: "l", u: "d", d: "u" };

export const MAX_SIDE = 100;
export const MAX_STEPS = 1_000_000;

/** A malformed input; `line` (1-based) or `position` (0-based) says where, when known. */
export class RulesError extends Error {
  constructor(message, { line = null, position = null } = {}) {
    super(message);
    this.name = "RulesError";
    this.line = line;
    this.position = position;
  }
}

/** A step that cannot be played: `index` is its 0-based position in the solution. */
export class IllegalMove extends Error {
  constructor(reason, index, letter) {
    super(`illegal step ${index + 1}${letter ? ` (${letter})` : ""}: ${reason}`);
    this.name = "IllegalMove";
    this.reason = reason;
    this.index = index;
    this.letter = letter;
  }
}

// --- run-length decoding (sokoban._rle) ------------------------------------------------------

/** Expand runs (`3#`) and groups (`2(lr)`), at most `limit` characters; mirrors _rle.decode. */
export function decodeRle(text, limit, { maxDepth = 16, skipSpace = false } = {}) {
  let pos = 0;
  let size = 0;
  const isSpace = (c) => /\s/.test(c);
  function group(depth) {
    const out = [];
    while (pos < text.length) {
      const start = pos;
      if (skipSpace && isSpace(text[pos])) {
        pos += 1;
        continue;
      }
      let count = 0;
      let digits = false;
      while (pos < text.length && text[pos] >= "0" && text[pos] <= "9") {
        count = count * 10 + (text.charCodeAt(pos) - 48);
        digits = true;
        pos += 1;
        if (count > limit) throw new RulesError("run length too large", { position: start });
      }
      if (!digits) count = 1;
      if (pos >= text.length) {
        throw new RulesError("run length with nothing after it", { position: start });
      }
      const c = text[pos];
      pos += 1;
      if (skipSpace && isSpace(c)) {
        throw new RulesError("white space after a run length", { position: pos - 1 });
      }
      let piece;
      if (c === ")") {
        if (digits) throw new RulesError("run length before ')'", { position: start });
        if (depth === 0) throw new RulesError("unmatched ')'", { position: start });
        return out.join("");
      }
      if (c === "(") {
        if (depth >= maxDepth) throw new RulesError("groups nested too deep", { position: start });
        const before = size;
        piece = group(depth + 1);
        size = before;
      } else {
        piece = c;
      }
      size += piece.length * count;
      if (size > limit) {
        throw new RulesError(`longer than ${limit} once decoded`, { position: start });
      }
      out.push(piece.repeat(count));
    }
    if (depth) throw new RulesError("unclosed '('", { position: text.length });
    return out.join("");
  }
  return group(0);
}

// --- boards (sokoban.xsb) --------------------------------------------------------------------

const BOARD_CHARS = {
  "#": "#", " ": " ", "-": " ", _: " ", ".": ".", $: "$", b: "$", "*": "*", B: "*",
  "@": "@", p: "@", "+": "+", P: "+",
};
const RLE_CHARS = "0123456789()|";

/** Whether a line is a board row: board characters (or RLE) including a wall. */
export function isBoardLine(text) {
  const stripped = text.replace(/\s+$/, "");
  if (!stripped.includes("#")) return false;
  for (const c of stripped) {
    if (!(c in BOARD_CHARS) && !RLE_CHARS.includes(c)) return false;
  }
  return true;
}

function decodeRows(numbered) {
  const rows = [];
  for (const [number, raw] of numbered) {
    const text = raw.replace(/\s+$/, "");
    let parts = [text];
    if ([...text].some((c) => RLE_CHARS.includes(c))) {
      try {
        parts = decodeRle(text, MAX_SIDE * (MAX_SIDE + 1)).split("|");
      } catch (error) {
        throw new RulesError(`${error.message} in a board row`, { line: number });
      }
    }
    for (const part of parts) {
      let row = "";
      for (const c of part) {
        if (!(c in BOARD_CHARS)) {
          throw new RulesError(`unexpected character '${c}' in a board row`, { line: number });
        }
        row += BOARD_CHARS[c];
      }
      row = row.replace(/\s+$/, "");
      if (row.length > MAX_SIDE) {
        throw new RulesError(`board row longer than ${MAX_SIDE} cells`, { line: number });
      }
      rows.push(row);
    }
    if (rows.length > MAX_SIDE) {
      throw new RulesError(`board has more than ${MAX_SIDE} rows`, { line: number });
    }
  }
  return rows;
}

/** A level from rows of canonical characters (mirrors xsb.level_from_rows). */
export function levelFromRows(rows) {
  rows = rows.map((r) => r.replace(/\s+$/, ""));
  while (rows.length && !rows[rows.length - 1]) rows.pop();
  while (rows.length && !rows[0]) rows.shift();
  if (!rows.length) throw new RulesError("no board");
  const width = Math.max(...rows.map((r) => r.length));
  const level = {
    width, height: rows.length,
    walls: new Set(), goals: new Set(), boxes: new Set(), players: new Set(),
  };
  rows.forEach((row, y) => {
    [...row].forEach((c, x) => {
      const cell = y * width + x;
      if (c === "#") level.walls.add(cell);
      else if (c === ".") level.goals.add(cell);
      else if (c === "$") level.boxes.add(cell);
      else if (c === "*") { level.boxes.add(cell); level.goals.add(cell); }
      else if (c === "@") level.players.add(cell);
      else if (c === "+") { level.players.add(cell); level.goals.add(cell); }
    });
  });
  level.player = level.players.size ? Math.min(...level.players) : null;
  return level;
}

/**
 * The first board in XSB text: the first run of board lines (plain, RLE, or `|`-joined),
 * other lines (titles, metadata) skipped. Errors name the 1-based line.
 */
export function parseBoard(text) {
  const lines = text.split(/\r\n|\r|\n/);
  const board = [];
  let started = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (isBoardLine(line) && !line.trim().startsWith(";")) {
      board.push([i + 1, line]);
      started = true;
    } else if (started) {
      break;
    }
  }
  if (!board.length) throw new RulesError("no board rows in the text");
  return levelFromRows(decodeRows(board));
}

/** A level from the server's JSON form ({width, height, walls: [[r, c]], ...}). */
export function levelFromJson(json) {
  const { width, height } = json;
  const cells = (list) => new Set((list || []).map(([r, c]) => r * width + c));
  const players = json.player ? new Set([json.player[0] * width + json.player[1]]) : new Set();
  return {
    width, height,
    walls: cells(json.walls), goals: cells(json.goals), boxes: cells(json.boxes), players,
    player: players.size ? Math.min(...players) : null,
  };
}

/** The character of one cell, canonical XSB. */
export function cellChar(level, cell) {
  if (level.walls.has(cell)) return "#";
  const goal = level.goals.has(cell);
  if (level.boxes.has(cell)) return goal ? "*" : "$";
  if (level.players.has(cell)) return goal ? "+" : "@";
  return goal ? "." : " ";
}

/** Run-length encode one row: runs of two or more become `<count><char>`, floor is `-`. */
export function encodeRle(row) {
  row = row.replaceAll(" ", "-");
  let out = "";
  let i = 0;
  while (i < row.length) {
    let j = i;
    while (j < row.length && row[j] === row[i]) j++;
    out += j - i > 1 ? `${j - i}${row[i]}` : row[i];
    i = j;
  }
  return out;
}

/** Canonical XSB rows (trailing spaces trimmed); RLE rows are joined by `|`. */
export function formatBoard(level, { rle = false } = {}) {
  const rows = [];
  for (let y = 0; y < level.height; y++) {
    let row = "";
    for (let x = 0; x < level.width; x++) row += cellChar(level, y * level.width + x);
    rows.push(row.replace(/\s+$/, ""));
  }
  return rle ? rows.map(encodeRle).join("|") : rows.join("\n");
}

/** The same board with other boxes and/or player. */
export function moved(level, boxes, player) {
  const out = { ...level };
  if (boxes) out.boxes = new Set(boxes);
  if (player !== undefined && player !== null) {
    out.players = new Set([player]);
    out.player = player;
  }
  return out;
}

export function neighbour(level, cell, d) {
  const x = (cell % level.width) + DX[d];
  const y = Math.floor(cell / level.width) + DY[d];
  if (x < 0 || y < 0 || x >= level.width || y >= level.height) return null;
  return y * level.width + x;
}

export function isSolved(level) {
  if (level.boxes.size !== level.goals.size) return false;
  for (const b of level.boxes) if (!level.goals.has(b)) return false;
  return true;
}

function flood(level, starts, blocked) {
  const seen = new Set(starts);
  const todo = [...seen];
  while (todo.length) {
    const cell = todo.pop();
    for (const d of DIRECTIONS) {
      const n = neighbour(level, cell, d);
      if (n !== null && !seen.has(n) && !level.walls.has(n) && !(blocked && blocked.has(n))) {
        seen.add(n);
        todo.push(n);
      }
    }
  }
  return seen;
}

/** Cells reachable from the player through non-walls, boxes ignored (Level.interior). */
export function interior(level) {
  const starts = level.players.size ? level.players : new Set([...level.boxes, ...level.goals]);
  return flood(level, starts, null);
}

/** The first cell (row by row) of the player's region on the border of the grid, where the
 * wall is open (Level.gap()), or null when the region is enclosed. */
function wallGap(level, inside) {
  const w = level.width;
  const h = level.height;
  let gap = null;
  for (const c of inside) {
    const x = c % w;
    const y = Math.floor(c / w);
    if ((x === 0 || y === 0 || x === w - 1 || y === h - 1) && (gap === null || c < gap)) gap = c;
  }
  return gap;
}

/** What makes a level unplayable, as Level.problems() words it (empty when playable). */
export function problems(level) {
  const out = [];
  const n = level.players.size;
  if (!n) out.push("no player");
  else if (n > 1) out.push("several players");
  if (!level.boxes.size) out.push("no boxes");
  if (level.boxes.size !== level.goals.size) out.push("boxes and goals differ in number");
  if (n) {
    const inside = interior(level);
    if ([...level.boxes].some((b) => !inside.has(b) && !level.goals.has(b))) {
      out.push("a box off goal that the player can never reach");
    }
    if ([...level.goals].some((g) => !inside.has(g) && !level.boxes.has(g))) {
      out.push("an empty goal that the player can never reach");
    }
    const gap = wallGap(level, inside);
    if (gap !== null) {
      const row = Math.floor(gap / level.width) + 1;
      const column = (gap % level.width) + 1;
      out.push(`the wall is open at row ${row}, column ${column}: the player can walk off the board`);
    }
  }
  return out;
}

// --- solutions (sokoban.lurd) ----------------------------------------------------------------

/** Parse LURD (any case, white space ignored, runs and groups expanded) into steps. */
export function parseLurd(text) {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (!"lurdLURD0123456789()".includes(c) && !/\s/.test(c)) {
      throw new RulesError(`unexpected character '${c}' at position ${i}`, { position: i });
    }
  }
  const decoded = decodeRle(text, MAX_STEPS, { skipSpace: true });
  return [...decoded].map((c) => ({ d: c.toLowerCase(), push: c !== c.toLowerCase() }));
}

/** Canonical LURD of steps: lower case walks, upper case pushes. */
export function formatLurd(steps) {
  return steps.map((s) => (s.push ? s.d.toUpperCase() : s.d)).join("");
}

/** Metrics of played steps (with their real push flags and the box each pushed). */
function metricsOf(steps, pushedIds) {
  let boxLines = 0;
  let boxChanges = 0;
  let sessions = 0;
  let playerLines = 0;
  let lastBox = -1;
  let lastDir = null;
  let lastPush = false;
  let p = 0;
  for (const step of steps) {
    if (step.push) {
      const ident = pushedIds[p++];
      if (ident !== lastBox) boxChanges += 1;
      if (!(lastPush && ident === lastBox && step.d === lastDir)) boxLines += 1;
      if (!lastPush) sessions += 1;
      lastBox = ident;
    }
    if (step.d !== lastDir) playerLines += 1;
    lastDir = step.d;
    lastPush = step.push;
  }
  return {
    moves: steps.length,
    pushes: pushedIds.length,
    box_lines: boxLines,
    box_changes: boxChanges,
    pushing_sessions: sessions,
    player_lines: playerLines,
  };
}

/**
 * Play `solution` (LURD text or steps) from `level`; mirrors sokoban.lurd.replay. Returns
 * {final, steps, metrics, pushedCells, solved}; an illegal step throws IllegalMove.
 */
export function replay(level, solution) {
  const steps = typeof solution === "string" ? parseLurd(solution) : solution;
  if (level.players.size !== 1) throw new IllegalMove("the level needs exactly one player", 0, "");
  const { width, height, walls } = level;
  const boxes = new Set(level.boxes);
  let player = level.player;
  const played = [];
  const pushed = [];
  const pushedIds = [];
  const ids = new Map([...boxes].sort((a, b) => a - b).map((cell, i) => [cell, i]));
  steps.forEach(({ d }, index) => {
    const x = (player % width) + DX[d];
    const y = Math.floor(player / width) + DY[d];
    if (x < 0 || y < 0 || x >= width || y >= height) throw new IllegalMove("off the board", index, d);
    const target = y * width + x;
    if (walls.has(target)) throw new IllegalMove("into a wall", index, d);
    const push = boxes.has(target);
    if (push) {
      const bx = x + DX[d];
      const by = y + DY[d];
      const beyond = by * width + bx;
      if (bx < 0 || by < 0 || bx >= width || by >= height || walls.has(beyond) || boxes.has(beyond)) {
        throw new IllegalMove("the box cannot move there", index, d.toUpperCase());
      }
      boxes.delete(target);
      boxes.add(beyond);
      const ident = ids.get(target);
      ids.delete(target);
      ids.set(beyond, ident);
      pushed.push(target);
      pushedIds.push(ident);
    }
    player = target;
    played.push({ d, push });
  });
  const final = moved(level, boxes, player);
  return {
    final, steps: played, metrics: metricsOf(played, pushedIds), pushedCells: pushed,
    solved: isSolved(final),
  };
}

/** Metrics of a list of steps from `level` (replays them: push flags are not trusted). */
export function metrics(level, steps) {
  return replay(level, steps).metrics;
}

// --- paths -----------------------------------------------------------------------------------

/** BFS distances and parents over free cells from `start`; boxes and walls block. */
function walkTree(level, start, boxes) {
  const parent = new Map([[start, null]]);
  const dist = new Map([[start, 0]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const cell = queue[i];
    for (const d of DIRECTIONS) {
      const n = neighbour(level, cell, d);
      if (n === null || parent.has(n) || level.walls.has(n) || boxes.has(n)) continue;
      parent.set(n, [cell, d]);
      dist.set(n, dist.get(cell) + 1);
      queue.push(n);
    }
  }
  return { parent, dist };
}

function pathTo(tree, goal) {
  const out = [];
  let cell = goal;
  while (tree.parent.get(cell)) {
    const [prev, d] = tree.parent.get(cell);
    out.push(d);
    cell = prev;
  }
  return out.reverse();
}

/** A shortest walk (directions, no pushes) from the player to `goal`, or null. */
export function walkPath(level, goal, start = level.player) {
  if (level.walls.has(goal) || level.boxes.has(goal)) return null;
  const tree = walkTree(level, start, level.boxes);
  if (!tree.parent.has(goal)) return null;
  return pathTo(tree, goal);
}

/** Cells the player can walk to without pushing. */
export function reachable(level, start = level.player) {
  return new Set(walkTree(level, start, level.boxes).parent.keys());
}

/**
 * Where the box at `box` can be pushed, the others standing still: a Map from each cell it can
 * reach to the directions that take it there with the fewest pushes, then the fewest moves.
 * A search over (box cell, side the player pushes from) states, costs (pushes, moves).
 */
export function pushTargets(level, box) {
  if (!level.boxes.has(box) || level.player === null) return new Map();
  const others = new Set(level.boxes);
  others.delete(box);
  const BIG = 1 << 20;
  // State key: box * 4 + index of the direction of the push that brought it there.
  const best = new Map();
  const from = new Map();
  const heap = [];
  const push = (item) => {
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heap[p][0] <= heap[i][0]) break;
      [heap[p], heap[i]] = [heap[i], heap[p]];
      i = p;
    }
  };
  const pop = () => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && heap[l][0] < heap[m][0]) m = l;
        if (r < heap.length && heap[r][0] < heap[m][0]) m = r;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i], heap[m]];
        i = m;
      }
    }
    return top;
  };
  const expand = (cost, boxAt, playerAt, key) => {
    const blocked = new Set(others);
    blocked.add(boxAt);
    const tree = walkTree(level, playerAt, blocked);
    DIRECTIONS.forEach((d, di) => {
      const side = neighbour(level, boxAt, OPPOSITE[d]);
      const next = neighbour(level, boxAt, d);
      if (side === null || next === null || !tree.dist.has(side)) return;
      if (level.walls.has(next) || others.has(next)) return;
      const nkey = next * 4 + di;
      const ncost = cost + BIG + tree.dist.get(side) + 1;
      if (best.has(nkey) && best.get(nkey) <= ncost) return;
      best.set(nkey, ncost);
      from.set(nkey, { key, walk: pathTo(tree, side), d });
      push([ncost, next, boxAt, nkey]);
    });
  };
  expand(0, box, level.player, null);
  const done = new Set();
  const targets = new Map();
  while (heap.length) {
    const [cost, boxAt, playerAt, key] = pop();
    if (done.has(key) || best.get(key) !== cost) continue;
    done.add(key);
    if (!targets.has(boxAt) || targets.get(boxAt)[0] > cost) targets.set(boxAt, [cost, key]);
    expand(cost, boxAt, playerAt, key);
  }
  const out = new Map();
  for (const [cell, [, key]] of targets) {
    if (cell === box) continue;
    const dirs = [];
    for (let k = key; k !== null; k = from.get(k).key) {
      const step = from.get(k);
      dirs.unshift(...step.walk, step.d);
    }
    out.set(cell, dirs);
  }
  return out;
}

// --- play (sokoban.game) ---------------------------------------------------------------------

/**
 * A level being played: the steps taken and a cursor into them. Undo and redo move the
 * cursor; restart is undo-all (so everything can be redone); a new step cuts the redo tail.
 */
export class Game {
  constructor(level) {
    if (level.players.size !== 1) {
      throw new RulesError(`cannot play a level with ${level.players.size} players`);
    }
    this.start = level;
    this.steps = [];
    this.cursor = 0;
    this.boxes = new Set(level.boxes);
    this.player = level.player;
  }

  get position() {
    return moved(this.start, this.boxes, this.player);
  }

  get solved() {
    const { goals } = this.start;
    if (this.boxes.size !== goals.size) return false;
    for (const b of this.boxes) if (!goals.has(b)) return false;
    return true;
  }

  /** The step `d` would be: {d, push} or null when blocked. */
  tryStep(d) {
    const level = this.start;
    const target = neighbour(level, this.player, d);
    if (target === null || level.walls.has(target)) return null;
    if (this.boxes.has(target)) {
      const beyond = neighbour(level, target, d);
      if (beyond === null || level.walls.has(beyond) || this.boxes.has(beyond)) return null;
      return { d, push: true };
    }
    return { d, push: false };
  }

  _apply(step) {
    const target = neighbour(this.start, this.player, step.d);
    if (step.push) {
      this.boxes.delete(target);
      this.boxes.add(neighbour(this.start, target, step.d));
    }
    this.player = target;
  }

  /** Step (pushing a box in the way); false when blocked. Keeps the redo tail only when the
   * step is the one it would redo. */
  move(d) {
    const step = this.tryStep(d);
    if (!step) return false;
    if (this.cursor < this.steps.length && this.steps[this.cursor].d === d) {
      this._apply(this.steps[this.cursor]);
      this.cursor += 1;
      return true;
    }
    this.steps.length = this.cursor;
    this.steps.push(step);
    this._apply(step);
    this.cursor += 1;
    return true;
  }

  /** Play directions until one is blocked; returns how many were played. */
  play(dirs) {
    let n = 0;
    for (const d of dirs) {
      if (!this.move(d)) break;
      n += 1;
    }
    return n;
  }

  undo() {
    if (this.cursor === 0) return false;
    this.cursor -= 1;
    const step = this.steps[this.cursor];
    const back = neighbour(this.start, this.player, OPPOSITE[step.d]);
    if (step.push) {
      const box = neighbour(this.start, this.player, step.d);
      this.boxes.delete(box);
      this.boxes.add(this.player);
    }
    this.player = back;
    return true;
  }

  redo() {
    if (this.cursor >= this.steps.length) return false;
    this._apply(this.steps[this.cursor]);
    this.cursor += 1;
    return true;
  }

  /** Undo everything; the whole history stays to be redone. */
  restart() {
    while (this.undo());
  }

  /** Move the cursor to `n` steps played. */
  seek(n) {
    n = Math.max(0, Math.min(n, this.steps.length));
    while (this.cursor > n) this.undo();
    while (this.cursor < n) this.redo();
  }

  /** The steps played (up to the cursor). */
  get history() {
    return this.steps.slice(0, this.cursor);
  }

  get moves() {
    return this.cursor;
  }

  get pushes() {
    let n = 0;
    for (let i = 0; i < this.cursor; i++) if (this.steps[i].push) n += 1;
    return n;
  }

  /** LURD of the played steps; with `all`, the redo tail too. */
  lurd(all = false) {
    return formatLurd(all ? this.steps : this.history);
  }

  metrics() {
    return metrics(this.start, this.history);
  }

  /** Load a saved history: every step of `lurd` (checked by replay), cursor at `cursor`. */
  load(lurd, cursor) {
    const { steps } = replay(this.start, lurd);
    this.restart();
    this.steps = steps;
    this.seek(cursor === undefined ? steps.length : cursor);
  }
}
