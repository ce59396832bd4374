// Who voted for whom: the last vote's ballots (the state's `ballots`, see voicehost/host/ballots.py),
// drawn just under the vote's result (never between the count and the result, which stay in view
// on a phone). The judge's console gets them as each window closes, the table's display once the
// count is said; every text comes from the server (config/phrases, [web]). A part of the page
// through its hook (docs/web.md, «Page hooks»): it draws on each "voicehost:state" event.
"use strict";

const Ballots = {
  section() {
    let box = document.getElementById("ballots");
    if (box) return box;
    box = Table.el("section", "box ballots hidden");
    box.id = "ballots";
    box.setAttribute("aria-live", "polite");
    box.setAttribute("aria-labelledby", "ballots-title");
    const title = Table.el("h2");
    title.id = "ballots-title";
    // Each voter's own line (with why a vote was given by the rules) under a summary that a phone
    // keeps closed: the groups above already name every voter, and the count, the result and
    // every ballot then stay in the judge's first screen (docs/web.md).
    const details = Table.el("details", "ballot-details");
    details.open = window.innerWidth >= 700;
    details.append(Table.el("summary"), Table.el("div", "ballot-rows"));
    box.append(title, Table.el("div", "ballot-groups"), details, Table.el("p", "ballot-fix"));
    const result = document.getElementById("result");
    const after = document.getElementById("final") || (result && result.closest("section"));
    if (after) after.after(box); else document.querySelector("main").append(box);
    return box;
  },

  draw(s) {
    const box = Ballots.section();
    const ballots = s.ballots;
    box.classList.toggle("hidden", !ballots);
    if (!ballots) return;
    box.classList.toggle("counting", !ballots.complete);
    box.querySelector("#ballots-title").textContent = ballots.title;
    box.querySelector(".ballot-details summary").textContent = ballots.details;
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
};

document.addEventListener("voicehost:state", (event) => Ballots.draw(event.detail.state));
