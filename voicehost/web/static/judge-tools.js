// The judge's own controls on his phone (issue 31): the speaker's clock (time +S / -S, restart,
// back, hold, release), a note on a seat or the game, annul or stop with a reason, the best
// player after the game, and logging out. Each button sends the console's own words through
// Judge.send (judge.js), so the phone and the terminal are one console; the notes are drawn
// from the judge's own state (never the public one).
"use strict";

const JudgeTools = {
  // [label, what a screen reader says, the command (or a function that asks for it)]
  buttons: [
    ["+30 с", "Добавить говорящему 30 секунд", "time +30"],
    ["−10 с", "Снять у говорящего 10 секунд", "time -10"],
    ["Речь заново", "Начать текущую речь заново, с полным временем", "restart"],
    ["Вернуть слово", "Вернуть слово прошлому говорящему, с его оставшимся временем", "back"],
    ["Стоп-время", "Остановить время речи, не ставя игру на паузу", "hold"],
    ["Пустить время", "Снова пустить время речи", "release"],
    ["Заметка…", "Заметка судьи об игроке или об игре", () => JudgeTools.ask("note")],
    ["Лучший игрок…", "Лучший игрок, после игры", () => JudgeTools.ask("best")],
    ["Аннулировать…", "Аннулировать игру, с причиной", () => JudgeTools.ask("annul")],
    ["Остановить игру…", "Остановить игру, с причиной", () => JudgeTools.ask("stop")],
  ],

  install() {
    const controls = document.querySelector("#console .controls");
    if (!controls) return;
    const box = document.createElement("div");
    box.className = "controls in-game";
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", "Время речи и решения судьи");
    for (const [label, spoken, command] of JudgeTools.buttons) {
      const button = JudgeTools.button(label, spoken);
      if (label.startsWith("Аннулировать") || label.startsWith("Остановить")) button.className = "danger";
      button.addEventListener("click", () => {
        const line = typeof command === "function" ? command() : command;
        if (line) Judge.send(line);
      });
      box.append(button);
    }
    controls.after(box);
    const notes = document.createElement("section");
    notes.className = "box log";
    notes.innerHTML = "<h2>Заметки судьи (только судье)</h2><div id=\"judge-notes\" aria-live=\"polite\"></div>";
    box.after(notes);
    const out = JudgeTools.button("Выйти", "Выйти из пульта судьи");
    out.id = "logout-button";
    out.addEventListener("click", JudgeTools.logout);
    document.querySelector("#console .bar")?.append(out);
    setInterval(JudgeTools.drawNotes, 1000);
  },

  button(label, spoken) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = label;
    button.setAttribute("aria-label", spoken);
    return button;
  },

  ask(name) {
    // note N text / best N / annul reason / stop reason, as typed at the terminal
    if (name === "best") {
      const seat = prompt("Лучший игрок: номер места");
      return seat ? `best ${seat.trim()}` : null;
    }
    if (name === "note") {
      const seat = prompt("Заметка: номер места (0 — об игре)", "0");
      if (seat === null) return null;
      const text = prompt("Текст заметки");
      return text ? `note ${seat.trim()} ${text.trim()}` : null;
    }
    const reason = prompt(name === "annul" ? "Причина аннулирования" : "Причина остановки");
    return reason ? `${name} ${reason.trim()}` : null;
  },

  drawNotes() {
    const place = document.getElementById("judge-notes");
    const notes = (Table.state && Table.state.notes) || [];
    if (!place || place.dataset.count === String(notes.length)) return;
    place.dataset.count = String(notes.length);
    place.replaceChildren(...notes.map((n) => Table.el("p", null, n.seat ? `Место ${n.seat}: ${n.text}` : `Игра: ${n.text}`)));
  },

  async logout() {
    await fetch("/api/logout", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": Judge.csrf || "" }, body: "{}",
    }).catch(() => null);
    location.reload();
  },
};

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", JudgeTools.install);
else JudgeTools.install();
