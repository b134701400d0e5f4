// A live feed: server-sent events that reconnect by themselves, and again a few
// seconds after a refusal (a busy board answers 503, which EventSource gives up on).
import { withToken } from "./api.js";
import { setLive } from "./frame.js";

const RETRY_MS = 5000;

class Feed {
  constructor(url, event, onData) {
    this.url = url;
    this.event = event;
    this.onData = onData;
    this.source = null;
    this.retry = null;
  }

  open() {
    if (this.source) return;
    const source = new EventSource(withToken(this.url));
    this.source = source;
    source.addEventListener(this.event, (e) => this.onData(JSON.parse(e.data)));
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
export const feed = (url, event, onData) => new Feed(url, event, onData);
