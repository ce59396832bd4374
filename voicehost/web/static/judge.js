// The judge console: every console command as a touch control. A command goes to
// POST /api/judge/command in the console's own words, with the session's CSRF token; the host
// answers this request once the director has taken it (journaled), held it during a pause, or
// refused it (a Russian line): "outcome" says which.
"use strict";

// The commands only some rulesets take: offered when the judge's state lists them in "commands".
const RULESET_COMMANDS = new Set(["nominate", "withdraw", "blood", "hand"]);

const Judge = {
  csrf: null, selected: null, armed: null, busy: false,

  async start() {
    const reply = await fetch("/api/judge/state", { credentials: "same-origin" });
    if (reply.status === 401) return Judge.showLogin();
    const state = await reply.json();
    Judge.csrf = state.csrf;
    Judge.showConsole();
  },

  // The keyboard's and the screen reader's place once the console opens: the phase's heading,
  // just above the speaker's clock and its tools (a Tab from there reaches them first).
  focusTop() {
    document.getElementById("phase").focus();
  },

  // note: why the PIN is asked again (the server restarted, and its sessions with it).
  showLogin(note) {
    const shown = document.getElementById("login-note");
    shown.textContent = note || ""; shown.classList.toggle("hidden", !note);
    if (note) Table.announce(note);
    document.getElementById("login").classList.remove("hidden");
    document.getElementById("console").classList.add("hidden");
    const pin = document.getElementById("pin");
    pin.value = "";
    pin.focus();
  },

  showConsole() {
    document.getElementById("login").classList.add("hidden");
    document.getElementById("console").classList.remove("hidden");
    Table.vibrates = true;   // the judge's phone buzzes at 10 s and 5 s
    Table.connect("/ws/judge", Judge.draw, () => Judge.showLogin(), Judge.sessionGone);
  },

  // After a lost connection: is the session still there? A restarted server has forgotten it
  // (/ws/judge then answers 401 for ever), so the page says the server is back and asks for
  // the PIN instead of retrying. True: stop retrying.
  async sessionGone() {
    const reply = await fetch("/api/judge/state", { credentials: "same-origin" });
    if (reply.status !== 401) return false;
    Judge.showLogin(Table.say("session_reset"));
    return true;
  },

  async login(event) {
    event.preventDefault();
    const error = document.getElementById("login-error");
    const reply = await fetch("/api/login", {
      method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ pin: document.getElementById("pin").value }),
    });
    const body = await reply.json();
    if (!reply.ok) {
      error.textContent = body.error; error.classList.remove("hidden");
      return;
    }
    Judge.csrf = body.csrf;
    Judge.showConsole();
    Judge.focusTop();
  },

  draw(s) {
    const before = document.activeElement;
    const idle = Boolean(s.setup);
    document.getElementById("setup").classList.toggle("hidden", !idle);
    document.querySelectorAll(".in-game").forEach((node) => node.classList.toggle("hidden", idle));
    if (idle) Setup.draw(s.setup);
    Table.draw(s, (tile, seat) => {
      const role = s.roles[String(seat.seat)], kind = (s.role_kinds || {})[String(seat.seat)];
      if (role) tile.append(Table.el("span", "sr-only", ", "), Table.el("div", "role" + (kind ? ` role-${kind}` : ""), role));
      if (kind) tile.dataset.role = kind;
      const selected = Judge.selected === seat.seat;
      tile.classList.toggle("selected", selected);
      tile.setAttribute("role", "button"); tile.tabIndex = 0;
      tile.setAttribute("aria-pressed", String(selected));
      tile.prepend(Table.el("span", "sr-only", `${Table.say("seat")} `));   // read «Место 4 Игрок4, говорит»
      tile.onclick = () => { if (!SeatMenu.swallow(seat.seat)) Judge.seatTapped(seat.seat); };
      tile.onkeydown = (event) => {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); Judge.seatTapped(seat.seat, true); }
        if (event.key === "ContextMenu" || (event.shiftKey && event.key === "F10")) {
          event.preventDefault(); SeatMenu.open(seat.seat, tile);
        }
      };
      SeatMenu.attach(tile, seat.seat);
    });
    const moment = Judge.drawMoment(s, idle);
    Judge.labelControls();
    Judge.keepFocus(before, moment);
    const offered = new Set(s.commands || []);
    document.querySelectorAll(".controls button[data-command]").forEach((button) => {
      const command = button.dataset.command;
      button.classList.toggle("hidden", RULESET_COMMANDS.has(command) && !offered.has(command));
    });
    document.getElementById("night").replaceChildren(
      ...s.night_log.slice(-8).reverse().map((line) => Table.el("p", null, line)));
    document.getElementById("correction").classList.toggle("hidden", !s.correction);
    document.getElementById("correction-text").textContent = s.correction ? s.correction.text : "";
    document.getElementById("answers").replaceChildren(
      ...s.answers.slice(-6).reverse().map((a) => Table.el("p", a.ok ? null : "out", a.ok ? a.answer : `«${a.command}»: ${a.answer}`)));
  },

  // What the judge needs now decides what stands at the top (style.css orders the parts by the
  // console's moment class): the speaker's clock and its tools, the vote, or the night's log.
  drawMoment(s, idle) {
    const moment = idle ? "setup" : s.speaker ? "speech" : s.vote ? "vote"
      : s.phase && s.phase.kind === "night" ? "night" : "other";
    const console_ = document.getElementById("console");
    ["setup", "speech", "vote", "night", "other"].forEach((m) => console_.classList.toggle(`moment-${m}`, m === moment));
    document.getElementById("seats").style.setProperty("--columns", String(Math.ceil((s.seats || []).length / 2) || 5));
    const tools = document.getElementById("speech-tools");
    tools.classList.toggle("hidden", moment !== "speech");
    tools.querySelector('[data-speech="pause"]').classList.toggle("hidden", Boolean(s.paused));
    tools.querySelector('[data-speech="resume"]').classList.toggle("hidden", !s.paused);
    const foul = tools.querySelector('[data-speech="foul"]');
    foul.textContent = s.speaker ? Table.say("foul_to", { seat: s.speaker.seat }) : Table.say("foul_speaker");
    foul.dataset.seat = s.speaker ? s.speaker.seat : "";
    const end = tools.querySelector('[data-speech="end"]');
    end.setAttribute("aria-label", s.speaker ? Table.say("end_speech_of", { seat: s.speaker.seat }) : Table.say("end_speech"));
    return moment;
  },

  // Each control that acts on a seat says on which: «Фол: игрок 4» once seat 4 is chosen; the
  // seat menu's button names the seat whose menu it opens.
  labelControls() {
    const seat = Judge.selected;
    document.querySelectorAll(".controls button[data-command]").forEach((button) => {
      if (Number(button.dataset.arity) === 0 || Confirm.armed?.button === button) return;
      if (seat === null) button.removeAttribute("aria-label");
      else button.setAttribute("aria-label", Table.say("on_player", { action: button.textContent, seat }));
    });
    const menu = document.getElementById("seat-actions");
    if (seat === null) menu.removeAttribute("aria-label");
    else menu.setAttribute("aria-label", Table.say("seat_actions_of", { seat }));
  },

  // Keyboard focus after a redraw: a control that a state hid (the pause that became «Продолжить»,
  // the speech's tools after the last speech) hands it to the control now in its place, or to
  // the heading of what the judge needs now — never to the page's top, where a screen reader
  // would start again from the beginning. (A seat tile keeps it in Table.draw.)
  keepFocus(before, moment) {
    if (!before || before === document.body || !document.getElementById("console").contains(before)) return;
    if (document.activeElement !== before && document.activeElement !== document.body) return;   // a seat kept it
    if (before.isConnected && before.offsetParent !== null) return;
    const speech = before.dataset ? before.dataset.speech : undefined;
    const twin = { pause: "resume", resume: "pause" }[speech];
    const place = twin && moment === "speech" ? document.querySelector(`#speech-tools [data-speech="${twin}"]`)
      : moment === "speech" ? document.querySelector('#speech-tools [data-speech="end"]')
        : moment === "vote" ? document.getElementById("vote-title") : document.getElementById("phase");
    if (place) place.focus();
  },

  speechTapped(button) {
    const what = button.dataset.speech;
    if (what === "foul") { if (button.dataset.seat) Judge.send(`foul ${button.dataset.seat}`); return; }
    Judge.send(what);
  },

  seatTapped(seat, byKey) {
    if (Judge.armed) {
      const [command, first] = Judge.armed;
      Judge.armed = null;
      return Judge.send(`${command} ${first} ${seat}`);
    }
    Judge.selected = Judge.selected === seat ? null : seat;
    Judge.hint(Judge.selected ? Table.say("hint_seat", { seat }) : Table.say("hint"));
    if (Table.state) Judge.draw(Table.state);
    const tile = document.querySelector(`#seats .seat[data-seat="${seat}"]`);
    if (tile && byKey) tile.focus();   // redrawn: keyboard focus stays on the seat
  },

  actionTapped(button) {
    const command = button.dataset.command, arity = Number(button.dataset.arity);
    document.querySelectorAll("button.armed").forEach((b) => b.classList.remove("armed"));
    if (arity === 0) return Judge.send(command);
    if (Judge.selected === null) return Judge.hint(Table.say("hint_first"));
    const seat = Judge.selected;
    if (!DESTRUCTIVE[command]) Judge.selected = null;
    if (command === "vote0") return Judge.send(`vote ${seat} 0`);
    if (arity === 1 && DESTRUCTIVE[command]) {
      Judge.selected = seat;   // kept while the judge confirms, let go with the question
      return Confirm.ask(button, DESTRUCTIVE[command](seat), () => { Judge.selected = null; Judge.send(`${command} ${seat}`); }, Judge.unselect);
    }
    if (arity === 1) return Judge.send(`${command} ${seat}`);
    Judge.armed = [command, seat];
    button.classList.add("armed");
    Judge.hint(Table.say(`ask_${command}`, { seat }));
    // the second seat is chosen among the tiles: the keyboard goes there (the hint is said)
    document.querySelector("#seats .seat")?.focus();
  },

  // «Действия места…»: the chosen seat's long-press menu, for a keyboard or a screen reader.
  seatActions(button) {
    if (Judge.selected === null) {
      Judge.hint(Table.say("hint_first"));
      Table.announce(Table.say("hint_first"));
      return;
    }
    const seat = Judge.selected;
    Judge.selected = null;
    SeatMenu.open(seat, button);
  },

  unselect() {
    Judge.selected = null;
    Judge.hint(Table.say("hint"));
    if (Table.state) Judge.draw(Table.state);
  },

  hint(text) { document.getElementById("hint").textContent = text; },

  async post(path, body) {
    const reply = await fetch(path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": Judge.csrf || "" },
      body: JSON.stringify(body || {}),
    });
    const answer = await reply.json().catch(() => ({ error: Table.say("error_status", { status: reply.status }) }));
    if (reply.status === 401) Judge.showLogin();
    return [reply, answer];
  },

  async send(command) {
    const answer = document.getElementById("answer");
    answer.className = "answer"; answer.textContent = Table.say("sent");   // the server's sentence follows
    Judge.hint(Table.say("hint"));
    if (Table.state) Judge.draw(Table.state);
    const reply = await fetch("/api/judge/command", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": Judge.csrf || "" },
      body: JSON.stringify({ command }),
    });
    const body = await reply.json().catch(() => ({ error: Table.say("error_status", { status: reply.status }) }));
    if (reply.status === 401) return Judge.showLogin();
    // done (green), held until «Продолжить» or still queued (amber), refused (red, with the sentence)
    const look = { done: "ok", held: "held", queued: "held" }[body.outcome] || (reply.ok ? "ok" : "bad");
    answer.className = "answer " + look;
    answer.dataset.command = command;
    answer.dataset.outcome = body.outcome || "";
    answer.dataset.status = reply.status;
    // A sentence about what was done (the server's words); a refusal names the line it refuses.
    answer.textContent = reply.ok ? body.answer : `«${command}»: ${body.error}`;
  },
};

// The console's actions that cannot be taken back by a tap: each asks once (Confirm).
const DESTRUCTIVE = { remove: (seat) => Table.say("confirm_remove", { seat }) };

// A destructive action asks once: the first tap arms the button (its text says what will happen),
// a second tap within CONFIRM_MS acts; any other moment lets it go back to what it was.
const CONFIRM_MS = 4000;
const Confirm = {
  armed: null,

  // letGo: what else to undo when the question goes unanswered (or another is asked)
  ask(button, question, act, letGo) {
    if (Confirm.armed && Confirm.armed.button === button) {
      Confirm.armed.letGo = null;
      Confirm.reset();
      return act();
    }
    Confirm.reset();
    Confirm.armed = { button, text: button.textContent, label: button.getAttribute("aria-label"), letGo,
                      timer: setTimeout(Confirm.reset, CONFIRM_MS) };
    button.classList.add("confirm");
    button.textContent = question;
    button.removeAttribute("aria-label");   // the question is what a screen reader reads on it now
    Table.announce(question);
    return undefined;
  },

  reset() {
    const armed = Confirm.armed;
    if (!armed) return;
    clearTimeout(armed.timer);
    armed.button.classList.remove("confirm");
    armed.button.textContent = armed.text;
    if (armed.label) armed.button.setAttribute("aria-label", armed.label);
    Confirm.armed = null;
    if (armed.letGo) armed.letGo();
  },
};

// A seat's actions on a long press of its tile (or the context-menu key, or a right click): the
// console's own commands for that seat, offered as the ruleset offers them. Choosing the seat and
// then the action below the seats does the same without a long press (a screen reader's way).
const LONG_PRESS_MS = 550;
const SEAT_ACTIONS = [
  { command: "foul", label: Table.say("foul") },
  { command: "unfoul", label: Table.say("unfoul") },
  { command: "hand", label: Table.say("hand"), offered: true },
  { command: "nominate", label: Table.say("nominate"), arm: true, offered: true },
  { command: "ppk", label: Table.say("ppk"), offered: true, danger: true },
  { command: "remove", label: Table.say("remove"), danger: true },
];
const SeatMenu = {
  timer: null, pressed: null, fired: null,

  attach(tile, seat) {
    const cancel = () => { clearTimeout(SeatMenu.timer); SeatMenu.timer = null; };
    tile.onpointerdown = (event) => {
      if (event.button !== 0) return;
      cancel();
      SeatMenu.timer = setTimeout(() => { SeatMenu.fired = seat; SeatMenu.open(seat, tile); }, LONG_PRESS_MS);
    };
    tile.onpointerup = cancel; tile.onpointerleave = cancel; tile.onpointercancel = cancel;
    tile.oncontextmenu = (event) => { event.preventDefault(); cancel(); SeatMenu.fired = seat; SeatMenu.open(seat, tile); };
  },

  // The click that ends a long press is not also a tap on the seat.
  swallow(seat) {
    const fired = SeatMenu.fired === seat;
    SeatMenu.fired = null;
    return fired;
  },

  open(seat, tile) {
    const s = Table.state;
    if (!s) return;
    const offered = new Set(s.commands || []);
    const info = (s.seats || []).find((x) => x.seat === seat) || { seat };
    const menu = document.getElementById("seat-menu");
    SeatMenu.returnTo = tile && tile.id ? tile : null;   // a button stays; a tile is redrawn
    SeatMenu.returnSeat = seat;
    document.getElementById("seat-menu-title").textContent = Table.say("seat_of", { who: Table.who(seat, info.name) });
    const actions = SEAT_ACTIONS.filter((a) => !a.offered || offered.has(a.command)).map((a) => {
      const button = Table.el("button", a.danger ? "danger" : null, a.label);
      button.type = "button"; button.dataset.menu = a.command;
      button.setAttribute("aria-label", Table.say("on_player", { action: a.label, seat }));
      button.onclick = () => SeatMenu.act(a, seat, button);
      return button;
    });
    if (offered.has("note") || (s.tools && s.tools.forms.some((f) => f.command === "note"))) actions.push(SeatMenu.note(seat));
    menu.querySelector(".seat-menu-actions").replaceChildren(...actions);
    menu.classList.remove("hidden");
    (actions[0] || document.getElementById("seat-menu-close")).focus();
  },

  note(seat) {
    const form = Table.el("form", "note");
    const input = Table.el("input");
    input.autocomplete = "off"; input.placeholder = Table.say("note_placeholder");
    input.setAttribute("aria-label", Table.say("note_label", { seat }));
    const button = Table.el("button", null, Table.say("note_write"));
    button.type = "submit";
    form.append(input, button);
    form.onsubmit = (event) => {
      event.preventDefault();
      if (!input.value.trim()) return;
      SeatMenu.close();
      Judge.send(`note ${seat} ${input.value.trim()}`);
    };
    return form;
  },

  act(action, seat, button) {
    if (action.arm) {
      SeatMenu.close();
      Judge.selected = seat;
      const control = document.querySelector(`.controls button[data-command="${action.command}"]`);
      return control ? Judge.actionTapped(control) : undefined;
    }
    const run = () => { SeatMenu.close(); Judge.send(`${action.command} ${seat}`); };
    if (action.danger) return Confirm.ask(button, Table.say("confirm_seat", { action: action.label, seat }), run);
    return run();
  },

  close() {
    Confirm.reset();
    document.getElementById("seat-menu").classList.add("hidden");
    const back = SeatMenu.returnTo && document.body.contains(SeatMenu.returnTo) ? SeatMenu.returnTo
      : document.querySelector(`#seats .seat[data-seat="${SeatMenu.returnSeat}"]`);
    if (back) back.focus();
    if (Table.state) Judge.draw(Table.state);
  },

  // aria-modal: Tab and Shift+Tab go round the menu's own controls, never behind it.
  trap(event) {
    if (event.key !== "Tab") return;
    const inside = [...document.querySelectorAll("#seat-menu button, #seat-menu input")].filter((n) => n.offsetParent !== null);
    if (!inside.length) return;
    const first = inside[0], last = inside[inside.length - 1];
    if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
    else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
  },
};

// The setup page of an idle table: built once per ruleset (so a state update never wipes what
// the judge is typing), sent to POST /api/judge/start; Resume/Discard for a power cut's game.
const Setup = {
  offer: null, built: null,

  draw(offer) {
    Setup.offer = offer;
    const select = document.getElementById("ruleset");
    if (!Setup.built) {
      select.replaceChildren(...offer.rulesets.map((r) => {
        const option = Table.el("option", null, r.title);
        option.value = r.name;
        return option;
      }));
      select.value = offer.default;
      document.getElementById("roster").replaceChildren(...Array.from({ length: offer.seats }, (_, i) => {
        const input = Table.el("input");
        input.dataset.seat = i + 1; input.placeholder = Table.say("name_placeholder", { seat: i + 1 });
        input.autocomplete = "off"; input.setAttribute("aria-label", Table.say("name_label", { seat: i + 1 }));
        if (offer.name_max) input.maxLength = offer.name_max;
        return input;
      }));
      document.getElementById("deal-modes").replaceChildren(...Object.entries(offer.deal_modes).map(([mode, text]) => {
        const label = Table.el("label"), radio = Table.el("input");
        radio.type = "radio"; radio.name = "deal"; radio.value = mode; radio.checked = mode === "host";
        radio.onchange = () => document.getElementById("cards").classList.toggle("hidden", mode !== "typed");
        label.append(radio, Table.el("span", null, text));
        return label;
      }));
      Setup.buildOptions();
    }
    Setup.prefill(offer.scheduled || {});
    Setup.drawBest(offer.best);
    const waiting = offer.unfinished;
    document.getElementById("unfinished").classList.toggle("hidden", !waiting);
    document.getElementById("unfinished-text").textContent = waiting ? Table.say("unfinished", { game: waiting }) : "";
    document.getElementById("start-button").disabled = Boolean(waiting || offer.halted);
  },

  // A tournament table's names from the stored schedule (serve --tournament): filled in where the
  // judge has not typed a name of his own, and changed with the round.
  prefill(names) {
    document.querySelectorAll("#roster input").forEach((input) => {
      const name = names[input.dataset.seat] || "";
      if (input.value === (input.dataset.scheduled || "")) input.value = name;
      input.dataset.scheduled = name;
    });
  },

  drawBest(best) {
    document.getElementById("best").classList.toggle("hidden", !best);
    if (!best) return;
    document.getElementById("best-title").textContent =
      Table.say(best.chosen ? "best_chosen" : "best_points", { points: best.points, seat: best.chosen });
    document.getElementById("best-seats").replaceChildren(...Array.from({ length: best.seats }, (_, i) => {
      const seat = i + 1, tile = Table.el("button", "seat");
      tile.type = "button"; tile.dataset.best = seat;
      tile.classList.toggle("selected", best.chosen === seat);
      tile.append(Table.el("div", "num", seat), Table.el("div", "name", best.names[String(seat)] || ""));
      tile.onclick = () => Setup.act("/api/judge/best", { seat });
      return tile;
    }));
  },

  buildOptions() {
    const name = document.getElementById("ruleset").value;
    const ruleset = Setup.offer.rulesets.find((r) => r.name === name);
    Setup.built = name;
    document.getElementById("options").replaceChildren(...ruleset.options.map((o) => {
      const label = Table.el("label", null, `${o.label || o.name} `);
      let field;
      if (o.kind === "int") {
        field = Table.el("input"); field.type = "number"; field.min = o.min; if (o.max != null) field.max = o.max; field.value = o.default;
      } else {
        field = Table.el("select");
        const values = o.kind === "bool" ? ["true", "false"] : o.values;
        field.replaceChildren(...values.map((v) => {
          const shown = o.kind === "bool" ? Table.say(v === "true" ? "yes" : "no") : (o.labels || {})[v] || v;
          const option = Table.el("option", null, shown);
          option.value = v;
          return option;
        }));
        field.value = String(o.default);
      }
      field.dataset.option = o.name;
      label.append(field);
      return label;
    }));
  },

  choice() {
    const options = {}, names = {};
    document.querySelectorAll("#options [data-option]").forEach((f) => { options[f.dataset.option] = f.value; });
    document.querySelectorAll("#roster input").forEach((f) => { if (f.value.trim()) names[f.dataset.seat] = f.value.trim(); });
    const deal = document.querySelector("#deal-modes input:checked").value;
    const choice = { ruleset: document.getElementById("ruleset").value, options, names, deal };
    if (deal === "typed") choice.cards = document.getElementById("cards").value;
    return choice;
  },

  async act(path, body) {
    const answer = document.getElementById("answer");
    const [reply, said] = await Judge.post(path, body);
    answer.className = "answer " + (reply.ok ? "ok" : "bad");
    answer.dataset.status = reply.status;
    answer.textContent = reply.ok ? said.answer : said.error;
  },
};

document.getElementById("ruleset").addEventListener("change", Setup.buildOptions);
document.getElementById("setup-form").addEventListener("submit", (event) => {
  event.preventDefault();
  Setup.act("/api/judge/start", Setup.choice());
});
document.getElementById("resume-button").addEventListener("click", () => Setup.act("/api/judge/resume"));
document.getElementById("discard-button").addEventListener("click", () => Setup.act("/api/judge/discard"));
document.getElementById("login").addEventListener("submit", Judge.login);
document.getElementById("typed").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("typed-command");
  if (input.value.trim()) Judge.send(input.value.trim());
  input.value = "";
});
document.querySelectorAll(".controls button[data-command]").forEach((b) => b.addEventListener("click", () => Judge.actionTapped(b)));
document.getElementById("seat-actions").addEventListener("click", (event) => Judge.seatActions(event.currentTarget));
document.querySelectorAll("#speech-tools button[data-speech]").forEach((b) => b.addEventListener("click", () => Judge.speechTapped(b)));
document.getElementById("seat-menu-close").addEventListener("click", () => SeatMenu.close());
document.getElementById("seat-menu").addEventListener("keydown", (event) => {
  if (event.key === "Escape") SeatMenu.close(); else SeatMenu.trap(event);
});
Judge.start();
