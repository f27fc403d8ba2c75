// The competitive screens in the page's router: #/player, #/daily (today), #/daily/{date},
// #/daily/archive, #/race/new[?level=id], #/race/{code}, #/ghost/{level id}?source=...
// app.js asks `handles(screen)` and hands the route over; this keeps app.js's edits small.

import * as players from "./players.js";
import * as scores from "./scores.js";
import * as daily from "./daily.js";
import * as race from "./race.js";

/** Screens (section ids "screen-<name>") this module shows. */
export const SCREENS = ["player", "daily", "race"];

const ROUTES = new Set(["player", "daily", "race", "ghost"]);

export function handles(screen) {
  return ROUTES.has(screen);
}

/**
 * Show the route. `ctx`: {show(name), current() -> whether this route is still the one wanted}.
 */
export async function route(screen, parts, params, ctx) {
  if (screen === "player") {
    ctx.show("player");
    await players.showPage();
  } else if (screen === "daily") {
    if (parts[1] === "archive") {
      ctx.show("daily");
      await daily.showArchive(ctx);
    } else {
      await daily.openDay(parts[1] || null, ctx);
    }
  } else if (screen === "race") {
    ctx.show("race");
    if (!parts[1] || parts[1] === "new") race.openNew(params.get("level"));
    else await race.openRace(parts[1], ctx);
  } else if (screen === "ghost") {
    ctx.show("race");
    try {
      await race.openGhost(parts.slice(1).join("/"), params.get("source") || "optimal", ctx);
    } catch (error) {
      // Stay on the race screen and say why: usually no such solution is stored yet.
      race.noGhost(error.status === 404 ? "there is no such solution of this level yet"
        : error.status === 403 ? `${error.message} (no one's solution is shown while the level is competed on)`
          : error.message);
    }
  }
}

/** Leaving a route: stop the race's socket and timers, and the daily line's countdown. */
export function stop() {
  race.stop();
  daily.stop();
}

/** Draw the race's board again (a new theme). */
export function redraw() {
  race.redraw();
}

/** Keys for this module's screens; true when handled. */
export function keydown(e) {
  return race.keydown(e);
}

export function setup() {
  players.setup();
  scores.setup();
  race.setup();
}
