// The tournament screen: the board over one WebSocket (the whole board each time, so a screen
// that rejoins misses nothing), each table's speaker clock counted down between messages.
"use strict";

const Club = {
  board: null, receivedAt: 0, texts: {},

  say(key, values) {
    let text = Club.texts[key] || "";
    for (const [name, value] of Object.entries(values || {})) text = text.split(`{${name}}`).join(String(value));
    return text;
  },

  el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  },

  connect() {
    const status = document.getElementById("conn");
    let delay = 500;
    const open = () => {
      const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
      ws.onopen = () => { delay = 500; status.classList.remove("lost"); };
      ws.onmessage = (msg) => {
        const data = JSON.parse(msg.data);
        if (data.type !== "board") return;
        Club.board = data.board; Club.texts = data.board.texts || {}; Club.receivedAt = performance.now();
        status.textContent = Club.say("connected");
        document.body.dataset.seq = data.seq;
        Club.draw();
        if (window.onClubBoard) window.onClubBoard(data);
      };
      ws.onclose = () => {
        status.textContent = Club.say("lost") || "…"; status.classList.add("lost");
        setTimeout(open, delay); delay = Math.min(delay * 2, 5000);
      };
    };
    open();
    setInterval(() => Club.tick(), 250);
  },

  clock(seconds) {
    const s = Math.ceil(seconds);
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  },

  left(table) {
    const speaker = table.state.speaker;
    if (!speaker) return null;
    const s = table.state;
    const elapsed = s.paused || table.dropped ? 0 : (performance.now() - Club.receivedAt) / 1000 * s.speed;
    return Math.max(0, speaker.left - elapsed);
  },

  tick() {
    if (!Club.board) return;
    for (const table of Club.board.tables) {
      const node = document.querySelector(`.card[data-key="${CSS.escape(table.key)}"] .clock`);
      const left = Club.left(table);
      if (node && left !== null) node.textContent = Club.clock(left);
    }
  },

  draw() {
    const b = Club.board;
    document.getElementById("title").textContent = b.tournament ? Club.say("tournament", {name: b.tournament})
                                                                 : Club.say("title");
    Club.drawTables(b.tables);
    Club.drawStandings(b);
    Club.drawSeating(b);
  },

  drawTables(tables) {
    const box = document.getElementById("tables");
    box.replaceChildren();
    if (!tables.length) { box.append(Club.el("div", "empty", Club.say("no_tables"))); return; }
    for (const table of tables) box.append(Club.card(table));
  },

  card(table) {
    const s = table.state, card = Club.el("div", "card");
    card.dataset.key = table.key; card.dataset.table = table.table; card.dataset.phase = s.phase.kind;
    if (table.dropped) { card.classList.add("is-dropped"); card.dataset.dropped = "1"; }
    const head = Club.el("div", "head");
    head.append(Club.el("span", "name", Club.say("table", {table: table.table})));
    if (table.round !== null) head.append(Club.el("span", "round", Club.say("round", {round: table.round})));
    card.append(head, Club.el("div", "dropped", Club.say("dropped")));
    card.append(Club.el("div", "phase", s.phase.text));
    if (s.paused) card.append(Club.el("div", "paused", Club.say("paused")));
    if (s.speaker) {
      const box = Club.el("div", "speaker");
      const who = s.speaker.name ? `${s.speaker.seat} · ${s.speaker.name}` : String(s.speaker.seat);
      const text = Club.el("div", "who");
      text.append(Club.el("div", "line speaker-who", Club.say("speaker", {who: who})),
                  Club.el("div", "line", s.speaker.turn_text));
      box.append(text, Club.el("div", "clock", Club.clock(Club.left(table))));
      card.append(box);
    }
    if (s.seats.length) {
      const alive = s.seats.filter((seat) => seat.alive).length;
      card.append(Club.el("div", "line alive", Club.say("alive", {alive: alive, seats: s.seats.length})));
    }
    if (s.nominations.length) {
      const list = s.nominations.map((n) => n.target).join(", ");
      card.append(Club.el("div", "line nominations", Club.say("nominations", {list: list})));
    }
    if (s.result) card.append(Club.el("div", "line result", Club.say("result", {text: s.result})));
    return card;
  },

  drawStandings(b) {
    const title = document.getElementById("standings-title"), box = document.getElementById("standings");
    title.textContent = Club.say("standings") + (b.games ? " — " + Club.say("standings_after", {games: b.games}) : "");
    box.replaceChildren();
    if (b.hidden) { box.append(Club.el("div", "empty", Club.say("standings_hidden"))); return; }
    if (!b.standings.length) { box.append(Club.el("div", "empty", Club.say("no_games"))); return; }
    const table = Club.el("table", "standings"), head = Club.el("tr");
    // The columns are the server's (the records' standings row): the page names none of its own.
    for (const column of b.columns) head.append(Club.el("th", column.key, column.title));
    table.append(head);
    for (const row of b.standings) {
      const tr = Club.el("tr");
      tr.dataset.player = row.player;
      for (const column of b.columns) {
        const value = row[column.key];
        tr.append(Club.el("td", column.key, column.kind === "points" ? Number(value).toFixed(2) : value));
      }
      table.append(tr);
    }
    box.append(table);
  },

  drawSeating(b) {
    const section = document.getElementById("seating-box"), box = document.getElementById("seating");
    section.classList.toggle("hidden", !b.seating.length);
    document.getElementById("seating-title").textContent = Club.say("seating", {round: b.next_round ?? ""});
    box.replaceChildren();
    for (const seating of b.seating) {
      const card = Club.el("div", "card");
      card.dataset.seating = seating.table;
      card.append(Club.el("div", "name", Club.say("table", {table: seating.table})));
      const list = Club.el("ol");
      for (const name of seating.players) list.append(Club.el("li", null, name));
      card.append(list);
      box.append(card);
    }
  },
};

Club.connect();
