// The page around the content: title, breadcrumbs, the live indicator and the message box.
import { $, h, show } from "./dom.js";

export function title(text) {
  document.title = text + " · phasetodo board";
}

export function crumbs(...items) {
  $("#crumbs").replaceChildren(
    ...items.map((item) => (item.href ? h("a", { href: item.href }, item.text) : h("span", {}, item.text))),
  );
}

export function setLive(text, state) {
  const node = $("#live");
  node.textContent = text;
  node.dataset.state = state;
}

let sayTimer = null;

function unsay() {
  $("#message").hidden = true;
}

// A message above the page: "ok" ones go away by themselves, errors stay until dismissed.
export function say(text, kind) {
  const box = $("#message");
  clearTimeout(sayTimer);
  if (kind === "ok") sayTimer = setTimeout(unsay, 6000);
  box.replaceChildren(
    h("span", { class: "message-text" }, text),
    h("button", { type: "button", class: "link", onclick: unsay }, "Dismiss"),
  );
  box.className = "message " + (kind || "error");
  box.hidden = false;
}

// A page that could not be loaded: its title and why.
export function showFailure(heading, error) {
  show(h("h1", {}, heading), h("p", { class: "empty" }, error.message));
}
