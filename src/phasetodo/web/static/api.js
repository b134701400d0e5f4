// The board's API: the token, the addresses, JSON reads and edits.

const TOKEN_KEY = "phasetodo-token";

// The token arrives once in the address (?token=...); keep it for this board's
// origin and take it out of the address bar, so it is not copied around.
function takeToken() {
  const params = new URLSearchParams(location.search);
  if (params.has("token")) {
    localStorage.setItem(TOKEN_KEY, params.get("token"));
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
  }
  return localStorage.getItem(TOKEN_KEY) || "";
}

// Taken when this module is first imported, before any page reads the address.
export const token = takeToken();

const enc = encodeURIComponent;
// A session's API address and its page's address, with what follows (e.g. "/history").
export const apiPath = (sid, rest = "") => `/api/sessions/${enc(sid)}${rest}`;
export const pagePath = (sid, rest = "") => `/s/${enc(sid)}${rest}`;

// A board reachable from other machines wants the token on reads too: a header on
// fetches, ?token= on live feeds (EventSource sends no headers of ours).
const readHeaders = token ? { accept: "application/json", "x-phasetodo-token": token } : { accept: "application/json" };
export const withToken = (url) => (token ? url + (url.includes("?") ? "&" : "?") + "token=" + enc(token) : url);

export async function getJSON(url) {
  const response = await fetch(url, { headers: readHeaders });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(body.message || response.statusText);
    error.status = response.status;
    throw error;
  }
  return body;
}

// One edit of a session: {status, body}; status 0 when the board did not answer.
export async function postEdit(sid, body) {
  try {
    const response = await fetch(apiPath(sid, "/edit"), {
      method: "POST",
      headers: { "content-type": "application/json", "x-phasetodo-token": token },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json().catch(() => ({})) };
  } catch (error) {
    return { status: 0, body: { message: `The board did not answer (${error.message}); nothing changed.` } };
  }
}

// What to tell a person whose edit was refused.
export const refusal = (reply) => reply.body.message || `The edit was refused (HTTP ${reply.status}).`;
