// The tournament screen on a TV: the board over one WebSocket (the whole board each time, so a
// screen that rejoins misses nothing), each table's speaker clock counted down between messages,
// and under the tables one page at a time — the standings page by page, the players' club
// ratings (OpenSkill) page by page, then the next round's seating — turned by itself every few
// seconds (?page=SECONDS, default 12). Nothing scrolls.
"use strict";

const PAGE_S = (() => {
  const asked = Number(new URLSearchParams(location.search).get("page"));
  return Number.isFinite(asked) && asked >= 1 && asked <= 300 ? asked : 12;
})();

const Club = {
  board: null, receivedAt: 0, texts: {},
  pagerKey: null, pages: [], page: 0, turnedAt: performance.now(),

  say(key, values) {
    let text = Club.texts[key] || "";
    for (const [name, value] of Object.entries(values || {})) text = text.split(`{${name}}`).join(String(value));
    return text;
  },

  // A line by the count's plural form (key_one, key_few, …) where the phrasebook has one, else key.
  counted(key, count, values) {
    const form = new Intl.PluralRules(document.documentElement.lang || "ru").select(count);
    return Club.texts[`${key}_${form}`] ? Club.say(`${key}_${form}`, values) : Club.say(key, values);
  },

  el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  },

  upright() { return window.matchMedia("(orientation: portrait)").matches; },

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
    window.addEventListener("resize", () => { if (Club.board) { Club.pagerKey = null; Club.draw(); } });
  },

  clock(seconds) {
    const s = Math.ceil(seconds);
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  },

  // A paused table, a held clock («стоп-время») and a dropped table stand still: the table's own
  // "left" is the time (as the table's own pages do, common.js).
  left(table) {
    const s = table.state, speaker = s.speaker;
    if (!speaker) return null;
    const still = s.paused || speaker.held || table.dropped;
    const elapsed = still ? 0 : (performance.now() - Club.receivedAt) / 1000 * s.speed;
    return Math.max(0, speaker.left - elapsed);
  },

  tick() {
    if (!Club.board) return;
    for (const table of Club.board.tables) {
      const node = document.querySelector(`.card[data-key="${CSS.escape(table.key)}"] .clock`);
      const left = Club.left(table);
      if (node && left !== null) node.textContent = Club.clock(left);
    }
    if (Club.pages.length > 1 && performance.now() - Club.turnedAt >= PAGE_S * 1000) Club.turn(Club.page + 1);
  },

  draw() {
    const b = Club.board;
    document.body.classList.toggle("upright", Club.upright());
    document.getElementById("title").textContent = b.tournament ? Club.say("tournament", {name: b.tournament})
                                                                 : Club.say("title");
    Club.drawTables(b.tables);
    // The pages are drawn again only when what they show changed: a table's report does not turn them back.
    const key = JSON.stringify([b.standings, b.columns, b.hidden, b.games, b.next_round, b.seating, b.skills,
                                b.skill_columns, Club.texts]);
    if (key !== Club.pagerKey) {
      Club.pagerKey = key;
      Club.drawStandings(b);
      Club.drawRatings(b);
      Club.drawSeating(b);
    }
    Club.paginate();
  },

  // ---- the tables -----------------------------------------------------------------------------

  // Up to four tables side by side in one row; five to eight in two rows of up to four; more in
  // rows of five. Each row more makes every card smaller (--s), so the pages below keep room.
  layoutTables(count) {
    const cols = count <= 4 ? Math.max(count, 1) : count <= 8 ? Math.ceil(count / 2) : 5;
    const rows = Math.max(1, Math.ceil(count / cols));
    const scale = [1, 0.74, 0.56, 0.45][Math.min(rows, 4) - 1];
    const root = document.documentElement.style;
    root.setProperty("--cols", cols); root.setProperty("--rows", rows); root.setProperty("--s", scale);
  },

  drawTables(tables) {
    const box = document.getElementById("tables");
    box.replaceChildren();
    box.classList.toggle("none", !tables.length);
    Club.layoutTables(tables.length);
    if (!tables.length) { box.append(Club.el("div", "empty", Club.say("no_tables"))); return; }
    for (const table of tables) box.append(Club.card(table));
    if (!Club.upright()) box.querySelectorAll(".card").forEach(Club.trim);
  },

  card(table) {
    const s = table.state, card = Club.el("div", "card");
    card.dataset.key = table.key; card.dataset.table = table.table; card.dataset.phase = s.phase.kind;
    if (table.dropped) { card.classList.add("is-dropped"); card.dataset.dropped = "1"; }
    const head = Club.el("div", "head"), place = Club.el("span", "place");
    place.append(Club.el("span", "name", Club.say("table", {table: table.table})));
    if (table.round !== null) place.append(" ", Club.el("span", "round", Club.say("round", {round: table.round})));
    head.append(place, Club.el("span", "phase", s.phase.text));
    card.append(head, Club.el("div", "dropped", Club.say("dropped")));
    if (s.speaker) {
      const who = s.speaker.name ? `${s.speaker.seat} · ${s.speaker.name}` : String(s.speaker.seat);
      card.append(Club.el("div", "speaker-who", who));
      const box = Club.el("div", "speaker"), marks = Club.el("div", "marks");
      box.classList.toggle("held", Boolean(s.speaker.held));
      if (s.speaker.held) marks.append(Club.el("span", "mark held", Club.say("held")));
      if (s.paused) marks.append(Club.el("span", "mark paused", Club.say("paused")));
      marks.append(Club.el("span", "line turn", s.speaker.turn_text));
      box.append(Club.el("div", "clock", Club.clock(Club.left(table))), marks);
      card.append(box);
    } else if (s.paused) {
      card.append(Club.el("span", "mark paused", Club.say("paused")));
    }
    const facts = [];   // the nominations first: what the room follows; the count of the living may be cut
    if (s.nominations.length) {
      facts.push(Club.say("nominations", {list: s.nominations.map((n) => n.target).join(", ")}));
    }
    if (s.seats.length) {
      facts.push(Club.say("alive", {alive: s.seats.filter((seat) => seat.alive).length, seats: s.seats.length}));
    }
    if (facts.length) card.append(Club.el("div", "line facts", facts.join(" · ")));
    if (s.result) card.append(Club.el("div", "line result", Club.say("result", {text: s.result})));
    return card;
  },

  // A card's last lines that its height does not hold are left out whole, never cut in half;
  // the round gives its room to the phase when the head is too narrow for both.
  trim(card) {
    const phase = card.querySelector(".phase"), round = card.querySelector(".round");
    if (round && phase.scrollWidth > phase.clientWidth + 1) round.classList.add("hidden");
    const bottom = card.getBoundingClientRect().bottom - parseFloat(getComputedStyle(card).paddingBottom);
    for (const line of [...card.querySelectorAll(".line")].reverse()) {
      if (line.getBoundingClientRect().bottom <= bottom + 0.5) break;
      line.classList.add("hidden");
    }
  },

  // ---- the pages under the tables -------------------------------------------------------------

  // Points as the club writes them: hundredths at most, no trailing zeros, its decimal mark («1,25»).
  points(value) {
    const text = String(Math.round(Number(value) * 100) / 100 + 0);
    return text.replace(".", Club.say("decimal_mark") || ".");
  },

  drawStandings(b) {
    const box = document.getElementById("standings");
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
        tr.append(Club.el("td", column.key, column.kind === "points" ? Club.points(value) : value));
      }
      table.append(tr);
    }
    box.append(table);
  },

  // A rating to tenths with the club's decimal mark and a true minus («−1,6»); rounded as
  // toFixed does (to the nearer tenth of the exact value, a tie away from zero).
  tenths(value) {
    const text = Math.abs(value).toFixed(1).replace(".", Club.say("decimal_mark") || ".");
    return (value < 0 && text.replace(/[0.,]/g, "") ? "\u2212" : "") + text;
  },

  spread(skill) { return `${Club.tenths(skill.mu)} ± ${Club.tenths(skill.sigma)}`; },

  // The players' club rating: mu − 3·sigma (the order), mu ± sigma, games, and mu ± sigma
  // (games) as red and as black. The headings are the server's, as the standings' are.
  drawRatings(b) {
    const box = document.getElementById("ratings"), titles = b.skill_columns || {};
    box.replaceChildren();
    if (!b.skills || !b.skills.length) return;
    const table = Club.el("table", "ratings"), head = Club.el("tr");
    for (const key of ["place", "player", "rating", "mu", "games", "red", "black"]) {
      head.append(Club.el("th", key === "red" || key === "black" ? `side ${key}` : key, titles[key]));
    }
    table.append(head);
    b.skills.forEach((skill, k) => {
      const tr = Club.el("tr");
      tr.dataset.player = skill.player;
      tr.append(Club.el("td", "place", String(k + 1)), Club.el("td", "player", skill.player),
                Club.el("td", "rating", Club.tenths(skill.rating)), Club.el("td", "mu", Club.spread(skill)),
                Club.el("td", "games", String(skill.games)));
      for (const side of ["red", "black"]) {
        const played = skill.sides[side], cell = Club.el("td", `side ${side}`, played ? Club.spread(played) : "—");
        if (played) cell.append(Club.el("span", "n", ` (${played.games})`));
        tr.append(cell);
      }
      table.append(tr);
    });
    box.append(table);
  },

  // The rating table's size: the names' 4.8 u when every column fits the width, else smaller,
  // not under 3.2 u (measured, as the seating's names are), until no name is cut short.
  fitRatings() {
    const box = document.getElementById("ratings");
    const unit = Math.min(window.innerHeight / 100, window.innerWidth * 0.5625 / 100);
    const names = [...box.querySelectorAll("td.player")], table = box.querySelector("table");
    let size = 4.8;
    const over = () => table.scrollWidth > box.clientWidth + 1 || names.some((n) => n.scrollWidth > n.clientWidth + 1);
    box.style.setProperty("--rate-font", `${size * unit}px`);
    while (size > 3.2 && over()) {
      size -= 0.1;
      box.style.setProperty("--rate-font", `${size * unit}px`);
    }
    box.dataset.font = size.toFixed(1);
  },

  drawSeating(b) {
    const box = document.getElementById("seating");
    box.replaceChildren();
    for (const seating of b.seating) {
      const card = Club.el("div", "table-seats");
      card.dataset.seating = seating.table;
      card.append(Club.el("div", "name", Club.say("table", {table: seating.table})));
      const list = Club.el("ol");
      seating.players.forEach((name, k) => {
        const item = Club.el("li");
        item.append(Club.el("span", "seat", String(k + 1)), Club.el("span", "who", name));
        list.append(item);
      });
      card.append(list);
      box.append(card);
    }
  },

  // The pages: as many standings rows as the room under the tables holds (measured), the rows
  // shared out evenly; the ratings the same way; then the seating, when the next round has one.
  paginate() {
    const b = Club.board, standings = document.getElementById("standings"), seating = document.getElementById("seating");
    const ratings = document.getElementById("ratings");
    const rows = [...standings.querySelectorAll("tr[data-player]")], skills = b.skills || [];
    if (Club.upright()) {
      standings.classList.remove("hidden"); seating.classList.toggle("hidden", !b.seating.length);
      ratings.classList.toggle("hidden", !skills.length);
      ratings.style.removeProperty("--rate-font");
      document.querySelectorAll("#pager tr[data-player]").forEach((tr) => tr.classList.remove("off"));
      Club.pages = [{kind: rows.length ? "standings" : "empty", from: 0, to: rows.length}];
      Club.show(0);
      return;
    }
    const pages = Club.rowPages(standings, "standings");
    if (!rows.length && !b.seating.length) pages.push({kind: "empty"});
    if (skills.length) {
      Club.only(ratings);
      Club.fitRatings();
      pages.push(...Club.rowPages(ratings, "ratings"));
    }
    // The seating: every table on one page up to five, else four tables a page.
    const each = b.seating.length <= 5 ? b.seating.length : 4;
    for (let from = 0; from < b.seating.length; from += each) {
      pages.push({kind: "seating", from: from, to: Math.min(b.seating.length, from + each)});
    }
    const same = JSON.stringify(pages) === JSON.stringify(Club.pages);
    Club.pages = pages;
    if (b.seating.length) Club.fitSeating(pages.filter((p) => p.kind === "seating"));
    Club.show(same ? Club.page : Math.min(Club.page, pages.length - 1));
  },

  // The seating's names as large as the standings' when they fit; smaller when a page's tables
  // and seats need it (measured on each seating page, with the standings out of the way).
  fitSeating(pages) {
    const box = document.getElementById("seating"), standings = document.getElementById("standings");
    const hidden = [box.classList.contains("hidden"), standings.classList.contains("hidden")];
    box.classList.remove("hidden"); standings.classList.add("hidden");
    const unit = Math.min(window.innerHeight / 100, window.innerWidth * 0.5625 / 100);
    let size = 4.8;
    for (const page of pages) {
      Club.seatingPage(page);
      const names = [...box.querySelectorAll(".table-seats:not(.off) .who")];
      const over = () => box.scrollHeight > box.clientHeight + 1 ||
                         (size > 3.2 && names.some((n) => n.scrollWidth > n.clientWidth + 1));
      box.style.setProperty("--seat-font", `${size * unit}px`);
      while (size > 2 && over()) {
        size -= 0.1;
        box.style.setProperty("--seat-font", `${size * unit}px`);
      }
    }
    box.dataset.font = size.toFixed(1);
    box.classList.toggle("hidden", hidden[0]); standings.classList.toggle("hidden", hidden[1]);
  },

  only(box) {
    for (const page of document.querySelectorAll("#pager .page")) page.classList.toggle("hidden", page !== box);
  },

  // A table's rows in pages: as many a page as its box holds (measured), shared out evenly.
  rowPages(box, kind) {
    const rows = [...box.querySelectorAll("tr[data-player]")], pages = [];
    if (!rows.length) return pages;
    Club.only(box);
    rows.forEach((tr) => tr.classList.remove("off"));
    const head = box.querySelector("tr").getBoundingClientRect().height;
    const tall = Math.max(...rows.slice(0, 3).map((tr) => tr.getBoundingClientRect().height));
    const fit = Math.max(1, Math.floor((box.clientHeight - head) / tall - 0.1));
    const count = Math.ceil(rows.length / fit), each = Math.ceil(rows.length / count);
    for (let from = 0; from < rows.length; from += each) pages.push({kind, from, to: Math.min(rows.length, from + each)});
    return pages;
  },

  seatingPage(page) {
    const box = document.getElementById("seating");
    box.style.setProperty("--seat-cols", Math.max(1, page.to - page.from));
    box.querySelectorAll(".table-seats").forEach((card, k) => card.classList.toggle("off", k < page.from || k >= page.to));
  },

  turn(index) { Club.show(index % Math.max(1, Club.pages.length)); Club.turnedAt = performance.now(); },

  show(index) {
    const b = Club.board, page = Club.pages[index] || {kind: "empty"};
    Club.page = index;
    const standings = document.getElementById("standings"), seating = document.getElementById("seating");
    const title = document.getElementById("pager-title"), count = document.getElementById("pager-count");
    const standingPages = Club.pages.filter((p) => p.kind === "standings").length;
    const seatingPages = Club.pages.filter((p) => p.kind === "seating");
    const ratingPages = Club.pages.filter((p) => p.kind === "ratings");
    if (!Club.upright()) {
      const ratings = document.getElementById("ratings");
      Club.only(page.kind === "seating" ? seating : page.kind === "ratings" ? ratings : standings);
      for (const box of [standings, ratings]) {
        box.querySelectorAll("tr[data-player]").forEach((tr, k) => {
          tr.classList.toggle("off", page.kind === box.id && (k < page.from || k >= page.to));
        });
      }
      if (page.kind === "seating") Club.seatingPage(page);
    }
    if (page.kind === "ratings") {
      title.textContent = (b.skill_columns || {}).title || "";
      const n = ratingPages.indexOf(page) + 1;
      count.textContent = ratingPages.length > 1 ? Club.say("page", {page: n, pages: ratingPages.length}) : "";
    } else if (page.kind === "seating") {
      title.textContent = Club.say("seating", {round: b.next_round ?? ""});
      const n = seatingPages.indexOf(page) + 1;
      count.textContent = seatingPages.length > 1 ? Club.say("page", {page: n, pages: seatingPages.length})
                                                  : b.hidden ? Club.say("standings_hidden") : "";
    } else {
      title.textContent = Club.say("standings") + (b.games ? " — " + Club.counted("standings_after", b.games, {games: b.games}) : "");
      const n = Club.pages.indexOf(page) + 1;
      count.textContent = standingPages > 1 && !Club.upright() ? Club.say("page", {page: n, pages: standingPages}) : "";
    }
    const pager = document.getElementById("pager");
    pager.dataset.page = page.kind === "standings" ? `standings ${Club.pages.indexOf(page) + 1}/${standingPages}`
                       : page.kind === "ratings" ? `ratings ${ratingPages.indexOf(page) + 1}/${ratingPages.length}`
                       : page.kind === "seating" && seatingPages.length > 1
                         ? `seating ${seatingPages.indexOf(page) + 1}/${seatingPages.length}` : page.kind;
  },
};

Club.connect();
