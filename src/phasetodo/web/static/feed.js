// A live feed: server-sent events that reconnect by themselves, and again a few
// seconds after a refusal (a busy board answers 503, which EventSource gives up on).
import { withToken } from "./api.js";
import { setLive } from "./frame.js";

const RETRY_MS = 5000;

class Feed {
  // `url`: the address, or a function that gives it at each (re)open; `handlers`: the
  // function each event's parsed data goes to, by the event's name.
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;
    this.source = null;
    this.retry = null;
  }

  open() {
    if (this.source) return;
    const source = new EventSource(withToken(typeof this.url === "function" ? this.url() : this.url));
    this.source = source;
    for (const [event, onData] of Object.entries(this.handlers)) source.addEventListener(event, (e) => onData(JSON.parse(e.data)));
    source.onopen = () => setLive("● live", "live");
    source.onerror = () => this.failed();
  }

  // EventSource retries by itself unless the board refused it (CLOSED): then retry later.
  failed() {
    setLive("reconnecting…", "down");
    if (!this.source || this.source.readyState !== EventSource.CLOSED || this.retry !== null) return;
    this.source = null;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.open();
    }, RETRY_MS);
  }

  close() {
    clearTimeout(this.retry);
    this.retry = null;
    if (this.source) this.source.close();
    this.source = null;
    setLive("paused", "paused");
  }
}

// A feed of `event`s from `url`, each parsed and given to onData; call .open() to start.
export const feed = (url, event, onData) => new Feed(url, { [event]: onData });
// A feed of several events: `handlers` maps each event's name to what takes its data.
export const feedOf = (url, handlers) => new Feed(url, handlers);
