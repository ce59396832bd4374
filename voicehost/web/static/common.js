// Shared by the table display and the judge console: the WebSocket that always carries the whole
// state (so a phone that rejoins misses nothing), and drawing that state. No framework, no CDN.
"use strict";

const Table = {
  state: null, receivedAt: 0,

  // onEnded: the server closed the socket for good (the judge's session ended, code 4001).
  connect(path, onState, onEnded) {
    const status = document.getElementById("conn");
    let delay = 500;
    const open = () => {
      const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + path);
      ws.onopen = () => { delay = 500; status.textContent = "на связи"; status.classList.remove("lost"); };
      ws.onmessage = (msg) => {
        const data = JSON.parse(msg.data);
        if (data.type !== "state") return;
        Table.state = data.state; Table.receivedAt = performance.now(); Table.seq = data.seq;
        document.body.dataset.seq = data.seq;
        onState(data.state);
      };
      ws.onclose = (event) => {
        if (event.code === 4001 && onEnded) return onEnded();
        status.textContent = "нет связи — переподключаюсь…"; status.classList.add("lost");
        setTimeout(open, delay); delay = Math.min(delay * 2, 5000);
      };
    };
    open();
    setInterval(() => Table.tick(), 200);
  },

  el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  },

  who(seat, name) { return name ? `${seat} · ${name}` : `Игрок ${seat}`; },

  timeLeft() {
    const s = Table.state;
    if (!s || !s.speaker) return null;
    const elapsed = s.paused ? 0 : (performance.now() - Table.receivedAt) / 1000 * s.speed;
    return Math.max(0, s.speaker.left - elapsed);
  },

  tick() {
    const s = Table.state, box = document.getElementById("speaker");
    if (!s || !box || !s.speaker) return;
    const left = Table.timeLeft();
    const clock = document.getElementById("clock");
    clock.textContent = Table.mmss(left);
    box.classList.toggle("warning", s.speaker.warning_s !== null && left <= s.speaker.warning_s);
  },

  mmss(seconds) {
    const whole = Math.ceil(seconds);
    return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
  },

  draw(s, onSeat) {
    document.getElementById("phase").textContent = s.phase.text;
    document.getElementById("paused").classList.toggle("hidden", !s.paused);
    const speaker = document.getElementById("speaker");
    speaker.classList.toggle("hidden", !s.speaker);
    if (s.speaker) {
      document.getElementById("speaker-who").textContent = Table.who(s.speaker.seat, s.speaker.name);
      document.getElementById("speaker-turn").textContent = s.speaker.turn_text;
      Table.tick();
    }
    const seats = document.getElementById("seats");
    seats.replaceChildren(...s.seats.map((seat) => {
      const tile = Table.el("div", "seat");
      tile.dataset.seat = seat.seat;
      tile.classList.toggle("is-out", !seat.alive);
      tile.classList.toggle("nominated", seat.nominated);
      tile.classList.toggle("speaking", seat.speaking);
      tile.classList.toggle("voting", s.vote && s.vote.open === seat.seat);
      tile.append(Table.el("div", "num", seat.seat), Table.el("div", "name", seat.name || ""));
      if (seat.fouls) tile.append(Table.el("div", "fouls", "Ф".repeat(seat.fouls)));
      if (seat.out) tile.append(Table.el("div", "out", seat.out.text));
      if (onSeat) onSeat(tile, seat);
      return tile;
    }));
    const noms = document.getElementById("nominations");
    noms.textContent = s.nominations.length ? s.nominations.map((n) => n.target).join(" → ") : "никто не выставлен";
    noms.classList.toggle("empty", !s.nominations.length);
    const vote = document.getElementById("vote");
    vote.classList.toggle("hidden", !s.vote);
    if (s.vote) {
      const title = s.vote.round === "main" ? "Голосование" : "Переголосование";
      document.getElementById("vote-title").textContent = s.vote.open !== null && s.vote.open !== undefined
        ? `${title}: сейчас за ${s.vote.open === 0 ? "«все покидают»" : "игрока " + s.vote.open}` : title;
      document.getElementById("counts").textContent =
        s.vote.counts.map(([c, n]) => `${c}: ${n}`).join("   ") + (s.vote.counted ? "  (подсчитано)" : "");
    }
    document.getElementById("result").textContent = s.result || "";
    const subs = document.getElementById("subtitles");
    subs.replaceChildren(...s.subtitles.slice(-4).map((line) => Table.el("p", null, line.text)));
    const log = document.getElementById("log");
    if (log) log.replaceChildren(...s.log.slice(-8).reverse().map((line) => Table.el("p", null, line)));
  },
};
