// The phasetodo board's script, loaded as a module by board.html: sessions, one live plan,
// its history, one version, and edits. Each page is a module; this one picks it by address.
// Every piece of plan text reaches the page through textContent or a text node, never as
// markup; the server's Content-Security-Policy allows only the board's own files.
import "./api.js"; // first: it takes the token out of the address bar
import { startClock } from "./clock.js";
import { h, show } from "./dom.js";
import { historyPage } from "./history.js";
import { VIEWS, planPage } from "./plan.js";
import { sessionsPage } from "./sessions.js";
import { versionPage } from "./version.js";

function route(path) {
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) sessionsPage();
  else if (parts[0] === "s" && parts.length === 2) planPage(parts[1]);
  else if (parts[0] === "s" && parts.length === 3 && parts[2] === "history") historyPage(parts[1]);
  else if (parts[0] === "s" && parts.length === 3 && VIEWS[parts[2]] && parts[2] !== "list") planPage(parts[1], parts[2]);
  else if (parts[0] === "s" && parts.length === 4 && parts[2] === "v") versionPage(parts[1], Number(parts[3]));
  else show(h("h1", {}, "Not found"), h("p", {}, h("a", { href: "/" }, "All sessions")));
}

startClock();
route(location.pathname);
