// The answering page of one orkestrel terminal: plain JavaScript, no build step.
// It reads the terminal's event stream with fetch (so it can send the token header), lists the
// pending forms (deduplicated by SSE id, since every reconnect replays them), renders them with
// form.js, posts the answers, and hands a 422 body's failed fields back to the renderer.
"use strict";

(() => {
  const HEADER = "x-orkestrel-token";
  const RECONNECT_MS = 2000;
  const streamUrl = location.pathname.replace(/\/+$/, "");
  const name = decodeURIComponent(streamUrl.split("/").pop() || "");
  const { render } = window.orkestrelForm;
  const forms = new Map();
  let token = readToken();
  let stopped = false;

  const $ = (id) => document.getElementById(id);
  $("terminal").textContent = name;
  document.title = `orkestrel terminal ${name}`;

  // A browser may block sessionStorage (it then throws on access): the token then lives only
  // as long as the page.
  function remember(value) {
    try {
      sessionStorage.setItem("orkestrel-token", value);
    } catch {}
  }

  function recall() {
    try {
      return sessionStorage.getItem("orkestrel-token");
    } catch {
      return null;
    }
  }

  function readToken() {
    const match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
    if (match) {
      const value = decodeURIComponent(match[1]);
      remember(value);
      history.replaceState(null, "", location.pathname + location.search);
      return value;
    }
    return recall();
  }

  function headers(extra) {
    const all = Object.assign({}, extra);
    if (token) all[HEADER] = token;
    return all;
  }

  function status(text, error) {
    const node = $("status");
    node.textContent = text;
    node.className = error ? "error" : "";
  }

  function askToken() {
    const box = $("token");
    box.hidden = false;
    $("token-value").focus();
  }

  $("token").addEventListener("submit", (event) => {
    event.preventDefault();
    token = $("token-value").value;
    remember(token);
    $("token").hidden = true;
    stopped = false;
    connect();
  });

  function refreshEmpty() {
    $("empty").hidden = forms.size > 0;
  }

  // A server-sent event reader that accepts LF, CR and CRLF line ends and skips comments.
  function sseReader(dispatch) {
    let buffer = "";
    let event = "";
    let data = [];
    let id = null;
    let carriage = false;
    function line(text) {
      if (text === "") {
        if (data.length || event) dispatch(event || "message", data.join("\n"), id);
        event = ""; data = []; id = null;
        return;
      }
      if (text.startsWith(":")) return;
      const colon = text.indexOf(":");
      const field = colon < 0 ? text : text.slice(0, colon);
      let value = colon < 0 ? "" : text.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "id") id = value;
    }
    return (chunk) => {
      if (carriage && chunk.startsWith("\n")) chunk = chunk.slice(1);
      carriage = chunk.endsWith("\r");
      buffer += chunk;
      const parts = buffer.split(/\r\n|\r|\n/);
      buffer = parts.pop();
      for (const part of parts) line(part);
    };
  }

  async function connect() {
    while (!stopped) {
      try {
        status("Connecting…");
        const response = await fetch(streamUrl, { headers: headers({ accept: "text/event-stream" }) });
        if (response.status === 401) {
          status("This terminal needs a token.", true);
          stopped = true;
          askToken();
          return;
        }
        if (response.status === 404) {
          status(`There is no terminal named ${name}.`, true);
          stopped = true;
          return;
        }
        if (!response.ok || !response.body) throw new Error(`the stream answered ${response.status}`);
        status("Connected: forms appear here as they are asked.");
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        const feed = sseReader(onEvent);
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          feed(value);
          if (stopped) { reader.cancel(); return; }
        }
      } catch (error) {
        status(`Disconnected (${error.message}); reconnecting…`, true);
      }
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  }

  function onEvent(event, data, id) {
    if (event === "shutdown") {
      stopped = true;
      status("The terminal has shut down.", true);
      return;
    }
    let payload;
    try { payload = JSON.parse(data); } catch { return; }
    if (!payload || typeof payload.id !== "string") return;
    if (event === "pending") {
      const key = id || payload.id;
      if (forms.has(key)) return;
      const card = render(payload, answer);
      forms.set(key, card);
      $("forms").append(card.node);
      refreshEmpty();
    } else if (event === "expire") {
      const card = forms.get(payload.id);
      if (card) {
        forms.delete(payload.id);
        card.node.remove();
        refreshEmpty();
      }
    }
  }

  // Posts the answers of form `id`: what became of them, for the form renderer.
  async function answer(id, values) {
    let response;
    try {
      response = await fetch(streamUrl, {
        method: "POST",
        headers: headers({ "content-type": "application/json" }),
        body: JSON.stringify({ id, values }),
      });
    } catch (error) {
      return { message: `Not sent: ${error.message}` };
    }
    let body = null;
    try { body = await response.json(); } catch { body = null; }
    if (response.status === 200) {
      const card = forms.get(id);
      if (card) {
        forms.delete(id);
        setTimeout(() => { card.node.remove(); refreshEmpty(); }, 1500);
      }
      return { answered: true };
    }
    if (response.status === 401) {
      askToken();
      return { message: "The token was refused." };
    }
    const error = body && body.error;
    if (response.status === 422 && error && error.reason === "rejected") {
      return { errors: error.errors || [] };
    }
    if (error && error.reason === "unknown") {
      return { message: "This form is no longer waiting for an answer." };
    }
    return { message: `The answer was refused (${response.status}).` };
  }

  refreshEmpty();
  connect();
})();
