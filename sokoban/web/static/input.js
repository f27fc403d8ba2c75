// Input: the key bindings (listed in the help overlay from the same table), and pointer
// gestures on the board (tap a cell, drag a box, swipe on touch screens).

/** Every binding of the play screen, as the help overlay lists them. */
export const BINDINGS = [
  ["Arrow keys, W A S D, H J K L", "Move (and push)"],
  ["Z, U, Ctrl+Z", "Undo"],
  ["Y, Ctrl+Y, Ctrl+Shift+Z", "Redo"],
  ["R", "Restart (undo all: can be redone)"],
  ["N, Page Down", "Next level"],
  ["P, Page Up", "Previous level"],
  ["I", "Hint: play the next push"],
  ["Esc", "Close a dialog, drop a box selection"],
  ["?", "This help"],
  ["Click or tap a floor cell", "Walk there by the shortest path (during a walk: go there instead)"],
  ["Click a box, then a marked cell", "Push the box there with the fewest pushes"],
  ["Drag a box to a cell", "Push it there"],
  ["Swipe (touch)", "Move one step"],
  ["Replay: Space, ← →, Shift+← →", "Play/pause, step by move, step by push"],
];

const MOVES = {
  ArrowLeft: "l", ArrowUp: "u", ArrowRight: "r", ArrowDown: "d",
  a: "l", w: "u", d: "r", s: "d",
  h: "l", k: "u", l: "r", j: "d",
};

/**
 * The play action a key event means, or null: {type: "move", d} or {type: "undo" | "redo" |
 * "restart" | "next" | "previous" | "hint" | "escape" | "help"}.
 */
export function keyAction(event) {
  const key = event.key;
  const lower = key.length === 1 ? key.toLowerCase() : key;
  const ctrl = event.ctrlKey || event.metaKey;
  if (ctrl) {
    if (lower === "z") return { type: event.shiftKey ? "redo" : "undo" };
    if (lower === "y") return { type: "redo" };
    return null;
  }
  if (event.altKey) return null;
  if (key === "?") return { type: "help" };
  if (key === "Escape") return { type: "escape" };
  if (key === "PageDown") return { type: "next" };
  if (key === "PageUp") return { type: "previous" };
  if (lower in MOVES) return { type: "move", d: MOVES[lower] };
  switch (lower) {
    case "z": case "u": return { type: "undo" };
    case "y": return { type: "redo" };
    case "r": return { type: "restart" };
    case "n": return { type: "next" };
    case "p": return { type: "previous" };
    case "i": return { type: "hint" };
    default: return null;
  }
}

/** Whether a key event is typed into a form field (and so is not a game key). */
export function inField(event) {
  const t = event.target;
  if (!t || !t.tagName) return false;
  const tag = t.tagName;
  return tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && t.type !== "range"
    && t.type !== "checkbox" && t.type !== "radio" && t.type !== "button") || t.isContentEditable;
}

const SWIPE = 24; // CSS pixels a touch must travel to be a swipe

/**
 * Pointer gestures on a board view: `tap(cell)`, `drag(from, to)` when a press on a cell is
 * released on another one, `swipe(d)` for a touch that travels (not starting on a box when
 * `isBox` says so). Returns a function that detaches the listeners.
 */
export function attachPointer(view, { tap, drag, swipe, isBox }) {
  const canvas = view.canvas;
  let start = null;
  const down = (e) => {
    if (e.button !== undefined && e.button > 0) return;
    start = { x: e.clientX, y: e.clientY, cell: view.cellAt(e.clientX, e.clientY), type: e.pointerType };
    canvas.setPointerCapture?.(e.pointerId);
    e.preventDefault();
  };
  const up = (e) => {
    if (!start) return;
    const s = start;
    start = null;
    const cell = view.cellAt(e.clientX, e.clientY);
    const dx = e.clientX - s.x;
    const dy = e.clientY - s.y;
    const far = Math.hypot(dx, dy) >= SWIPE;
    if (s.cell !== null && cell !== null && cell !== s.cell && isBox(s.cell)) {
      drag(s.cell, cell);
    } else if (far && s.type === "touch") {
      swipe(Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? "r" : "l") : dy > 0 ? "d" : "u");
    } else if (s.cell !== null && (cell === s.cell || !far)) {
      tap(s.cell);
    }
  };
  const cancel = () => { start = null; };
  canvas.addEventListener("pointerdown", down);
  canvas.addEventListener("pointerup", up);
  canvas.addEventListener("pointercancel", cancel);
  return () => {
    canvas.removeEventListener("pointerdown", down);
    canvas.removeEventListener("pointerup", up);
    canvas.removeEventListener("pointercancel", cancel);
  };
}
