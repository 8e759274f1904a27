// The WebSocket to /ws/<room_id>: hello on every (re)connect, automatic reconnect with
// exponential backoff and jitter, keep-alive pings. Status: "connecting", "open",
// "waiting" (a retry is scheduled at `retryAt`), "closed" (the room does not exist).

const PING_MS = 20000;
const MAX_DELAY_MS = 3000; // back soon after a server restart (retries: ~0.5, 1, 2, 3, 3 ... s)

export class Connection {
  constructor(url, { hello, onMessage, onFrame, onStatus }) {
    this.url = url;
    this.hello = hello;
    this.onMessage = onMessage;
    this.onFrame = onFrame ?? (() => {});
    this.onStatus = onStatus;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.pinger = null;
    this.stopped = false;
    this.status = "connecting";
    this.retryAt = 0;
    window.addEventListener("online", () => this.retryNow());
  }

  setStatus(status) {
    this.status = status;
    this.onStatus(status, this);
  }

  open() {
    clearTimeout(this.timer);
    this.setStatus("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (error) {
      this.schedule();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.attempt = 0;
      ws.send(JSON.stringify(this.hello()));
      this.setStatus("open");
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), PING_MS);
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      // Protocol 2: a frame is an array of the messages of one change (in order); a
      // single object (an error before the hello is accepted) is one message.
      for (const message of Array.isArray(data) ? data : [data]) this.onMessage(message);
      this.onFrame();
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pinger);
      if (this.stopped || event.code === 4404) {
        this.setStatus("closed");
        return;
      }
      this.schedule();
    };
  }

  schedule() {
    const base = Math.min(MAX_DELAY_MS, 500 * 2 ** this.attempt);
    const delay = base / 2 + Math.random() * (base / 2);
    this.attempt += 1;
    this.retryAt = Date.now() + delay;
    this.timer = setTimeout(() => this.open(), delay);
    this.setStatus("waiting");
  }

  /** Reconnect now (a "retry" click, the browser going online). */
  retryNow() {
    if (this.stopped || this.status === "open" || this.status === "connecting") return;
    this.open();
  }

  /** Drop the socket (tests of the reconnect path, or leaving the page). */
  drop() {
    if (this.ws) this.ws.close();
  }

  /** Send `message`; false when not connected (the caller says so). */
  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN && this.status === "open") {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close();
  }
}
