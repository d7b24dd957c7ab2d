// The play tab: a table against bots through POST /api/games, /moves and /next. The server answers
// each move with the bots' moves; they are shown one at a time at the chosen pace, then the view.
// The page holds one game: dealing a new one ends the last (DELETE /api/games/{id}), and so does
// leaving the page, so that its place on the server goes to someone else. With the coach on, each legal
// move shows its value (X) and the network's choice is starred; after the hand, a review of your decisions.
// With "Keep my games", the server keeps each finished hand under a token this page stores (localStorage).
import {REASONS, api, backs, cardParts, cardRow, cardTile, el, endGame, ledgerTable, money, recordingToken,
  showMessage, xValue} from "./common.js";

const CARDS_PER_HAND = 10;
const SAM_WORDS = {declare_sam: "báo Sâm (declare)", decline_sam: "no Sâm"};
const state = {options: null, actions: [], gameId: null, view: null, selected: new Set(), busy: false};
const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function setupPlay() {
  const pace = new URLSearchParams(location.search).get("pace");
  if (pace !== null) $("pace").append(el("option", {value: pace, text: `${pace} ms`, selected: true}));
  try {
    [state.options, state.actions] = await Promise.all([api("/api/options"), api("/api/actions")]);
  } catch (err) {
    showMessage($("message"), `Could not load the bots: ${err.message}`);
    return;
  }
  const {rules} = state.options;
  for (const n of rules.choices.n_players) $("players").append(el("option", {value: n, text: n, selected: n === 4}));
  for (const name of ["bao1", "finish_on_two", "first_leader"]) {
    for (const choice of rules.choices[name]) {
      $(`rule-${name}`).append(el("option", {value: choice, text: choice, selected: choice === rules.defaults[name]}));
    }
  }
  $("rule-allow_sam").checked = rules.defaults.allow_sam;
  $("rule-straights_with_two").checked = rules.defaults.straights_with_two;
  for (const kind of rules.choices.instant_wins) {
    const box = el("input", {type: "checkbox", value: kind, checked: rules.defaults.instant_wins.includes(kind)});
    $("instant-wins").append(el("label", {}, box, ` ${kind}`));
  }
  $("players").addEventListener("change", seatChoices);
  seatChoices();
  if (!state.options.recording) {
    $("record").disabled = true;
    $("record-note").textContent = "(this server keeps no recordings)";
  }
  $("new-game").addEventListener("submit", (event) => { event.preventDefault(); newGame(); });
  $("play-selected").addEventListener("click", playSelected);
  $("pass").addEventListener("click", () => send("pass"));
  $("think").addEventListener("click", thinkLonger);
  window.addEventListener("pagehide", () => {
    if (state.gameId) endGame(state.gameId, true);
  });
  window.addEventListener("pageshow", (event) => {
    if (event.persisted && state.gameId) {  // back from the history: the game was ended when the page was left
      state.gameId = null;
      state.view = null;
      $("table").hidden = true;
      showMessage($("message"), "The game ended when you left the page: deal a new one.", true);
    }
  });
}

function seatChoices() {
  const n = Number($("players").value);
  $("seat").replaceChildren(...Array.from({length: n}, (_, s) => el("option", {value: s, text: s})));
  const fitting = state.options.bots.filter((b) => b.players.includes(n));
  const coach = state.options.coach[String(n)];
  $("coach").disabled = !coach;
  $("coach-network").textContent = coach ? `(${coach})` : "(no network for this table size)";
  const preferred = fitting.some((b) => b.name === "best") ? "best" : "heuristic";
  const groups = [...new Set(fitting.map((b) => b.group))];  // in the server's order: best first
  $("opponents").replaceChildren(...Array.from({length: n - 1}, (_, j) => el("label", {},
    `Opponent ${j + 1} `,
    el("select", {class: "opponent", "data-index": j},
      groups.map((group) => el("optgroup", {label: group},
        fitting.filter((b) => b.group === group)
          .map((b) => el("option", {value: b.name, text: b.name, selected: b.name === preferred}))))))));
}

function tableRequest() {
  const rules = {
    bao1: $("rule-bao1").value,
    finish_on_two: $("rule-finish_on_two").value,
    first_leader: $("rule-first_leader").value,
    allow_sam: $("rule-allow_sam").checked,
    straights_with_two: $("rule-straights_with_two").checked,
    instant_wins: [...document.querySelectorAll("#instant-wins input:checked")].map((box) => box.value),
  };
  const seed = $("seed").value === "" ? null : Number($("seed").value);
  const body = {
    players: Number($("players").value), rules, seat: Number($("seat").value), seed,
    opponents: [...document.querySelectorAll("select.opponent")].map((s) => s.value),
  };
  if ($("coach").checked && !$("coach").disabled) body.coach = true;
  if ($("record").checked && !$("record").disabled) {
    body.record = true;
    if (recordingToken.get()) body.recording = recordingToken.get();
  }
  return body;
}

async function request(path, body) {
  state.busy = true;
  renderControls();
  showMessage($("message"), "");
  state.lastError = null;
  try {
    return await api(path, body);
  } catch (err) {
    state.lastError = err;
    showMessage($("message"), err.message);
    return null;
  } finally {
    state.busy = false;
  }
}

async function newGame() {
  if (state.busy) return;
  // Busy from the click on: the deal button stays disabled while the last game is ended and the new one dealt.
  state.busy = true;
  renderControls();
  showMessage($("message"), "Dealing…", true);
  if (state.gameId) {
    await endGame(state.gameId);
    state.gameId = null;
  }
  const body = tableRequest();
  let data = await request("/api/games", body);
  if (!data && body.recording && state.lastError?.status === 404) {
    recordingToken.clear();  // a token this server does not know (its recordings deleted): start a new one
    delete body.recording;
    data = await request("/api/games", body);
  }
  if (data) {
    if (data.recording) recordingToken.set(data.recording);
    state.gameId = data.game_id;
    await show(data.view, 0);
  } else renderControls();
}

async function send(action) {
  if (!state.gameId || state.busy) return;
  const shown = state.view.history.length;
  const view = await request(`/api/games/${state.gameId}/moves`, {action});
  if (view) await show(view, shown + 1);
  else renderControls();
}

// Think longer: a search over the coach's network values its preferred moves; shown beside the network's values.
async function thinkLonger() {
  if (!state.gameId || state.busy) return;
  const asked = state.view;
  $("think").textContent = "Thinking…";
  const found = await request(`/api/games/${state.gameId}/think`, {});
  $("think").textContent = "Think longer";
  renderControls();
  if (!found || state.view !== asked) return;
  for (const {name, value} of found.values) {
    const button = document.querySelector(`#legal button[data-action="${name}"]`);
    button?.querySelector(".search")?.remove();
    button?.setAttribute("data-search", value);
    button?.append(el("span", {class: "search", text: ` · search ${xValue(value)}`}));
  }
  const best = found.values.reduce((a, b) => (b.value > a.value ? b : a), found.values[0]);
  showMessage($("message"), `${found.network} searched its ${found.values.length} preferred move(s) over `
    + `${found.deals} of ${found.sampled} deals sampled from the cards you cannot see`
    + (best ? `: its choice is ${best.name} (${xValue(best.value)}).` : "."), true);
}

async function nextHand() {
  const view = await request(`/api/games/${state.gameId}/next`, {});
  if (view) await show(view, 0);
  else renderControls();
}

function playSelected() {
  const ranks = [...state.selected].map((c) => cardParts(c).rank).sort();
  const match = state.actions.find((a) => a.ranks.length === ranks.length && [...a.ranks].sort().every((r, i) => r === ranks[i]));
  if (!match) {
    showMessage($("message"), `${[...state.selected].join(" ")} is not a combination: play a single, a pair, a triple, ` +
      "a quad, a straight of 3 to 10 cards or two quads.");
    return;
  }
  send(match.name);
}

// Show a view, animating its history from entry `from` on: each bot move, one at a time.
async function show(view, from) {
  state.view = view;
  state.selected.clear();
  $("table").hidden = false;
  const pace = Number($("pace").value);
  state.busy = true;
  for (let j = Math.max(from, view.history.length - view.moves.length); pace > 0 && j < view.history.length; j++) {
    render(view, j + 1);
    await sleep(pace);
  }
  state.busy = false;
  render(view, view.history.length);
}

// The public table after the first `upto` moves of the hand, folded from the history.
function publicState(view, upto) {
  const seats = view.seats.map((s) => ({n_cards: CARDS_PER_HAND, played: [], passed: false, sam: false}));
  let table = null;
  for (const move of view.history.slice(0, upto)) {
    const seat = seats[move.seat];
    seat.n_cards = move.cards_left;
    seat.played = seat.played.concat(move.cards);
    if (move.action === "declare_sam") seat.sam = true;
    table = move.table;
    move.passed.forEach((p, s) => { seats[s].passed = Boolean(table) && p; });
  }
  const last = view.history[upto - 1];
  return {seats, table, last, final: upto === view.history.length};
}

function render(view, upto) {
  const pub = publicState(view, upto);
  const players = view.seats.map((s) => s.player);
  const others = [];
  for (let k = 1; k < view.players; k++) {
    const s = (view.seat + k) % view.players;
    others.push(seatBox(view, pub, s, players));
  }
  $("others").replaceChildren(...others);
  $("my-info").replaceChildren(seatLine(view, pub, view.seat, players));
  $("status").textContent = statusText(view, pub, players);
  const trick = pub.table
    ? [el("div", {class: "who", text: `${pub.table.action} by seat ${pub.table.seat} (${players[pub.table.seat]})`}),
      cardRow(pub.table.cards, false)]
    : [el("div", {class: "who", text: pubPhaseText(view, upto)})];
  $("trick").replaceChildren(...trick);
  renderHand(view, pub.final);
  $("log").replaceChildren(...view.history.slice(0, upto).map((m) => el("li", {},
    `seat ${m.seat} (${m.player}): ${SAM_WORDS[m.action] || m.action} `, cardRow(m.cards))));
  $("log").scrollTop = $("log").scrollHeight;
  renderResult(view, pub.final, players);
  renderReview(view, pub.final);
  renderControls();
}

// What the felt says when no play is on the table after the first `upto` moves.
function pubPhaseText(view, upto) {
  if (upto === view.history.length && view.result) return "";
  const playing = view.history.slice(0, upto).some((m) => !m.action.endsWith("_sam"));
  return playing || (upto === view.history.length && view.phase === "play")
    ? "Free lead" : "báo Sâm decisions: each seat in turn";
}

function badges(view, pub, s) {
  const seat = pub.seats[s];
  const out = [];
  if (seat.sam) out.push(el("span", {class: "badge sam", text: "báo Sâm"}));
  if (seat.n_cards === 1) out.push(el("span", {class: "badge one", text: "báo 1"}));
  if (seat.passed) out.push(el("span", {class: "badge passed", text: "passed"}));
  if (view.seats[s].out && pub.final) out.push(el("span", {class: "badge out", text: "out"}));
  if (pub.final && view.to_act === s) out.push(el("span", {class: "badge acting", text: "to act"}));
  return out;
}

function seatLine(view, pub, s, players) {
  const info = view.seats[s];
  return el("div", {class: "name"}, `Seat ${s}: ${players[s]}`, badges(view, pub, s), " ",
    pub.final ? money(info.net) : "", pub.final ? el("span", {class: "hint", text: ` (total ${info.total}X)`}) : "");
}

function seatBox(view, pub, s, players) {
  const info = view.seats[s];
  const revealed = pub.final && info.cards;
  return el("div", {class: `seat${pub.final && view.to_act === s ? " to-act" : ""}`, "data-seat": s},
    seatLine(view, pub, s, players),
    revealed ? cardRow(info.cards) : backs(pub.seats[s].n_cards),
    el("div", {class: "hint"}, "played: ", cardRow(pub.seats[s].played)));
}

function statusText(view, pub, players) {
  if (!pub.final) {
    const m = pub.last;
    return `Seat ${m.seat} (${m.player}): ${SAM_WORDS[m.action] || m.action}`;
  }
  if (view.result) {
    const r = view.result;
    const who = r.winner === null ? "nobody wins" : `seat ${r.winner} (${players[r.winner]}) wins`;
    return `Hand ${view.hand_number} over: ${REASONS[r.reason] || r.reason}, ${who}.`;
  }
  if (view.your_turn) {
    if (view.phase === "sam_decision") return "Your turn: declare Sâm (báo Sâm) or not?";
    const warn = view.responsible ? " báo 1: the next seat has one card left." : "";
    return (view.table ? `Your turn: beat ${view.table.action} or pass.` : "Your turn: free lead.") + warn;
  }
  return `Seat ${view.to_act} (${players[view.to_act]}) to act…`;
}

function renderHand(view, final) {
  const mine = view.seats[view.seat].cards;
  $("hand").replaceChildren(...mine.map((card) => {
    const tile = cardTile(card, {button: true, onclick: () => {
      if (state.selected.has(card)) state.selected.delete(card);
      else state.selected.add(card);
      tile.classList.toggle("selected", state.selected.has(card));
      renderControls();
    }});
    tile.classList.toggle("selected", state.selected.has(card));
    return tile;
  }));
  const legal = final && view.your_turn ? view.legal : [];
  const choice = view.coach ? view.coach.choice : null;
  $("legal").replaceChildren(...legal.map((move) => el("button", {
    type: "button", class: `move${move.name === choice ? " coach-choice" : ""}`, "data-action": move.name,
    "data-cards": move.cards.join(" "), "data-value": move.value,
    title: move.name === choice ? `the coach's choice (${view.coach.network})` : null,
    onclick: () => send(move.name),
    onmouseenter: () => hint(move.cards, true), onmouseleave: () => hint(move.cards, false),
  }, SAM_WORDS[move.name] || move.name,
  move.value === undefined ? null : el("span", {class: "value", text: ` ${xValue(move.value)}`}),
  move.name === choice ? el("span", {class: "star", "aria-label": "the coach's choice", text: " ★"}) : null)));
}

function hint(cards, on) {
  for (const card of cards) document.querySelector(`#hand [data-card="${card}"]`)?.classList.toggle("hint", on);
}

function renderControls() {
  const view = state.view;
  const canAct = Boolean(view) && view.your_turn && !state.busy;
  const legalNames = canAct ? view.legal.map((m) => m.name) : [];
  $("play-selected").disabled = !canAct || state.selected.size === 0 || view.phase !== "play";
  $("pass").disabled = !legalNames.includes("pass");
  $("think").hidden = !(view && view.coach);
  $("think").disabled = !canAct;
  for (const button of document.querySelectorAll("#legal button, #result button")) button.disabled = state.busy;
  $("deal").disabled = state.busy;
}

function renderResult(view, final, players) {
  const box = $("result");
  box.hidden = !(final && view.result);
  if (box.hidden) return;
  const rows = view.seats.map((s) => el("tr", {},
    el("td", {text: `seat ${s.seat} (${s.player})`}), el("td", {}, cardRow(s.dealt)), el("td", {}, cardRow(s.cards)),
    el("td", {class: "num"}, money(s.net)), el("td", {class: "num"}, money(s.total))));
  box.replaceChildren(
    el("h3", {text: $("status").textContent}),
    el("table", {class: "reveal"}, el("tr", {}, el("th", {text: "seat"}), el("th", {text: "dealt"}),
      el("th", {text: "left in hand"}), el("th", {class: "num", text: "this hand"}), el("th", {class: "num", text: "total"})),
    rows),
    el("h3", {text: "Ledger"}), ledgerTable(view.result.ledger, players),
    view.recorded === undefined ? null : el("p", {class: "hint", id: "recorded",
      text: `Kept on this server: ${view.recorded} hand(s) of this game (Replays opens or deletes them).`}),
    el("button", {type: "button", id: "next-hand", onclick: nextHand, text: "Next hand"}));
}

// The coach's review of a finished hand: each decision you had a choice in, what you played, what the network
// would have, and the difference in X.
function renderReview(view, final) {
  const box = $("review");
  const review = view.review;
  box.hidden = !(final && view.result && review);
  if (box.hidden) return;
  const move = (m) => [SAM_WORDS[m.action] || m.action, " ", cardRow(m.cards), ` ${xValue(m.value)}`];
  const rows = review.decisions.map((d) => el("tr", {class: d.regret > 0 ? "regret" : ""},
    el("td", {class: "num", text: String(d.move + 1)}), el("td", {}, move(d.played)), el("td", {}, move(d.best)),
    el("td", {class: "num", text: `${d.regret.toFixed(2)}X`})));
  const forced = review.forced ? ` ${review.forced} forced move(s) (one legal move) are left out.` : "";
  box.replaceChildren(
    el("h3", {text: `Coach's review (${view.coach.network}): your decisions, valued from your seat's view`}),
    el("table", {class: "review"},
      el("tr", {}, el("th", {class: "num", text: "move"}), el("th", {text: "you played"}),
        el("th", {text: "the network's choice"}), el("th", {class: "num", text: "regret"})),
      rows,
      el("tr", {class: "total"}, el("td", {}), el("td", {text: "total"}), el("td", {}),
        el("td", {class: "num", text: `${review.total_regret.toFixed(2)}X`}))),
    view.coach.note ? el("p", {class: "hint", text: view.coach.note}) : null,
    el("p", {class: "hint", text: "A value is the money (X) the network expects your seat to receive from that "
      + `decision to the end of the hand; regret = the choice's value − your move's (never negative).${forced}`}));
}
