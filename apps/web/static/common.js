// Shared helpers of the page: the JSON API, elements, cards, money and the ledger's reasons.

export class ApiError extends Error {
  constructor(status, body) {
    let text = body && body.error ? body.error : `HTTP ${status}`;
    if (body && Array.isArray(body.legal) && body.legal.length) text += `\nLegal moves: ${body.legal.join(", ")}`;
    super(text);
    this.status = status;
    this.body = body;
  }
}

// GET `path`, or send `body` as JSON (POST unless `method` says otherwise). Every request that changes state
// says Content-Type: application/json (the server refuses any other: docs/web.md).
export async function api(path, body, method = "POST") {
  const init = body === undefined ? {} : {
    method, headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// End a live game (DELETE), so that its place goes to another; `keepalive` lets the request outlive the
// page when it is sent as the page closes. Errors are ignored: a game that is gone is what was wanted.
export function endGame(gameId, keepalive = false) {
  return fetch(`/api/games/${encodeURIComponent(gameId)}`, {
    method: "DELETE", headers: {"Content-Type": "application/json"}, keepalive,
  }).catch(() => null);
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : document.createTextNode(child));
  }
  return node;
}

const SUITS = {S: ["♠", "spades"], C: ["♣", "clubs"], D: ["♦", "diamonds"], H: ["♥", "hearts"]};
const RANK_WORDS = {J: "jack", Q: "queen", K: "king", A: "ace"};

export function cardParts(card) {
  return {rank: card.slice(0, -1), suit: card.slice(-1)};
}

// A card as a tile: rank and suit symbol, four-colour suits, and a label a screen reader says.
export function cardTile(card, {small = false, button = false, onclick = null} = {}) {
  const {rank, suit} = cardParts(card);
  const [symbol, word] = SUITS[suit];
  const node = el(button ? "button" : "span", {
    class: `card ${suit}${small ? " small" : ""}`,
    "data-card": card,
    "aria-label": `${RANK_WORDS[rank] || rank} of ${word}`,
    type: button ? "button" : null,
    onclick,
  }, el("span", {class: "rank", text: rank}), el("span", {class: "suit", text: symbol}));
  return node;
}

export function cardRow(cards, small = true) {
  return el("span", {class: "cards"}, cards.map((c) => cardTile(c, {small})));
}

export function backs(count) {
  return el("span", {class: "backs", title: `${count} cards`},
    el("span", {class: "card small back", "aria-hidden": "true"}), el("span", {class: "count", text: `× ${count}`}));
}

// The token under which this browser's recorded games are kept (the server issues it; no account needed).
const RECORDING_KEY = "sam-web-recording";
export const recordingToken = {
  get: () => localStorage.getItem(RECORDING_KEY),
  set: (token) => localStorage.setItem(RECORDING_KEY, token),
  clear: () => localStorage.removeItem(RECORDING_KEY),
};

// A value in X with its sign and two decimals (the coach's values and regrets).
export function xValue(x) {
  return `${x > 0 ? "+" : x < 0 ? "−" : "±"}${Math.abs(x).toFixed(2)}X`;
}

export function money(x) {
  const sign = x > 0 ? "+" : x < 0 ? "−" : "±";
  return el("span", {class: x > 0 ? "pos" : x < 0 ? "neg" : "", text: `${sign}${Math.abs(x)}X`});
}

export const REASONS = {
  chop: "chop (chặt)",
  cards: "cards left",
  thoi_2: "thối 2 (2s left)",
  cong: "cóng (never played)",
  responsibility: "responsibility (báo 1)",
  sam_won: "Sâm won",
  sam_blocked: "Sâm blocked (chặn Sâm)",
  sam_failed: "Sâm failed (finished on 2s)",
  instant_win: "instant win (thắng trắng)",
  finish_on_two: "finished on 2s (đánh 2 cuối)",
  normal: "went out first",
};

export function seatName(seat, players) {
  return `seat ${seat} (${players[seat]})`;
}

export function ledgerTable(ledger, players) {
  if (!ledger.length) return el("p", {text: "No money moved."});
  return el("table", {class: "ledger"},
    el("tr", {}, el("th", {text: "payer"}), el("th", {text: "payee"}), el("th", {class: "num", text: "X"}),
      el("th", {text: "reason"})),
    ledger.map((t) => el("tr", {},
      el("td", {text: seatName(t.payer, players)}), el("td", {text: seatName(t.payee, players)}),
      el("td", {class: "num", text: String(t.amount)}), el("td", {text: REASONS[t.reason] || t.reason}))));
}

export function showMessage(node, text, info = false) {
  node.hidden = !text;
  node.textContent = text || "";
  node.classList.toggle("info", info);
}

export function readFile(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsText(file);
  });
}
