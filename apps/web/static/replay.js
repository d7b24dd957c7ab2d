// The replays tab: open a file of hand records (upload, or a file under the served folder), or the games
// this browser chose to keep (its recording token), pick a hand, and step through it forward and back with
// every hand face up. Deleting the kept games is one click (and a confirmation).
import {REASONS, api, cardRow, el, ledgerTable, money, readFile, recordingToken, showMessage} from "./common.js";

const SAM_WORDS = {declare_sam: "báo Sâm (declare)", decline_sam: "no Sâm"};
const state = {replayId: null, hand: null, step: 0};
const $ = (id) => document.getElementById(id);

export async function setupReplay() {
  $("replay-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (file) open({name: file.name, text: await readFile(file)});
  });
  $("replay-hand").addEventListener("change", () => loadHand(Number($("replay-hand").value)));
  $("open-recordings").addEventListener("click", () => open({token: recordingToken.get()}, "/api/recordings/replay"));
  $("delete-recordings").addEventListener("click", deleteRecordings);
  window.addEventListener("hashchange", showMine);
  showMine();
  $("step-first").addEventListener("click", () => go(0));
  $("step-back").addEventListener("click", () => go(state.step - 1));
  $("step-forward").addEventListener("click", () => go(state.step + 1));
  $("step-last").addEventListener("click", () => go(Infinity));
  $("step-slider").addEventListener("input", () => go(Number($("step-slider").value)));
  document.addEventListener("keydown", (event) => {
    if (!$("replay").classList.contains("active") || !state.hand) return;
    if (event.key === "ArrowRight") go(state.step + 1);
    if (event.key === "ArrowLeft") go(state.step - 1);
  });
  try {
    const files = await api("/api/files");
    $("served-replays").replaceChildren(...(files.replays.length ? [el("span", {text: "In the served folder: "})] : []),
      ...files.replays.map((path) => el("button", {type: "button", "data-path": path, text: path, onclick: () => open({path})})));
  } catch (err) {
    showMessage($("replay-message"), err.message);
  }
}

// The buttons of this browser's recorded games, when it has a token.
function showMine() {
  $("my-recordings").hidden = !recordingToken.get();
}

async function deleteRecordings() {
  if (!confirm("Delete every game this browser kept on the server? This cannot be undone.")) return;
  try {
    const data = await api("/api/recordings", {token: recordingToken.get()}, "DELETE");
    showMessage($("replay-message"), `Deleted ${data.deleted} recorded hand(s) from the server.`, true);
  } catch (err) {
    showMessage($("replay-message"), err.message);
    if (err.status !== 404) return;  // 404: nothing is kept under the token any more; forget it
  }
  recordingToken.clear();
  $("replay-view").hidden = true;
  showMine();
}

async function open(body, path = "/api/replays") {
  showMessage($("replay-message"), "Reading and checking every hand…", true);
  try {
    const data = await api(path, body);
    state.replayId = data.replay_id;
    $("replay-source").textContent = `${data.source}: ${data.hands.length} hand(s)`;
    $("replay-hand").replaceChildren(...data.hands.map((h) => el("option", {value: h.index,
      text: `#${h.index}: ${h.bots.join(", ")} — ${REASONS[h.reason] || h.reason}, ${h.moves} moves`})));
    showMessage($("replay-message"), "");
    await loadHand(0);
    $("replay-view").hidden = false;  // shown once its first hand is drawn, never empty
  } catch (err) {
    showMessage($("replay-message"), err.message);
  }
}

async function loadHand(index) {
  try {
    state.hand = await api(`/api/replays/${state.replayId}/hands/${index}`);
  } catch (err) {
    showMessage($("replay-message"), err.message);
    return;
  }
  $("step-slider").max = state.hand.frames.length - 1;
  go(0);
}

function go(step) {
  const frames = state.hand.frames;
  state.step = Math.max(0, Math.min(frames.length - 1, step));
  $("step-slider").value = state.step;
  $("step-back").disabled = state.step === 0;
  $("step-first").disabled = state.step === 0;
  $("step-forward").disabled = state.step === frames.length - 1;
  $("step-last").disabled = state.step === frames.length - 1;
  render(frames[state.step]);
}

function render(frame) {
  const hand = state.hand;
  const bots = hand.bots;
  const move = frame.move;
  $("step-label").textContent = move
    ? `move ${state.step} of ${hand.frames.length - 1}: seat ${move.seat} (${move.bot}) ${SAM_WORDS[move.action] || move.action}`
    : `the deal (seat ${hand.leader} leads)`;
  const seats = bots.map((bot, s) => {
    const badges = [];
    if (frame.sam_declarer === s) badges.push(el("span", {class: "badge sam", text: "báo Sâm"}));
    if (frame.cards[s].length === 1) badges.push(el("span", {class: "badge one", text: "báo 1"}));
    if (frame.passed[s]) badges.push(el("span", {class: "badge passed", text: "passed"}));
    if (frame.out[s]) badges.push(el("span", {class: "badge out", text: "out"}));
    if (frame.to_act === s) badges.push(el("span", {class: "badge acting", text: "to act"}));
    return el("div", {class: `seat${frame.to_act === s ? " to-act" : ""}`, "data-seat": s},
      el("div", {class: "name"}, `Seat ${s}: ${bot}`, badges, " ", money(frame.net[s])),
      cardRow(frame.cards[s], false),
      el("div", {class: "hint"}, "played: ", cardRow(frame.played[s])));
  });
  const table = frame.table
    ? [el("div", {class: "who", text: `${frame.table.action} by seat ${frame.table.seat} (${bots[frame.table.seat]})`}),
      cardRow(frame.table.cards, false)]
    : [el("div", {class: "who", text: frame.phase === "play" ? "Free lead" : frame.phase === "over" ? "Hand over" : "báo Sâm decisions"})];
  $("replay-table").replaceChildren(el("div", {class: "felt"}, ...table), ...seats);
  const last = state.step === hand.frames.length - 1;
  $("replay-result").hidden = !last;
  if (last) {
    const r = hand.result;
    const who = r.winner === null ? "nobody wins" : `seat ${r.winner} (${bots[r.winner]}) wins`;
    $("replay-result").replaceChildren(el("h3", {text: `${REASONS[r.reason] || r.reason}: ${who}`}),
      ledgerTable(hand.ledger, bots));
  }
}
