// Small DOM helpers shared by the screens. Text from levels (titles, metadata, errors) is only
// ever set as textContent: never parsed as HTML.

import * as R from "./rules.js";
import * as store from "./progress.js";
import { resolveTheme } from "./board.js";

export const $ = (id) => document.getElementById(id);

/** An element with attributes and children (strings become text nodes). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** Say something to screen readers (the polite live region). */
export function announce(text) {
  const live = $("live");
  live.textContent = "";
  // A fresh text node each time, so that a repeated message is read again.
  requestAnimationFrame(() => { live.textContent = text; });
}

export function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = !text;
}

let firstFrame = false;
/** performance.mark once, right after the first board is drawn (bench_web measures it). */
export function markFirstFrame() {
  if (firstFrame) return;
  firstFrame = true;
  performance.mark("sokoban:first-frame");
}

const reducedMotion = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;

/** The current settings; the speed defaults to instant when the system asks for less motion. */
export function prefs() {
  const value = store.settings();
  if (!value.speedChosen && reducedMotion) value.speed = "instant";
  return value;
}

/** The page's colours follow the board's theme (its "auto" follows the system). */
export function applyTheme() {
  document.documentElement.dataset.theme = resolveTheme(prefs().theme);
}

/** A metric's name as the API spells it ("box_lines"), as a label ("Box lines"). */
export function metricLabel(name) {
  const words = String(name).replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Milliseconds a step takes to animate (0: instant). */
export function stepMs() {
  return { instant: 0, fast: 45, normal: 95, slow: 190 }[prefs().speed] ?? 95;
}

/** The share form of a level: RLE rows joined by `|`. */
export function shareText(level) {
  return R.formatBoard(level, { rle: true });
}

/** A `#/...?level=` route carrying the level itself (and its title). */
export function shareRoute(level, title, screen = "play") {
  const params = new URLSearchParams();
  params.set("level", shareText(level));
  if (title) params.set("title", title);
  return `#/${screen}?${params.toString()}`;
}

const NAMES = { "#": "wall", " ": "floor", ".": "goal", $: "box", "*": "box on goal", "@": "player", "+": "player on goal" };

/** The board in words, row by row, runs collapsed ("wall x5"): for screen readers. */
export function describe(level) {
  const onGoals = [...level.boxes].filter((b) => level.goals.has(b)).length;
  const lines = [];
  const p = level.player;
  lines.push(`Board ${level.width} wide and ${level.height} high; ${onGoals} of ${level.boxes.size} boxes on goals.`);
  if (p !== null) {
    lines.push(`Player at row ${Math.floor(p / level.width) + 1}, column ${(p % level.width) + 1}.`);
  }
  const inside = R.interior(level);
  for (let y = 0; y < level.height; y++) {
    const parts = [];
    let prev = null;
    let count = 0;
    const flush = () => { if (prev) parts.push(count > 1 ? `${prev} x${count}` : prev); };
    for (let x = 0; x < level.width; x++) {
      const c = y * level.width + x;
      const ch = R.cellChar(level, c);
      const name = ch === " " && !inside.has(c) ? "outside" : NAMES[ch];
      if (name === prev) count += 1;
      else { flush(); prev = name; count = 1; }
    }
    if (prev !== "outside") flush();
    lines.push(`Row ${y + 1}: ${parts.join(", ") || "outside"}.`);
  }
  return lines.join("\n");
}

/** Milliseconds the clipboard is given to answer before a copy counts as not done. */
export const COPY_TIMEOUT_MS = 1500;

/**
 * Copy text to the clipboard when the browser lets us: true once copied, false when refused,
 * missing, or silent for `timeoutMs` (a clipboard that never answers, as some browsers' do
 * while a permission prompt waits unseen). Never fails loudly, never hangs: on false the
 * caller says where to copy the text from.
 */
export async function copyText(text, timeoutMs = COPY_TIMEOUT_MS) {
  let timer = null;
  const silent = new Promise((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
  try {
    const copied = Promise.resolve(navigator.clipboard.writeText(text)).then(() => true, () => false);
    return await Promise.race([copied, silent]);
  } catch (error) {
    return false; // no clipboard API here
  } finally {
    clearTimeout(timer);
  }
}
