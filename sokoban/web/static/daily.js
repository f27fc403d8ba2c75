// The daily challenge: today's puzzle (or a past day's) on the play screen, with the daily line
// above the board (the day, the countdown to the next: this module's own part of the play
// screen, #daily-line), and after solving the par and the day's leaderboard (scores.js draws
// those); the archive of past days.

import * as R from "./rules.js";
import * as capi from "./compete-api.js";
import * as store from "./progress.js";
import * as players from "./players.js";
import * as play from "./play.js";
import { $, el, showError } from "./ui.js";

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The countdown's timer while a daily puzzle is on screen. */
let ticking = null;

function pad(n) {
  return String(n).padStart(2, "0");
}

/** "hh:mm:ss" of a number of seconds. */
export function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
}

function tick() {
  const out = $("daily-countdown");
  if (!out || !out.dataset.next) return;
  const left = (Date.parse(out.dataset.next) - Date.now()) / 1000;
  out.textContent = clock(left);
  if (left <= 0 && !out.dataset.done) {
    out.dataset.done = "1";
    out.textContent = "now: reload for the new puzzle";
  }
}

/** The daily line above the board: the day, its band, the countdown or the way to today's. */
function showLine(source) {
  const line = $("daily-line");
  const countdown = $("daily-countdown");
  countdown.dataset.next = source.today ? source.nextAt : "";
  delete countdown.dataset.done;
  countdown.textContent = "";
  $("daily-day").textContent = `Daily challenge of ${source.date} (${source.band}).`;
  $("daily-next-in").hidden = !source.today;
  $("daily-today").hidden = source.today;
  line.hidden = false;
  clearInterval(ticking);
  if (source.today) {
    tick();
    ticking = setInterval(tick, 1000);
  }
}

/** Leaving the daily puzzle: the line goes, the countdown stops. */
export function stop() {
  clearInterval(ticking);
  ticking = null;
  $("daily-line").hidden = true;
}

/** Open today's puzzle (date null) or a past day's for play. */
export async function openDay(date, { show, current }) {
  if (date !== null && !DATE.test(date)) throw new Error(`not a day: ${date} (YYYY-MM-DD)`);
  let day;
  for (let attempt = 0; ; attempt++) {
    try {
      day = await capi.daily(date);
      break;
    } catch (error) {
      // 503 while the server is still making the day's level (seconds, on a fresh start).
      if (error.status !== 503 || attempt >= 20 || !current()) throw error;
      showError("The day's puzzle is being made: a few seconds...");
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
  }
  showError("");
  if (!current()) return;
  let level;
  try {
    level = R.levelFromJson(day.level);
  } catch (error) {
    level = R.parseBoard(day.level.xsb);
  }
  const today = date === null || day.seconds_left !== undefined && date === todayOf(day);
  const source = {
    kind: "daily", date: day.date, band: day.band, par: day.par, levelId: `daily/${day.date}`,
    today,
    // The countdown runs on this browser's clock from the server's seconds left (clock skew).
    nextAt: new Date(Date.now() + (day.seconds_left ?? 0) * 1000).toISOString(),
  };
  show("play");
  play.open(level, `Daily ${day.date}`, source, day.level);
  showLine(source);
  $("play-canvas").focus({ preventScroll: true });
}

function todayOf(day) {
  // The server answers a past day with the same fields; today's next_at is tomorrow's midnight.
  const next = new Date(day.next_at);
  next.setUTCDate(next.getUTCDate() - 1);
  return next.toISOString().slice(0, 10);
}

/** The archive: past days newest first, with the player's local result. */
export async function showArchive({ current }) {
  document.title = "Daily challenges - Sokoban";
  const body = $("daily-archive").tBodies[0];
  body.replaceChildren();
  const [days, today] = await Promise.all([capi.dailyArchive(), capi.daily().catch(() => null)]);
  if (!current()) return;
  $("daily-next").textContent = today ? `(the next one in ${clock(today.seconds_left)})` : "";
  if (!days.length) {
    body.append(el("tr", {}, el("td", { colspan: "4", class: "muted", text: "No past days yet." })));
  }
  for (const d of days) {
    const key = players.keyOfLevelId(`daily/${d.date}`);
    const best = key ? store.best(key) : null;
    const par = d.par ? `${d.par.moves} / ${d.par.pushes}` : "?";
    body.append(el("tr", { "data-date": d.date },
      el("td", {}, el("a", { href: `#/daily/${d.date}`, text: d.date })),
      el("td", { text: d.band }),
      el("td", { text: par }),
      el("td", { text: best ? `solved: ${best.moves.moves} / ${best.pushes.pushes}` : "" })));
  }
}
