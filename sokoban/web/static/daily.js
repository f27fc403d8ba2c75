// The daily challenge: today's puzzle (or a past day's) on the play screen, with the countdown
// to the next, and after solving the par and the day's leaderboard (scores.js draws those);
// the archive of past days.

import * as R from "./rules.js";
import * as capi from "./compete-api.js";
import * as store from "./progress.js";
import * as players from "./players.js";
import * as play from "./play.js";
import { $, el, showError } from "./ui.js";
import { clock } from "./scores.js";

const DATE = /^\d{4}-\d{2}-\d{2}$/;

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
