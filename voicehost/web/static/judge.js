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
    Judge.showLogin("Сервер снова на связи, но вход сброшен (сервер перезапускался). Введите PIN ещё раз.");
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
  },

  draw(s) {
    const idle = Boolean(s.setup);
    document.getElementById("setup").classList.toggle("hidden", !idle);
    document.querySelectorAll(".in-game").forEach((node) => node.classList.toggle("hidden", idle));
    if (idle) Setup.draw(s.setup);
    Table.draw(s, (tile, seat) => {
      const role = s.roles[String(seat.seat)], kind = (s.role_kinds || {})[String(seat.seat)];
      if (role) tile.append(Table.el("div", "role" + (kind ? ` role-${kind}` : ""), role));
      if (kind) tile.dataset.role = kind;
      const selected = Judge.selected === seat.seat;
      tile.classList.toggle("selected", selected);
      tile.setAttribute("role", "button"); tile.tabIndex = 0;
      tile.setAttribute("aria-pressed", String(selected));
      tile.onclick = () => Judge.seatTapped(seat.seat);
      tile.onkeydown = (event) => {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); Judge.seatTapped(seat.seat, true); }
      };
    });
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
      ...s.answers.slice(-6).reverse().map((a) => Table.el("p", a.ok ? null : "out", `${a.command}: ${a.answer}`)));
  },

  seatTapped(seat, byKey) {
    if (Judge.armed) {
      const [command, first] = Judge.armed;
      Judge.armed = null;
      return Judge.send(`${command} ${first} ${seat}`);
    }
    Judge.selected = Judge.selected === seat ? null : seat;
    Judge.hint(Judge.selected ? `Место ${seat}: выберите действие.` : "Выберите место, затем действие.");
    if (Table.state) Judge.draw(Table.state);
    const tile = document.querySelector(`#seats .seat[data-seat="${seat}"]`);
    if (tile && byKey) tile.focus();   // redrawn: keyboard focus stays on the seat
  },

  actionTapped(button) {
    const command = button.dataset.command, arity = Number(button.dataset.arity);
    document.querySelectorAll("button.armed").forEach((b) => b.classList.remove("armed"));
    if (arity === 0) return Judge.send(command);
    if (Judge.selected === null) return Judge.hint("Сначала выберите место.");
    const seat = Judge.selected;
    Judge.selected = null;
    if (command === "vote0") return Judge.send(`vote ${seat} 0`);
    if (arity === 1) return Judge.send(`${command} ${seat}`);
    Judge.armed = [command, seat];
    button.classList.add("armed");
    const asks = { nominate: "кого выставляет", withdraw: "кого отзывает", blood: "кого называет", vote: "за кого голосовал" };
    Judge.hint(`Место ${seat}: ${asks[command]}? Выберите место.`);
  },

  hint(text) { document.getElementById("hint").textContent = text; },

  async post(path, body) {
    const reply = await fetch(path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": Judge.csrf || "" },
      body: JSON.stringify(body || {}),
    });
    const answer = await reply.json().catch(() => ({ error: `ошибка ${reply.status}` }));
    if (reply.status === 401) Judge.showLogin();
    return [reply, answer];
  },

  async send(command) {
    const answer = document.getElementById("answer");
    answer.className = "answer"; answer.textContent = `${command}…`;
    Judge.hint("Выберите место, затем действие.");
    if (Table.state) Judge.draw(Table.state);
    const reply = await fetch("/api/judge/command", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": Judge.csrf || "" },
      body: JSON.stringify({ command }),
    });
    const body = await reply.json().catch(() => ({ error: `ошибка ${reply.status}` }));
    if (reply.status === 401) return Judge.showLogin();
    // done (green), held until «Продолжить» or still queued (amber), refused (red, with the sentence)
    const look = { done: "ok", held: "held", queued: "held" }[body.outcome] || (reply.ok ? "ok" : "bad");
    answer.className = "answer " + look;
    answer.dataset.command = command;
    answer.dataset.outcome = body.outcome || "";
    answer.dataset.status = reply.status;
    answer.textContent = `${command}: ${reply.ok ? body.answer : body.error}`;
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
        input.dataset.seat = i + 1; input.placeholder = `${i + 1}: имя`; input.autocomplete = "off";
        input.setAttribute("aria-label", `Имя игрока на месте ${i + 1}`);
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
    Setup.drawBest(offer.best);
    const waiting = offer.unfinished;
    document.getElementById("unfinished").classList.toggle("hidden", !waiting);
    document.getElementById("unfinished-text").textContent = waiting ? `Прерванная игра: ${waiting}` : "";
    document.getElementById("start-button").disabled = Boolean(waiting || offer.halted);
  },

  drawBest(best) {
    document.getElementById("best").classList.toggle("hidden", !best);
    if (!best) return;
    document.getElementById("best-title").textContent =
      `Лучший игрок прошлой игры (+${best.points})` + (best.chosen ? `: место ${best.chosen}` : "");
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
          const shown = o.kind === "bool" ? (v === "true" ? "да" : "нет") : (o.labels || {})[v] || v;
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
document.querySelectorAll(".controls button").forEach((b) => b.addEventListener("click", () => Judge.actionTapped(b)));
Judge.start();
