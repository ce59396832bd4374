// The judge console: every console command as a touch control. A command goes to
// POST /api/judge/command in the console's own words, with the session's CSRF token; the host
// answers once the director has taken it (journaled) or refused it (a Russian line).
"use strict";

const Judge = {
  csrf: null, selected: null, armed: null, busy: false,

  async start() {
    const reply = await fetch("/api/judge/state", { credentials: "same-origin" });
    if (reply.status === 401) return Judge.showLogin();
    const state = await reply.json();
    Judge.csrf = state.csrf;
    Judge.showConsole();
  },

  showLogin() {
    document.getElementById("login").classList.remove("hidden");
    document.getElementById("console").classList.add("hidden");
    document.getElementById("pin").focus();
  },

  showConsole() {
    document.getElementById("login").classList.add("hidden");
    document.getElementById("console").classList.remove("hidden");
    Table.connect("/ws/judge", Judge.draw);
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
    Table.draw(s, (tile, seat) => {
      const role = s.roles[String(seat.seat)];
      if (role) tile.append(Table.el("div", "role", role));
      tile.classList.toggle("selected", Judge.selected === seat.seat);
      tile.onclick = () => Judge.seatTapped(seat.seat);
    });
    document.getElementById("night").replaceChildren(
      ...s.night_log.slice(-8).reverse().map((line) => Table.el("p", null, line)));
    document.getElementById("answers").replaceChildren(
      ...s.answers.slice(-6).reverse().map((a) => Table.el("p", a.ok ? null : "out", `${a.command}: ${a.answer}`)));
  },

  seatTapped(seat) {
    if (Judge.armed) {
      const [command, first] = Judge.armed;
      Judge.armed = null;
      return Judge.send(`${command} ${first} ${seat}`);
    }
    Judge.selected = Judge.selected === seat ? null : seat;
    Judge.hint(Judge.selected ? `Место ${seat}: выберите действие.` : "Выберите место, затем действие.");
    if (Table.state) Judge.draw(Table.state);
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
    answer.className = "answer " + (reply.ok ? "ok" : "bad");
    answer.dataset.command = command;
    answer.dataset.status = reply.status;
    answer.textContent = `${command}: ${reply.ok ? body.answer : body.error}`;
  },
};

document.getElementById("login").addEventListener("submit", Judge.login);
document.getElementById("typed").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("typed-command");
  if (input.value.trim()) Judge.send(input.value.trim());
  input.value = "";
});
document.querySelectorAll(".controls button").forEach((b) => b.addEventListener("click", () => Judge.actionTapped(b)));
Judge.start();
