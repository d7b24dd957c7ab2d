// The leaderboard tab: one or more sam-eval summary.json files as sortable tables of X/hand with
// 95% intervals and ratings, with the plots sam-eval wrote beside them; protocol v1 results files
// (*.results.json) also give a row of headline scores each.
import {api, el, readFile, showMessage} from "./common.js";

const $ = (id) => document.getElementById(id);
const MATCH_COLUMNS = [
  ["agent", "agent"], ["opponents", "opponents"], ["hands", "hands", "int"], ["x_per_hand", "X/hand", "x"],
  ["ci_low", "95% CI low", "x"], ["ci_high", "95% CI high", "x"], ["win_rate", "win %", "pct"], ["source", "file"],
];
const HEADLINE_COLUMNS = [
  ["agent", "agent"], ["track", "protocol track"], ["score", "headline X/hand", "x"], ["ci_low", "95% CI low", "x"],
  ["ci_high", "95% CI high", "x"], ["deals", "deals", "int"], ["command", "command"], ["source", "file"],
];
const RATING_COLUMNS = [
  ["agent", "agent"], ["x_per_hand", "X/hand", "x"], ["mu", "mu", "f"], ["sigma", "sigma", "f"],
  ["ordinal", "ordinal (mu − 3σ)", "f"], ["games", "hands rated", "int"], ["source", "file"],
];

export async function setupLeaderboard() {
  $("summary-files").addEventListener("change", async (event) => {
    const files = await Promise.all([...event.target.files].map(async (f) => ({name: f.name, text: await readFile(f)})));
    if (files.length) show({files});
  });
  try {
    const {summaries} = await api("/api/files");
    if (summaries.length) {
      const boxes = summaries.map((path) => el("label", {}, el("input", {type: "checkbox", value: path, checked: true}), ` ${path} `));
      $("served-summaries").replaceChildren(el("span", {text: "In the served folder: "}), ...boxes,
        el("button", {type: "button", id: "show-summaries", text: "Show", onclick: () => show({
          paths: [...document.querySelectorAll("#served-summaries input:checked")].map((b) => b.value)})}));
    }
  } catch (err) {
    showMessage($("board-message"), err.message);
  }
}

async function show(body) {
  try {
    const {boards, refused} = await api("/api/leaderboard", body);
    showMessage($("board-message"), refused.map((r) => `not shown: ${r.error}`).join("\n"));
    $("board").hidden = false;
    const headlines = boards.filter((b) => b.headline).map((b) => b.headline);
    $("headline-scores").hidden = !headlines.length;
    sortable($("headlines"), HEADLINE_COLUMNS, headlines, "score");
    sortable($("matches"), MATCH_COLUMNS, boards.flatMap((b) => b.matches), "x_per_hand");
    sortable($("ratings"), RATING_COLUMNS, boards.flatMap((b) => b.ratings), "x_per_hand");
    $("plots").replaceChildren(...boards.flatMap((b) => b.plots.map((url) => el("figure", {},
      el("img", {src: url, alt: `plot of ${b.source}`}), el("figcaption", {text: url.replace("/files/", "")})))));
  } catch (err) {
    showMessage($("board-message"), err.message);
  }
}

function format(value, kind) {
  if (value === null || value === undefined) return "–";
  if (kind === "x") return (value > 0 ? "+" : "") + value.toFixed(2);
  if (kind === "pct") return (100 * value).toFixed(1);
  if (kind === "f") return value.toFixed(2);
  return String(value);
}

function sortable(table, columns, rows, initial) {
  const order = {key: initial, descending: true};
  const draw = () => {
    const sorted = [...rows].sort((a, b) => {
      const x = a[order.key], y = b[order.key];
      const cmp = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return order.descending ? -cmp : cmp;
    });
    const head = el("tr", {}, columns.map(([key, label, kind]) => el("th", {
      class: `${kind && kind !== "int" ? "num" : ""} ${order.key === key ? (order.descending ? "sorted-desc" : "sorted-asc") : ""}`,
      "data-key": key, text: label,
      onclick: () => {
        order.descending = order.key === key ? !order.descending : true;
        order.key = key;
        draw();
      },
    })));
    table.replaceChildren(head, ...sorted.map((row) => el("tr", {}, columns.map(([key, , kind]) => el("td", {
      class: kind && kind !== "int" ? "num" : "", text: format(row[key], kind)})))));
  };
  draw();
}
