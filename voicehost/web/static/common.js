// Shared by the table display and the judge console: the WebSocket that always carries the whole
// state (so a phone that rejoins misses nothing), and drawing that state. No framework, no CDN.
//
// Hooks for other script files (docs/web.md, «Page hooks»): each time a state arrives and the
// page has drawn it, document gets a "voicehost:state" CustomEvent whose detail is
// {state, seq, path} (path: "/ws" on the display, "/ws/judge" on the console). Seat tiles and
// lists are redrawn on every state, so a hook decorates them from this event. Table.announce(text)
// says a line through the page's live region (a screen reader reads it). Table.say(key, values)
// gives a page's word in the language the server runs in (voicehost/web/pages.py puts them on
// <html data-texts>: the page.* lines of voicehost/language/read_lines.py).
"use strict";

const TEXTS = JSON.parse(document.documentElement.dataset.texts || "{}");

const Table = {
  state: null, receivedAt: 0, generation: 0, ticking: false,
  spoken: { speaker: null, warned: null, result: null, window: null, phase: null, paused: null, held: null,
            counted: null, last: null },

  // onEnded: the server closed the socket for good (the judge's session ended, code 4001).
  // onLost: asked after every lost connection whether to stop retrying (a promise of true: stop;
  // the judge's page asks whether its session still exists — after a restart it does not).
  connect(path, onState, onEnded, onLost) {
    const status = document.getElementById("conn");
    const generation = ++Table.generation;   // a newer connect (a new login) retires this one
    let delay = 500, lost = false;
    const open = () => {
      if (generation !== Table.generation) return;
      const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + path);
      Table.socket = ws;
      ws.onopen = () => {
        delay = 500; status.textContent = Table.say(lost ? "reconnected" : "connected"); status.classList.remove("lost");
        if (lost) Table.announce(Table.say("said_reconnected"));
        lost = false;
      };
      ws.onmessage = (msg) => {
        if (generation !== Table.generation) return;
        const data = JSON.parse(msg.data);
        if (data.type !== "state") return;
        Table.state = data.state; Table.receivedAt = performance.now(); Table.seq = data.seq;
        document.body.dataset.seq = data.seq;
        onState(data.state);
        Table.announceChanges(data.state);
        document.dispatchEvent(new CustomEvent("voicehost:state", { detail: { state: data.state, seq: data.seq, path } }));
      };
      ws.onclose = async (event) => {
        if (generation !== Table.generation) return;
        if (event.code === 4001 && onEnded) return onEnded();
        if (!lost) Table.announce(Table.say("said_lost"));
        lost = true;
        status.textContent = Table.say("lost"); status.classList.add("lost");
        if (onLost && await onLost().catch(() => false)) return;
        setTimeout(open, delay); delay = Math.min(delay * 2, 5000);
      };
    };
    open();
    if (!Table.ticking) { Table.ticking = true; setInterval(() => Table.tick(), 200); }
  },

  el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  },

  who(seat, name) { return name ? `${seat} · ${name}` : Table.say("player", { seat }); },

  // A page's word by key, its {placeholders} filled in one pass (a value is never read again);
  // a key the server did not send shows as itself, so a missing word is seen, not blank.
  say(key, values) {
    const text = TEXTS[key] === undefined ? key : TEXTS[key];
    return text.replace(/\{(\w+)\}/g, (whole, name) => (values && name in values ? String(values[name]) : whole));
  },

  // The live region: a screen reader says each line once (the text is replaced, not appended).
  announce(text) {
    const region = document.getElementById("announce");
    if (!region || !text) return;
    region.textContent = "";
    setTimeout(() => { region.textContent = text; }, 50);
  },

  announceChanges(s) {
    const said = Table.spoken, lines = [];
    const speaker = s.speaker ? `${s.speaker.seat}/${s.speaker.turn}` : null;
    if (speaker !== said.speaker && s.speaker) {
      const { seat, name } = s.speaker;
      lines.push(Table.say(name ? "said_speaker_named" : "said_speaker", { seat, name, turn: s.speaker.turn_text }));
      said.warned = null;
    }
    said.speaker = speaker;
    const candidate = s.vote && s.vote.open !== null && s.vote.open !== undefined ? s.vote.open : null;
    if (candidate !== said.window && candidate !== null) {
      lines.push(candidate === 0 ? Table.say("said_vote_all") : Table.say("said_vote_for", { seat: candidate }));
    }
    said.window = candidate;
    const counted = s.vote && s.vote.counted ? Table.countText(s.vote) : null;
    if (said.phase !== null && counted && counted !== said.counted) lines.push(Table.say("said_counted", { counts: counted }));
    said.counted = counted;
    if (s.result && s.result !== said.result && said.result !== null) lines.push(s.result);
    said.result = s.result || "";
    lines.push(...Table.toolChanges(s, said));
    if (lines.length) Table.announce(lines.join(" "));
  },

  // What the judge's tools change without a new speaker: the phase (night, day), a pause, a held
  // clock («стоп-время») and its release (the vote's count is said above, before its result).
  // Each is said once as it changes, never on the first state a page gets (it is on the screen).
  toolChanges(s, said) {
    const lines = [], first = said.phase === null;
    const phase = s.phase ? s.phase.text : "";
    if (!first && phase !== said.phase && phase) lines.push(`${phase}.`);
    said.phase = phase;
    const paused = Boolean(s.paused);
    if (!first && paused !== said.paused) lines.push(Table.say(paused ? "said_paused" : "said_resumed"));
    said.paused = paused;
    const held = s.speaker && s.speaker.held ? s.speaker.seat : 0;
    if (!first && held !== said.held && (held || said.held)) {
      lines.push(held ? Table.say("said_held", { seat: held }) : Table.say("said_released", { seat: said.held }));
    }
    said.held = held;
    return lines;
  },

  countText(vote) {
    return vote.counts.map(([candidate, n]) =>
      `${candidate === 0 ? Table.say("count_all_leave") : Table.say("count_for_player", { seat: candidate })}: ${n}`)
      .join(", ");
  },

  timeLeft() {
    const s = Table.state;
    if (!s || !s.speaker) return null;
    // A paused table and a held clock («стоп-время») stand still: the server's "left" is the time.
    const still = s.paused || s.speaker.held;
    const elapsed = still ? 0 : (performance.now() - Table.receivedAt) / 1000 * s.speed;
    return Math.max(0, s.speaker.left - elapsed);
  },

  // The clock's last seconds: its colour at 10 s and at 5 s (a turn longer than that), and a
  // buzz on the judge's phone as each begins (navigator.vibrate, where the phone has it).
  LAST_SECONDS: [5, 10],
  vibrates: false,   // set by the judge's page: the display on the wall does not buzz
  buzzed: { turn: null, stages: [] },

  lastSeconds(speaker, left) {
    return Table.LAST_SECONDS.find((stage) => Math.ceil(left) <= stage && speaker.seconds > stage) || null;
  },

  buzz(turn, stage) {
    const buzzed = Table.buzzed;
    if (buzzed.turn !== turn) { buzzed.turn = turn; buzzed.stages = []; }
    if (stage === null || buzzed.stages.includes(stage)) return;
    buzzed.stages.push(stage);
    if (Table.vibrates && typeof navigator.vibrate === "function") {
      navigator.vibrate(stage === 5 ? [200, 100, 200] : 200);
    }
  },

  tick() {
    const s = Table.state, box = document.getElementById("speaker");
    if (!s || !box || !s.speaker) return;
    const left = Table.timeLeft();
    const clock = document.getElementById("clock");
    clock.textContent = Table.mmss(left);
    const held = Boolean(s.speaker.held);
    box.classList.toggle("held", held);
    document.getElementById("held-mark").classList.toggle("hidden", !held);
    clock.setAttribute("aria-label", Table.say(held ? "time_left_held" : "time_left"));
    const warning = s.speaker.warning_s !== null && left <= s.speaker.warning_s;
    box.classList.toggle("warning", warning);
    const stage = Table.lastSeconds(s.speaker, left);
    box.classList.toggle("last10", stage === 10);
    box.classList.toggle("last5", stage === 5);
    const speaker = `${s.speaker.seat}/${s.speaker.turn}`;
    if (!held && !s.paused) Table.buzz(speaker, stage);
    // the last 5 seconds are said too (the warning said the 10): a judge who cannot see the red
    if (stage === 5 && Table.spoken.last !== speaker && !held && !s.paused) {
      Table.spoken.last = speaker;
      Table.announce(Table.say("said_left", { seat: s.speaker.seat, time: Table.seconds(Math.ceil(left)) }));
    }
    if (warning && Table.spoken.warned !== speaker) {
      Table.spoken.warned = speaker;
      Table.announce(Table.say("said_left", { seat: s.speaker.seat, time: Table.seconds(Math.ceil(left)) }));
    }
  },

  // «1 секунда», «3 секунды», «10 секунд»: the page's language's plural category picks the form
  // the server sent for it (seconds_one, seconds_few, seconds_many, seconds_other).
  seconds(n) {
    const category = new Intl.PluralRules(document.documentElement.lang || "ru").select(n);
    return Table.say(TEXTS[`seconds_${category}`] === undefined ? "seconds_other" : `seconds_${category}`, { n });
  },

  mmss(seconds) {
    const whole = Math.ceil(seconds);
    return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
  },

  // The count: one item per candidate, with visible separators (never «5: 0 9: 0»).
  drawCounts(vote) {
    const counts = document.getElementById("counts"), items = [];
    vote.counts.forEach(([candidate, n], index) => {
      if (index) items.push(Table.el("span", "sep", " · "));
      const who = candidate === 0 ? Table.say("count_all_leave") : Table.say("count_for", { seat: candidate });
      items.push(Table.el("span", "count", `${who}: ${n}`));
    });
    if (vote.counted) items.push(Table.el("span", "counted", ` ${Table.say("counted")}`));
    counts.replaceChildren(...items);
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
    // The tiles are drawn anew on every state: a seat that had the keyboard's focus keeps it.
    const focused = seats.contains(document.activeElement) ? document.activeElement.dataset.seat : null;
    seats.replaceChildren(...s.seats.map((seat) => {
      const tile = Table.el("div", "seat");
      tile.dataset.seat = seat.seat;
      tile.setAttribute("role", "listitem");   // the judge's page makes it a button
      tile.classList.toggle("is-out", !seat.alive);
      tile.classList.toggle("nominated", seat.nominated);
      tile.classList.toggle("speaking", seat.speaking);
      tile.classList.toggle("voting", Boolean(s.vote && s.vote.open === seat.seat));
      const name = Table.el("div", "name", seat.name || "");
      if (seat.name) name.title = seat.name;
      tile.append(Table.el("div", "num", seat.seat), name);
      if (seat.fouls) tile.append(Table.el("div", "fouls", Table.say("fouls_mark").repeat(seat.fouls)));
      if (seat.out) tile.append(Table.el("div", "out", seat.out.text));
      const status = Table.seatStatus(seat);   // said to a screen reader after the tile's visible text
      if (status) tile.append(Table.el("span", "sr-only", `, ${status}`));
      if (onSeat) onSeat(tile, seat);
      return tile;
    }));
    if (focused) seats.querySelector(`.seat[data-seat="${focused}"]`)?.focus();
    const noms = document.getElementById("nominations");
    noms.textContent = s.nominations.length
      ? s.nominations.map((n) => n.text || Table.say("nominated_by", n)).join(", ") : Table.say("nobody_nominated");
    noms.classList.toggle("empty", !s.nominations.length);
    const vote = document.getElementById("vote");
    vote.classList.toggle("hidden", !s.vote);
    if (s.vote) {
      const title = Table.say(s.vote.round === "main" ? "vote_main" : "vote_revote");
      document.getElementById("vote-title").textContent = s.vote.open !== null && s.vote.open !== undefined
        ? Table.say(s.vote.open === 0 ? "vote_now_all" : "vote_now_for", { title, seat: s.vote.open }) : title;
      Table.drawCounts(s.vote);
    }
    const result = document.getElementById("result");
    result.textContent = s.result || "";
    result.closest("section").classList.toggle("hidden", !s.result);   // no empty box above the seats
    const subs = document.getElementById("subtitles");
    subs.replaceChildren(...s.subtitles.slice(-4).map((line) => Table.el("p", null, line.text)));
    const log = document.getElementById("log");
    if (log) log.replaceChildren(...s.log.slice(-8).reverse().map((line) => Table.el("p", null, line)));
  },

  // What a screen reader hears of a seat beyond its number and whole name (the tile's text; a
  // long name is only shortened on screen): speaking, nominated, fouls.
  seatStatus(seat) {
    const parts = [];
    if (seat.speaking) parts.push(Table.say("seat_speaking"));
    if (seat.nominated) parts.push(Table.say("seat_nominated"));
    if (seat.fouls) parts.push(Table.say("seat_fouls", { n: seat.fouls }));
    return parts.join(", ");
  },
};
