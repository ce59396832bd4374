// The table display: the public state, drawn on every change. A file of its own, not inline: the
// server's Content-Security-Policy allows this origin's script files only.
"use strict";

Table.connect("/ws", (s) => { document.getElementById("phase").classList.add("phase"); Table.draw(s); });
