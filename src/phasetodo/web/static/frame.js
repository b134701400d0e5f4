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
// The edit a "Saved as version N" message is about ({version, text}), while it shows.
let saved = null;

function unsay() {
  $("#message").hidden = true;
}

// A message above the page: "ok" ones go away by themselves, warnings and errors stay
// until dismissed.
export function say(text, kind) {
  const box = $("#message");
  clearTimeout(sayTimer);
  saved = null;
  if (kind === "ok") sayTimer = setTimeout(unsay, 6000);
  box.replaceChildren(
    h("span", { class: "message-text" }, text),
    h("button", { type: "button", class: "link", onclick: unsay }, "Dismiss"),
  );
  box.className = "message " + (kind || "error");
  box.hidden = false;
}

const savedLine = (edit, now) =>
  `Saved as version ${edit.version}.` +
  (now > edit.version ? ` The plan is now at version ${now} (changed since).` : "") +
  (edit.text ? " " + edit.text : "");

// Say an edit was saved as `version` (with `text` after, a warning when given); the
// message then follows the version the page shows (see followVersion).
export function saySaved(version, text) {
  say(savedLine({ version, text }, version), text ? "warn" : "ok");
  saved = { version, text };
}

// The page now shows version `now`: a saved message still up says the plan moved on since,
// so it never names an older version than the page's head without saying so.
export function followVersion(now) {
  const box = $("#message");
  if (!saved || box.hidden || typeof now !== "number" || now <= saved.version) return;
  const line = box.querySelector(".message-text");
  if (line) line.textContent = savedLine(saved, now);
}

// A page that could not be loaded: its title and why.
export function showFailure(heading, error) {
  show(h("h1", {}, heading), h("p", { class: "empty" }, error.message));
}
