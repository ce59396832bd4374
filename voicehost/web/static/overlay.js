// The stream's overlay (OBS's browser source): the state pushed over its socket, drawn on every
// change; the speaker's clock counts down between messages unless the table is paused or the
// judge holds it. One page for /overlay, /overlay/roles?key=… and the club screen's
// /overlay/table/N: its socket is "/ws" + the page's own path (and key). No framework, no CDN.
"use strict";

const Overlay = {
  state: null, texts: {}, receivedAt: 0, shownVoters: new Set(),

  connect() {
    const path = "/ws" + location.pathname + location.search;
    let delay = 500;
    const open = () => {
      const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + path);
      ws.onopen = () => { delay = 500; };
      ws.onmessage = (msg) => {
        const data = JSON.parse(msg.data);
        if (data.type !== "overlay") return;
        Overlay.state = data.state; Overlay.texts = data.texts || {}; Overlay.receivedAt = performance.now();
        document.body.dataset.seq = data.seq;
        document.body.dataset.scene = data.state.scene;
        Overlay.draw(data.state);
      };
      ws.onclose = () => { setTimeout(open, delay); delay = Math.min(delay * 2, 5000); };
    };
    open();
    setInterval(() => Overlay.tick(), 200);
  },

  t(key, values) {
    let text = Overlay.texts[key] || "";
    for (const [name, value] of Object.entries(values || {})) text = text.replace(`{${name}}`, value);
    return text;
  },

  el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  },

  byId(id) { return document.getElementById(id); },

  mmss(seconds) {
    const whole = Math.ceil(seconds);
    return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
  },

  timeLeft() {
    const s = Overlay.state;
    if (!s || !s.speaker) return null;
    const still = s.paused || s.speaker.held;   // a paused table and a held clock stand still
    const elapsed = still ? 0 : (performance.now() - Overlay.receivedAt) / 1000 * s.speed;
    return Math.max(0, s.speaker.left - elapsed);
  },

  tick() {
    const s = Overlay.state;
    if (!s || !s.speaker) return;
    const left = Overlay.timeLeft(), box = Overlay.byId("speaker");
    Overlay.byId("clock").textContent = Overlay.mmss(left);
    box.classList.toggle("is-held", Boolean(s.speaker.held));
    box.classList.toggle("last10", left <= 10 && left > 5 && s.speaker.seconds > 10);
    box.classList.toggle("last5", left <= 5 && s.speaker.seconds > 5);
  },

  draw(s) {
    const phase = Overlay.byId("phase");
    phase.replaceChildren(Overlay.el("span", null, s.phase.text));
    if (s.paused) phase.append(Overlay.el("span", "paused", Overlay.t("paused")));
    Overlay.drawSpeaker(s);
    Overlay.drawNominations(s);
    Overlay.drawVote(s);
    const outcomes = Overlay.byId("outcomes");
    outcomes.classList.toggle("hidden", !s.outcomes.length || Boolean(s.card));
    outcomes.replaceChildren(...s.outcomes.map((line) => Overlay.el("p", null, line)));
    Overlay.drawCard(s.card);
    Overlay.drawSeats(s);
    Overlay.drawNight(s);
  },

  drawSpeaker(s) {
    const box = Overlay.byId("speaker");
    box.classList.toggle("hidden", !s.speaker);
    if (!s.speaker) return;
    Overlay.byId("speaker-seat").textContent = s.speaker.seat || "";
    Overlay.byId("speaker-name").textContent = s.speaker.name || "";
    Overlay.byId("speaker-turn").textContent = s.speaker.turn_text;
    const held = Overlay.byId("held");
    held.textContent = Overlay.t("held");
    held.classList.toggle("hidden", !s.speaker.held);
    Overlay.tick();
  },

  drawNominations(s) {
    Overlay.byId("noms-title").textContent = Overlay.t("nominations");
    const list = Overlay.byId("noms-list");
    list.textContent = s.nominations.length ? s.nominations.map((n) => n.text).join(", ") : Overlay.t("no_nominations");
    list.classList.toggle("empty", !s.nominations.length);
    Overlay.byId("nominations").classList.toggle("hidden", s.phase.kind !== "day" || Boolean(s.vote && s.vote.counted && !s.nominations.length));
  },

  // The vote: a line per candidate with the seats whose ballots count for him, in the order
  // they pressed — each appears as its button goes down, the newest lit — and the count once
  // it is said.
  drawVote(s) {
    const box = Overlay.byId("vote"), vote = s.card ? null : s.vote;   // the game card replaces the last vote
    box.classList.toggle("hidden", !vote);
    if (!vote) return;
    let title = Overlay.t(vote.round === "main" ? "vote" : "revote");
    if (vote.open !== null && vote.open !== undefined) {
      title += ": " + (vote.open === 0 ? Overlay.t("voting_all") : Overlay.t("voting_for", { seat: vote.open }));
    } else if (vote.counted) title += " · " + Overlay.t("counted");
    Overlay.byId("vote-title").textContent = title;
    const voters = {};
    for (const group of (s.ballots && s.ballots.groups) || []) voters[group.candidate] = group.voters;
    const rows = vote.counts.map(([candidate, n]) => {
      const row = Overlay.el("div", "group");
      row.classList.toggle("open", vote.open === candidate);
      row.dataset.candidate = candidate;
      const who = candidate === 0 ? Overlay.t("all_leave") : Overlay.t("for_seat", { seat: candidate });
      const seats = voters[candidate] || [];
      const chips = Overlay.el("span", "voters");
      seats.forEach((seat, k) => {
        const chip = Overlay.el("span", "voter", seat);
        const known = Overlay.shownVoters.has(`${candidate}:${seat}`);
        chip.classList.toggle("new", !vote.counted && vote.open === candidate && (!known || k === seats.length - 1));
        chips.append(chip);
      });
      row.append(Overlay.el("span", "who", who), chips, Overlay.el("span", "n", vote.counted ? n : seats.length || ""));
      return row;
    });
    Overlay.byId("vote-groups").replaceChildren(...rows);
    Overlay.shownVoters = new Set(Object.entries(voters).flatMap(([c, seats]) => seats.map((seat) => `${c}:${seat}`)));
  },

  drawCard(card) {
    const box = Overlay.byId("card");
    box.classList.toggle("hidden", !card);
    if (!card) return;
    Overlay.byId("card-title").textContent = card.title;
    Overlay.byId("card-winner").textContent = card.winner;
    Overlay.byId("card-rows").replaceChildren(...card.rows.map((row) => {
      const line = Overlay.el("div", "row");
      line.append(Overlay.el("span", null, row.name ? `${row.seat} · ${row.name}` : String(row.seat)),
                  Overlay.el("span", "pts", row.text));
      return line;
    }));
  },

  drawSeats(s) {
    const roles = s.role_kinds || {}, names = s.roles || {}, best = s.best_move || [];
    Overlay.byId("seats").replaceChildren(...s.seats.map((seat) => {
      const tile = Overlay.el("div", "seat");
      tile.dataset.seat = seat.seat;
      tile.classList.toggle("is-out", !seat.alive);
      tile.classList.toggle("speaking", seat.speaking);
      tile.classList.toggle("nominated", seat.nominated);
      tile.classList.toggle("on-ballot", seat.on_ballot);
      tile.classList.toggle("best-move", best.includes(seat.seat));
      tile.append(Overlay.el("div", "num", seat.seat), Overlay.el("div", "name", seat.name || ""));
      const fouls = Overlay.el("div", "fouls");
      for (let i = 0; i < seat.fouls; i++) fouls.append(Overlay.el("span"));
      tile.append(fouls);
      const voted = seat.ballot !== null && seat.ballot !== undefined;   // his hand is up: «за 5» (the lift: ✓)
      tile.classList.toggle("voted", voted);
      const tag = voted ? (seat.ballot ? Overlay.t("for_seat", { seat: seat.ballot }) : "✓")
        : !seat.alive ? seat.out || Overlay.t("out") : seat.on_ballot ? Overlay.t("on_ballot") : "";
      if (tag) tile.append(Overlay.el("div", "tag", tag));
      const kind = roles[String(seat.seat)];
      if (kind) tile.append(Overlay.el("div", `role ${kind}`, names[String(seat.seat)]));
      return tile;
    }));
  },

  drawNight(s) {
    const box = Overlay.byId("night"), lines = s.night_log || [];
    box.classList.toggle("hidden", !s.roles || Boolean(s.card) || (!lines.length && !(s.best_move || []).length));
    if (!s.roles) return;
    Overlay.byId("night-title").textContent = Overlay.t("night");
    Overlay.byId("night-lines").replaceChildren(...lines.slice(-6).map((line) => Overlay.el("p", null, line)));
    Overlay.byId("best-move").textContent = (s.best_move || []).length
      ? Overlay.t("best_move_seats", { seats: s.best_move.join(", ") }) : "";
  },
};

Overlay.connect();
