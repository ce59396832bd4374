// Who voted for whom: the last vote's ballots (the state's `ballots`, see voicehost/host/ballots.py),
// drawn under the count. The judge's console gets them as each window closes, the table's display
// once the count is said; every text comes from the server (config/phrases, [web]). A file of its own,
// loaded after common.js: it follows Table.state and touches nothing else of the page.
"use strict";

const Ballots = {
  seq: undefined,

  section() {
    let box = document.getElementById("ballots");
    if (box) return box;
    box = Table.el("section", "box ballots hidden");
    box.id = "ballots";
    box.setAttribute("aria-live", "polite");
    box.setAttribute("aria-labelledby", "ballots-title");
    const title = Table.el("h2");
    title.id = "ballots-title";
    box.append(title, Table.el("div", "ballot-groups"), Table.el("div", "ballot-rows"), Table.el("p", "ballot-fix"));
    const vote = document.getElementById("vote");
    if (vote) vote.after(box); else document.querySelector("main").append(box);
    return box;
  },

  draw(s) {
    const box = Ballots.section();
    const ballots = s.ballots;
    box.classList.toggle("hidden", !ballots);
    if (!ballots) return;
    box.classList.toggle("counting", !ballots.complete);
    box.querySelector("#ballots-title").textContent = ballots.title;
    box.querySelector(".ballot-groups").replaceChildren(...ballots.groups.map((group) => {
      const line = Table.el("p", "ballot-group", group.text);
      line.dataset.candidate = group.candidate;
      return line;
    }));
    box.querySelector(".ballot-rows").replaceChildren(...ballots.rows.map((row) => {
      const line = Table.el("p", "ballot " + row.mark + (row.counted ? "" : " not-counted") +
                            (row.corrected ? " corrected" : ""), row.text);
      line.dataset.voter = row.voter;
      return line;
    }));
    const fix = s.correction && s.correction.ballot;
    box.querySelector(".ballot-fix").textContent = fix || "";
  },

  follow() {
    if (typeof Table === "undefined" || !Table.state || Table.seq === Ballots.seq) return;
    Ballots.seq = Table.seq;
    Ballots.draw(Table.state);
  },
};

setInterval(Ballots.follow, 200);
