// Races: open one (a band or a given level, a time limit, a countdown), share its link, join,
// start together; play on our own board while the others' progress (moves, pushes, boxes on
// goals) arrives over the race's WebSocket; the ranking at the end, each result replayable.
// A ghost race is the same screen without a server race: a stored solution (your best, the
// leader's, the optimum) plays at its recorded pace as a translucent player and boxes.

import * as R from "./rules.js";
import * as api from "./api.js";
import * as capi from "./compete-api.js";
import * as players from "./players.js";
import * as store from "./progress.js";
import { BoardController } from "./controller.js";
import { keyAction } from "./input.js";
import { $, el, announce, copyText, markFirstFrame, shareRoute } from "./ui.js";

const SEND_EVERY_MS = 150; // progress at most this often (the server takes ~10 a second)
const GHOST_PACE_S = 0.25; // seconds a step when a ghost's solution has no recorded time

function say(text) {
  // The race's own live region: progress of the others, the countdown, the result.
  const live = $("race-live");
  live.textContent = "";
  requestAnimationFrame(() => { live.textContent = text; });
}

function levelOf(json) {
  try {
    return R.levelFromJson(json);
  } catch (error) {
    return R.parseBoard(json.xsb);
  }
}

function onGoals(level, boxes) {
  let n = 0;
  for (const b of boxes) if (level.goals.has(b)) n += 1;
  return n;
}

// --- helpers ---------------------------------------------------------------------------------

/** The ghost's player and boxes, translucent and dashed, over the drawn board. */
function paintGhost(ctx, level, s, game) {
  const w = level.width;
  ctx.save();
  ctx.globalAlpha = 0.7;
  ctx.setLineDash([Math.max(2, s * 0.1), Math.max(2, s * 0.07)]);
  ctx.lineWidth = Math.max(2, s * 0.07);
  ctx.strokeStyle = "#5a2d82";
  ctx.fillStyle = "rgba(140, 80, 200, 0.35)";
  for (const b of game.boxes) {
    const x = (b % w) * s;
    const y = Math.floor(b / w) * s;
    ctx.fillRect(x + s * 0.14, y + s * 0.14, s * 0.72, s * 0.72);
    ctx.strokeRect(x + s * 0.14, y + s * 0.14, s * 0.72, s * 0.72);
  }
  const p = game.player;
  ctx.beginPath();
  ctx.arc((p % w) * s + s / 2, Math.floor(p / w) * s + s / 2, s * 0.3, 0, 2 * Math.PI);
  ctx.fill();
  ctx.stroke();
  ctx.restore();
}

function tags(you, host) {
  const t = [you ? "you" : null, host ? "host" : null].filter(Boolean);
  return t.length ? ` (${t.join(", ")})` : "";
}

/** "m:ss" of whole seconds. */
function minutes(seconds) {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

const GHOST_NAMES = { best: "your best", leader: "the leader", optimal: "the optimum" };

/** The race screen (#screen-race): a race on the server, or a ghost race. */
class RaceScreen {
  constructor() {
    /** The race on screen (its mode, level, game, socket, timers); null elsewhere. */
    this.race = null;
    /** The board, played through the controller the play screen uses too. */
    this.board = null;
  }

  reset(mode) {
    this.stop();
    if (!this.board) {
      this.board = new BoardController($("race-canvas"), {
        below: () => this.raceRoom(),
        canPlay: () => this.live(),
        onSettle: () => this.changed(),
        onJump: () => this.changed(),
        onSolved: () => this.finishMine(),
        onRender: () => this.counters(),
        marks: () => (this.race && this.race.ghost ? { overlay: (ctx, s) => paintGhost(ctx, this.race.level, s, this.race.ghost.game) } : {}),
      });
    }
    this.race = {
      mode, code: null, level: null, game: null, state: null, socket: null, poll: null,
      timer: null, sendTimer: null, lastSent: 0, sentLurd: null, finished: false,
      startsAt: null, endsAt: null, skew: 0, ghost: null, retries: 0, wasLive: false, endedShown: false,
    };
    $("race-form").hidden = true;
    $("race-lobby").hidden = true;
    $("race-name-form").hidden = true;
    $("race-result").textContent = "";
    $("race-status").textContent = "";
    $("race-players").tBodies[0].replaceChildren();
    $("race-moves").textContent = "0";
    $("race-pushes").textContent = "0";
    $("race-clock").textContent = "-";
    $("race-stage").hidden = true;
    $("race-body").hidden = mode === "new";
    $("race-counters").hidden = mode === "new";
    $("race-intro").hidden = mode !== "new";
    $("race-give-up").hidden = mode !== "race";
    this.race.timer = setInterval(() => this.tick(), 250);
  }

  stop() {
    if (!this.race) return;
    this.board.stop();
    clearInterval(this.race.timer);
    clearInterval(this.race.poll);
    clearTimeout(this.race.sendTimer);
    if (this.race.ghost) clearTimeout(this.race.ghost.timer);
    if (this.race.socket) {
      this.race.socket.onclose = null;
      this.race.socket.close();
    }
    this.race = null;
  }

  active() {
    return this.race !== null && !$("screen-race").hidden;
  }

  setLevel(json) {
    this.race.level = levelOf(json);
    this.race.title = json.title || "";
    this.race.game = new R.Game(this.race.level);
    $("race-stage").hidden = false;
    this.board.setLevel(this.race.level, this.race.game);
    markFirstFrame();
  }

  /** Whether our moves count now: the race runs and we have not finished. */
  live() {
    if (!this.race || !this.race.game || this.race.finished) return false;
    const now = Date.now();
    if (this.race.mode === "ghost") return this.race.startsAt !== null && now >= this.race.startsAt;
    if (!this.race.state || !this.mine()) return false;
    return this.race.state.status === "running" || (this.race.state.status === "countdown" && this.race.startsAt !== null && now >= this.race.startsAt);
  }

  render() {
    if (this.race && this.race.game) this.board.render();
  }

  /** Draw again (a new theme). */
  redraw() {
    this.render();
  }

  /** The counters, the buttons' states and the board's label (after each drawing). */
  counters() {
    if (!this.race || !this.race.game) return;
    const { game } = this.race;
    $("race-moves").textContent = String(game.moves);
    $("race-pushes").textContent = String(game.pushes);
    const n = onGoals(this.race.level, game.boxes);
    this.board.canvas.setAttribute("aria-label", `Race this.board: ${game.moves} moves, ${game.pushes} pushes, ${n} of ${game.boxes.size} boxes on goals${game.solved ? ", solved" : ""}.`);
    $("race-undo").disabled = !this.live() || game.cursor === 0;
    $("race-give-up").hidden = this.race.mode !== "race";
    $("race-give-up").disabled = !this.live();
    $("race-restart").disabled = !this.live() || game.cursor === 0;
  }

  /** CSS pixels the board leaves free under it: the players and buttons beside or under it. */
  raceRoom() {
    const bar = $("race-bar");
    if (bar && getComputedStyle(bar).position === "fixed") return bar.offsetHeight + 8;
    return 16;
  }

  changed() {
    if (this.race.mode === "race") this.scheduleProgress();
    else this.ghostTable();
  }

  /** Keys of the race screen; true when the key was ours. */
  keydown(e) {
    if (!this.active()) return false;
    const action = keyAction(e);
    if (!action || !["move", "undo", "redo", "restart"].includes(action.type)) return false;
    e.preventDefault();
    this.board.key(action, e.repeat);
    return true;
  }

  finishMine() {
    if (this.race.finished) return;
    this.race.finished = true;
    const m = this.race.game.metrics();
    if (this.race.mode === "race") {
      this.send({ type: "finish", lurd: this.race.game.lurd() });
      say(`You solved it in ${m.moves} moves and ${m.pushes} pushes.`);
    } else {
      this.ghostDone();
    }
    this.render();
  }

  mine() {
    const me = capi.player();
    return me && this.race.state ? this.race.state.players.find((p) => p.name === me.name) || null : null;
  }

  send(message) {
    if (this.race.socket && this.race.socket.readyState === WebSocket.OPEN) {
      this.race.socket.send(JSON.stringify(message));
      if (message.type === "progress") this.race.sentLurd = message.lurd;
      this.race.lastSent = Date.now();
    }
  }

  /** Send the whole history, at most every SEND_EVERY_MS (the last one always goes). */
  scheduleProgress() {
    if (this.race.sendTimer) return;
    const wait = Math.max(0, this.race.lastSent + SEND_EVERY_MS - Date.now());
    this.race.sendTimer = setTimeout(() => {
      if (!this.race) return;
      this.race.sendTimer = null;
      const lurd = this.race.game.lurd();
      if (!this.race.finished && lurd !== this.race.sentLurd) this.send({ type: "progress", lurd });
    }, wait);
  }

  connect() {
    if (this.race.socket) return;
    const state = this.race;
    const socket = capi.raceSocket(this.race.code);
    this.race.socket = socket;
    socket.onopen = () => { state.retries = 0; };
    socket.onmessage = (event) => {
      if (this.race !== state) return;
      let data;
      try {
        data = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      if (data && data.type === "state") this.update(data);
      // A dropped progress message (429) is caught up by the next; other refusals are shown.
      else if (data && data.type === "error" && data.status !== 429) $("race-result").textContent = `The server says: ${data.detail}`;
    };
    socket.onclose = (event) => {
      if (this.race !== state) return;
      state.socket = null;
      if (state.state && state.state.status === "finished") return;
      if ([1008, 4401, 4404].includes(event.code)) {
        // Refused for good (bad message, unknown token or race): polling still shows the race.
        $("race-result").textContent = `The live connection was closed: ${event.reason || `code ${event.code}`}.`;
        this.startPolling();
        return;
      }
      // Lost: poll meanwhile, and try the socket again a few times.
      this.startPolling();
      if (state.retries < 5) {
        state.retries += 1;
        setTimeout(() => { if (this.race === state) this.connect(); }, 1000 * state.retries);
      }
    };
  }

  startPolling() {
    if (this.race.poll) return;
    const state = this.race;
    this.race.poll = setInterval(async () => {
      if (this.race !== state) return;
      try {
        this.update(await capi.race(state.code));
      } catch (error) { /* try again */ }
      if (state.socket && state.socket.readyState === WebSocket.OPEN) {
        clearInterval(state.poll);
        state.poll = null;
      }
    }, 1000);
  }

  /** A new RaceState (from the socket or a GET). */
  update(state) {
    const before = this.race.state;
    this.race.state = state;
    if (state.now) this.race.skew = Date.parse(state.now) - Date.now();
    this.race.startsAt = state.starts_at ? Date.parse(state.starts_at) - this.race.skew : null;
    this.race.endsAt = state.ends_at ? Date.parse(state.ends_at) - this.race.skew : null;
    if (!this.race.level && state.level) this.setLevel(state.level);
    this.lobby();
    this.table();
    this.narrate(before, state);
    if (state.status === "finished") this.ended();
    this.tick();
    this.render();
  }

  lobby() {
    const state = this.race.state;
    const me = capi.player();
    const joined = Boolean(this.mine());
    const waiting = state.status === "waiting";
    // The link is for joining: once the race starts, the board and the players get the room.
    $("race-lobby").hidden = state.status !== "waiting";
    $("race-join").hidden = !(waiting && me && !joined);
    $("race-name-form").hidden = !(waiting && !me);
    $("race-start").hidden = !(waiting && me && state.host === me.name);
    $("race-title").textContent = `Race ${this.race.title ? `on ${this.race.title}` : ""}`.trim();
  }

  /** The others' rows: ranked at the end, else by boxes on goals. */
  table() {
    const body = $("race-players").tBodies[0];
    const me = capi.player();
    const rows = this.race.state.players.slice();
    const finished = this.race.state.status === "finished";
    rows.sort((a, b) => (finished ? (a.rank ?? 1e9) - (b.rank ?? 1e9) : (b.boxes_on_goals - a.boxes_on_goals) || (a.moves - b.moves)));
    body.replaceChildren();
    const total = this.race.level ? this.race.level.boxes.size : 0;
    rows.forEach((p, i) => {
      let state = p.solved ? `solved${p.seconds ? ` in ${p.seconds.toFixed(1)} s` : ""}` : p.finished ? "gave up" : "";
      if (finished && !p.solved) state = "not solved";
      const cells = [
        el("td", { text: finished && p.rank ? String(p.rank) : String(i + 1) }),
        el("td", { class: "name", text: p.name + tags(me && p.name === me.name, p.name === this.race.state.host) }),
        el("td", { text: String(p.moves) }), el("td", { text: String(p.pushes) }),
        el("td", { text: `${p.boxes_on_goals} / ${total}` }),
        el("td", { class: "state" }, state),
      ];
      if (finished && p.lurd) {
        const title = `${p.name} in the race`;
        cells[5].append(" ", el("a", { href: `${shareRoute(this.race.level, title, "replay")}&lurd=${encodeURIComponent(p.lurd)}`, text: "Replay", class: "replay-link" }));
      }
      body.append(el("tr", { class: me && p.name === me.name ? "me" : null, "data-name": p.name }, ...cells));
    });
  }

  /** Tell screen readers what changed: joins, boxes placed by others, finishes, the start. */
  narrate(before, state) {
    const me = capi.player();
    const prev = new Map((before?.players || []).map((p) => [p.name, p]));
    const total = this.race.level ? this.race.level.boxes.size : 0;
    const news = [];
    for (const p of state.players) {
      if (me && p.name === me.name) continue;
      const old = prev.get(p.name);
      if (!old) { if (before) news.push(`${p.name} joined.`); continue; }
      if (p.solved && !old.solved) news.push(`${p.name} solved it in ${p.moves} moves.`);
      else if (p.boxes_on_goals !== old.boxes_on_goals) news.push(`${p.name}: ${p.boxes_on_goals} of ${total} boxes on goals.`);
    }
    if (before && before.status !== state.status) {
      if (state.status === "countdown") news.push("The race starts soon: get ready.");
      if (state.status === "running") news.push("Go!");
    }
    if (news.length) say(news.join(" "));
  }

  ended() {
    if (this.race.endedShown) return;
    this.race.endedShown = true;
    this.race.finished = true;
    const ranked = this.race.state.players.slice().sort((a, b) => (a.rank ?? 1e9) - (b.rank ?? 1e9));
    const text = ranked.length
      ? `Race over. ${ranked.map((p) => `${p.rank ?? "-"}. ${p.name}${p.solved ? ` (${p.moves} moves)` : " (not solved)"}`).join(", ")}.`
      : "Race over.";
    $("race-result").textContent = text;
    say(text);
    if (this.race.socket) {
      this.race.socket.onclose = null;
      this.race.socket.close();
      this.race.socket = null;
    }
    clearInterval(this.race.poll);
  }

  /** Once a quarter second: the countdown and the time left. */
  tick() {
    if (!this.race) return;
    const now = Date.now();
    const status = $("race-status");
    const clock = $("race-clock");
    if (this.race.mode === "ghost") {
      if (this.race.startsAt === null) return;
      if (now < this.race.startsAt) {
        const n = Math.ceil((this.race.startsAt - now) / 1000);
        if (status.dataset.n !== String(n)) { status.dataset.n = String(n); say(String(n)); }
        status.textContent = `Starts in ${n}`;
      } else if (!this.race.ghost.started) {
        this.race.ghost.started = true;
        status.textContent = "Go!";
        say("Go!");
        this.render();
        this.ghostStep();
      }
      if (now >= this.race.startsAt && !this.race.finished) clock.textContent = `${((now - this.race.startsAt) / 1000).toFixed(1)} s`;
      return;
    }
    const state = this.race.state;
    if (!state) return;
    if (state.status === "waiting") {
      status.textContent = `Waiting for players (${state.players.length} joined)${this.mine() ? "" : ": join to race"}.`;
      if (state.time_limit) clock.textContent = minutes(state.time_limit);
    } else if (state.status === "finished") {
      status.textContent = "Finished.";
      clock.textContent = "-";
    } else if (this.race.startsAt !== null && now < this.race.startsAt) {
      const n = Math.ceil((this.race.startsAt - now) / 1000);
      status.textContent = `Starts in ${n}`;
      if (status.dataset.n !== String(n)) { status.dataset.n = String(n); say(String(n)); }
    } else {
      status.textContent = this.race.finished ? "You are done: waiting for the others." : this.mine() ? "Go!" : "Running (you are watching).";
      if (this.race.endsAt !== null) {
        clock.textContent = minutes(Math.max(0, Math.ceil((this.race.endsAt - now) / 1000)));
      }
    }
    // The buttons follow the race's state (Go, the time limit) even without a move.
    const nowLive = this.live();
    if (nowLive !== this.race.wasLive) {
      this.race.wasLive = nowLive;
      this.render();
    }
  }

  /** #/race/{code}: the lobby, the race, or its result. */
  async openRace(code, { current }) {
    this.reset("race");
    this.race.code = code;
    const state = this.race;
    const link = `${location.origin}/#/race/${encodeURIComponent(code)}`;
    $("race-link").value = link;
    document.title = "Race - Sokoban";
    const first = await capi.race(code);
    if (!current() || this.race !== state) return;
    this.update(first);
    if (first.status !== "finished") this.connect();
    $("race-canvas").focus({ preventScroll: true });
  }

  /** #/race/new: the form; with ?level= the current level is offered first. */
  openNew(levelId) {
    this.reset("new");
    document.title = "Open a race - Sokoban";
    $("race-title").textContent = "Open a race";
    const select = $("race-level");
    select.querySelector("option[data-level]")?.remove();
    if (levelId) {
      const option = el("option", { value: `level:${levelId}`, "data-level": "1", text: `This level (${levelId})` });
      select.prepend(option);
      select.value = option.value;
      // Its title, when the server knows it (as text: titles are never markup).
      const slash = levelId.lastIndexOf("/");
      const json = levelId.startsWith("daily/") ? capi.daily(levelId.slice(6)).then((d) => ({ title: `Daily ${d.date}` }))
        : api.level(levelId.slice(0, slash), levelId.slice(slash + 1));
      json.then((j) => { if (j.title) option.textContent = `This level: ${j.title}`; }).catch(() => {});
    }
    $("race-form").hidden = false;
    $("race-name-form").hidden = Boolean(capi.player());
    $("race-status").textContent = capi.player() ? "" : "Pick a name first: the others see it in the race.";
  }

  async create() {
    const choice = $("race-level").value;
    const options = {
      band: choice.startsWith("level:") ? null : choice,
      level_id: choice.startsWith("level:") ? choice.slice(6) : null,
      time_limit: Number($("race-limit").value),
      countdown: Number($("race-countdown").value),
    };
    try {
      const race = await capi.createRace(options);
      location.hash = `#/race/${encodeURIComponent(race.code)}`;
    } catch (error) {
      $("race-status").textContent = `Cannot open the race: ${error.message}`;
    }
  }

  async join() {
    try {
      this.update(await capi.joinRace(this.race.code));
      if (this.race.socket) { this.race.socket.onclose = null; this.race.socket.close(); this.race.socket = null; }
      this.connect();
      say("You joined the race.");
      $("race-canvas").focus({ preventScroll: true }); // the keys play once the race runs
    } catch (error) {
      $("race-status").textContent = `Cannot join: ${error.message}`;
    }
  }

  async start() {
    try {
      await capi.startRace(this.race.code);
      if (!this.race.socket) this.update(await capi.race(this.race.code));
    } catch (error) {
      $("race-status").textContent = `Cannot start: ${error.message}`;
    }
  }

  /** #/ghost/{level id}?source=best|leader|optimal: race alone against a stored solution. */
  async openGhost(levelId, source, { current }) {
    this.reset("ghost");
    const state = this.race;
    document.title = "Ghost race - Sokoban";
    $("race-title").textContent = `Ghost race against ${GHOST_NAMES[source] || source}`;
    const slash = levelId.lastIndexOf("/");
    let json;
    let stored = null;
    if (levelId.startsWith("daily/")) json = (await capi.daily(levelId.slice(6))).level;
    else json = await api.level(levelId.slice(0, slash), levelId.slice(slash + 1));
    try {
      stored = await capi.ghost(levelId, source);
    } catch (error) {
      // "your best" may be only in this browser: race that.
      const best = source === "best" ? store.best(store.levelKey(R.formatBoard(levelOf(json)))) : null;
      if (!best) throw error;
      stored = { name: "your best (this browser)", lurd: best.moves.lurd, seconds: null };
    }
    if (!current() || this.race !== state) return;
    this.setLevel(json);
    players.rememberLevel(store.levelKey(R.formatBoard(this.race.level)), levelId);
    const { steps } = R.replay(this.race.level, stored.lurd);
    const pace = stored.seconds && steps.length ? stored.seconds / steps.length : GHOST_PACE_S;
    this.race.ghost = { name: stored.name || GHOST_NAMES[source], label: GHOST_NAMES[source] || source, steps, game: new R.Game(this.race.level), pace, index: 0, started: false, timer: null, done: false };
    this.race.startsAt = Date.now() + 3000;
    $("race-result").textContent = `The ghost plays ${stored.name || GHOST_NAMES[source]}'s solution: ${steps.length} moves in ${(pace * steps.length).toFixed(1)} s.`;
    this.ghostTable();
    this.render();
    $("race-canvas").focus({ preventScroll: true });
  }

  /** The ghost race cannot start: say why, with the way back. */
  noGhost(reason) {
    $("race-status").textContent = `No ghost: ${reason}.`;
    const back = el("button", { type: "button", text: "Back to the level" });
    back.addEventListener("click", () => history.back());
    $("race-result").replaceChildren("Solve the level (signed in) to race your best, or pick another ghost. ", back);
  }

  ghostStep() {
    const g = this.race.ghost;
    if (!g || this.race.finished && g.done) return;
    if (g.index >= g.steps.length) {
      g.done = true;
      g.doneAt = Date.now();
      this.ghostTable();
      if (!this.race.finished) say(`The ghost finished in ${((g.doneAt - this.race.startsAt) / 1000).toFixed(1)} seconds.`);
      return;
    }
    g.game.move(g.steps[g.index].d);
    g.index += 1;
    this.render();
    this.ghostTable();
    const state = this.race;
    g.timer = setTimeout(() => { if (this.race === state) this.ghostStep(); }, g.pace * 1000);
  }

  ghostDone() {
    const t = (Date.now() - this.race.startsAt) / 1000;
    const g = this.race.ghost;
    const m = this.race.game.metrics();
    const ghostTime = g.pace * g.steps.length;
    const won = t < ghostTime;
    const text = `You solved it in ${t.toFixed(1)} s with ${m.moves} moves and ${m.pushes} pushes; `
      + `the ghost takes ${ghostTime.toFixed(1)} s with ${g.steps.length} moves. ${won ? "You beat the ghost!" : "The ghost wins."}`;
    $("race-result").textContent = text;
    $("race-status").textContent = won ? "You beat the ghost!" : "The ghost wins.";
    say(text);
    this.ghostTable();
  }

  ghostTable() {
    const g = this.race.ghost;
    if (!g) return;
    const total = this.race.level.boxes.size;
    const row = (name, game, done) => el("tr", { "data-name": name },
      el("td", { text: "" }), el("td", { class: "name", text: name }),
      el("td", { text: String(game.moves) }), el("td", { text: String(game.pushes) }),
      el("td", { text: `${onGoals(this.race.level, game.boxes)} / ${total}` }), el("td", { text: done ? "solved" : "" }));
    $("race-players").tBodies[0].replaceChildren(row("You", this.race.game, this.race.game.solved), row(`Ghost (${g.label})`, g.game, g.done));
  }

  setup() {
    $("race-form").addEventListener("submit", (e) => {
      e.preventDefault();
      if (!capi.player()) {
        $("race-name").focus();
        return;
      }
      this.create();
    });
    $("race-name-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      const name = $("race-name").value.trim();
      if (!name) return;
      try {
        await players.register(name);
      } catch (error) {
        $("race-status").textContent = error.status === 409 ? `The name "${name}" is taken: pick another.` : `Cannot pick that name: ${error.message}`;
        return;
      }
      $("race-name-form").hidden = true;
      if (this.race && this.race.mode === "race") this.join();
      else $("race-status").textContent = `Playing as ${name}.`;
    });
    $("race-copy").addEventListener("click", async () => {
      const ok = await copyText($("race-link").value);
      $("race-link").select();
      announce(ok ? "The race's link is copied: send it to the others." : "Copy the selected link and send it to the others.");
    });
    $("race-join").addEventListener("click", () => this.join());
    $("race-start").addEventListener("click", () => this.start());
    $("race-undo").addEventListener("click", () => this.board.undo());
    $("race-restart").addEventListener("click", () => this.board.restart());
    $("race-give-up").addEventListener("click", () => {
      if (!this.live()) return;
      this.race.finished = true;
      this.send({ type: "finish", lurd: this.race.game.lurd() });
      say("You gave up; the others race on.");
      this.render();
    });
  }
}

const screen = new RaceScreen();

export const stop = () => screen.stop();
export const active = () => screen.active();
export const redraw = () => screen.redraw();
/** Keys of the race screen; true when the key was ours. */
export const keydown = (e) => screen.keydown(e);
/** #/race/{code}: the lobby, the race, or its result. */
export const openRace = (code, ctx) => screen.openRace(code, ctx);
/** #/race/new: the form; with ?level= the current level is offered first. */
export const openNew = (levelId) => screen.openNew(levelId);
/** #/ghost/{level id}?source=best|leader|optimal: race alone against a stored solution. */
export const openGhost = (levelId, source, ctx) => screen.openGhost(levelId, source, ctx);
/** The ghost race cannot start: say why, with the way back. */
export const noGhost = (reason) => screen.noGhost(reason);
export const setup = () => screen.setup();
