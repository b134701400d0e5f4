// Times shown as "3 min ago", kept current while the page stays open.
import { h } from "./dom.js";

function ago(t) {
  const s = Math.max(0, Date.now() / 1000 - t);
  if (s < 5) return "just now";
  if (s < 60) return `${Math.round(s)} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

// A <time> for a Unix time (seconds), or "never".
export function timeEl(t) {
  if (t === null || t === undefined) return h("span", { class: "muted" }, "never");
  const date = new Date(t * 1000);
  return h("time", { datetime: date.toISOString(), title: date.toLocaleString(), "data-t": t }, ago(t));
}

export function startClock() {
  setInterval(() => {
    for (const node of document.querySelectorAll("time[data-t]")) node.textContent = ago(Number(node.dataset.t));
  }, 15000);
}
