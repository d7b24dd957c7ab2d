// sam-web's page: three tabs (play, replays, leaderboard) over the JSON API. Plain ES modules.
import {setupPlay} from "./play.js";
import {setupReplay} from "./replay.js";
import {setupLeaderboard} from "./leaderboard.js";

function showTab(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.tab === name);
  for (const panel of document.querySelectorAll(".panel")) panel.classList.toggle("active", panel.id === name);
}

for (const tab of document.querySelectorAll(".tab")) {
  tab.addEventListener("click", () => { location.hash = tab.dataset.tab; });
}
window.addEventListener("hashchange", () => showTab(location.hash.slice(1) || "play"));
showTab(location.hash.slice(1) || "play");

setupPlay();
setupReplay();
setupLeaderboard();
