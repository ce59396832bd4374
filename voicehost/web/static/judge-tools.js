// The judge's own controls on his phone (issue 31): the speaker's clock (time +30 / -10, restart,
// back, hold, release), a note on a seat or the game, the tournament's best move and the judge's
// bonus and penalty points (only where the ruleset's options offer them), the best player, annul
// or stop with a reason (each asks once), the final points of a finished game, and logging out.
//
// A part of the page through its hook (docs/web.md, «Page hooks»): everything is drawn from the
// judge's state as each "voicehost:state" event brings it — its `tools` (the controls and every
// text, from config/phrases [web]), `notes` and `final`. Each control sends the console's own
// words through Judge.send (judge.js), so the phone and the terminal are one console. The clock's
// tools stand under the clock (#speech-tools, shown during a speech); the rest sit in a
// collapsible section below the seats and controls, so the count and the result stay in view.
"use strict";

const JudgeTools = {
  built: null,   // the commands the built controls stand for: rebuilt only when they change

  onState(event) {
    if (event.detail.path !== "/ws/judge") return;
    const s = event.detail.state;
    if (s.tools) JudgeTools.build(s.tools);
    document.getElementById("judge-tools")?.classList.toggle("hidden", Boolean(s.setup));   // as .in-game
    JudgeTools.drawNotes(s.notes || []);
    JudgeTools.drawFinal(s.final);
  },

  // The tools' section, built once per set of commands (a state never wipes what is being typed).
  build(tools) {
    const key = JSON.stringify([tools.buttons.map((b) => b.command), tools.forms.map((f) => f.command)]);
    if (JudgeTools.built === key) return;
    JudgeTools.built = key;
    let box = document.getElementById("judge-tools");
    if (!box) {
      box = Table.el("details", "box tools in-game");
      box.id = "judge-tools";
      (document.getElementById("typed") || document.querySelector("#console .controls")).after(box);
    }
    const summary = Table.el("summary", null, tools.title);
    // The clock's tools stand right under the clock, with the speech's own (judge.html: #speech-tools).
    const speech = document.getElementById("speech-tools");
    speech.querySelectorAll("[data-tool]").forEach((old) => old.remove());
    speech.prepend(...tools.buttons.map((b) => {
      const button = JudgeTools.button(b.label, b.help);
      button.dataset.tool = b.command;
      button.addEventListener("click", () => Judge.send(b.command));
      return button;
    }));
    box.replaceChildren(summary, ...tools.forms.map((f) => JudgeTools.form(f, tools.send)));
    const notes = Table.el("section", "log");
    notes.setAttribute("aria-labelledby", "judge-notes-title");
    const title = Table.el("h2", null, tools.notes);
    title.id = "judge-notes-title";
    const list = Table.el("div");
    list.id = "judge-notes";
    notes.append(title, list);
    box.append(notes);
    let out = document.getElementById("logout-button");
    if (!out) {
      out = JudgeTools.button(tools.logout);
      out.id = "logout-button";
      out.addEventListener("click", JudgeTools.logout);
      document.getElementById("console").append(out);
    }
  },

  // The visible text is the accessible name (axe: label-content-name-mismatch); what the control
  // does is its description.
  button(label, help) {
    const button = Table.el("button", null, label);
    button.type = "button";
    if (help) button.title = help;
    return button;
  },

  // A command with words after its name: one labelled field each, sent as «command v1 v2 …».
  form(f, send) {
    const form = Table.el("form", "tool-form");
    form.dataset.tool = f.command;
    const title = Table.el("h3", null, f.label);
    title.id = `tool-${f.command}-title`;
    const help = Table.el("p", "tool-help", f.help);
    help.id = `tool-${f.command}-help`;
    form.setAttribute("aria-labelledby", title.id);
    form.setAttribute("aria-describedby", help.id);
    const fields = f.fields.map((field) => {
      const label = Table.el("label", null, field.label + " ");
      const input = Table.el("input");
      input.name = field.name; input.autocomplete = "off"; input.required = true;
      if (field.kind === "seat") { input.inputMode = "numeric"; input.size = 3; }
      label.append(input);
      return label;
    });
    const submit = Table.el("button", f.danger ? "danger" : null, `${f.label}: ${send}`);
    submit.type = "submit";
    form.append(title, help, ...fields, submit);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const words = [...form.querySelectorAll("input")].map((input) =>
        input.name === "seats" ? input.value.replace(/[,;]/g, " ").trim().split(/\s+/).join(" ") : input.value.trim());
      if (words.some((word) => !word)) return;
      const act = () => {
        Judge.send([f.command, ...words].join(" "));
        form.querySelectorAll("input").forEach((input) => { input.value = ""; });
      };
      // annul and stop end the game: they ask once (judge.js: Confirm)
      if (f.danger) Confirm.ask(submit, Table.say("confirm_form", { action: f.label }), act); else act();
    });
    return form;
  },

  drawNotes(notes) {
    const place = document.getElementById("judge-notes");
    if (!place || place.dataset.count === String(notes.length)) return;
    place.dataset.count = String(notes.length);
    place.replaceChildren(...notes.map((n) => Table.el("p", null, n.line)));   // worded by the server ([web])
  },

  // A finished game's points per seat, just under the result (the server words each row).
  drawFinal(final) {
    let box = document.getElementById("final");
    if (!final) { if (box) box.classList.add("hidden"); return; }
    if (!box) {
      box = Table.el("section", "box final");
      box.id = "final";
      box.setAttribute("aria-labelledby", "final-title");
      const title = Table.el("h2");
      title.id = "final-title";
      box.append(title, Table.el("ol", "final-rows"));
      document.getElementById("result").closest("section").after(box);
    }
    box.classList.remove("hidden");
    box.querySelector("#final-title").textContent = final.title;
    box.querySelector(".final-rows").replaceChildren(...final.rows.map((row) => {
      const item = Table.el("li", null, `${Table.who(row.seat, row.name)}: ${row.text}`);
      item.dataset.seat = row.seat;
      item.dataset.points = row.points;
      return item;
    }));
  },

  async logout() {
    await fetch("/api/logout", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": Judge.csrf || "" }, body: "{}",
    }).catch(() => null);
    location.reload();
  },
};

document.addEventListener("voicehost:state", JudgeTools.onState);
