// The ask form as an MCP App (io.modelcontextprotocol/ui): the answering page's renderer
// (form.js) inside the host's sandboxed iframe. It reaches the server only through the host,
// JSON-RPC over postMessage: it lists the forms asked on this client's calls (the app-only tool
// ask_forms) and answers one (ask_answer), which settles the ask call the host waits on.
"use strict";

(() => {
  const { render } = window.orkestrelForm;
  const PROTOCOL = "2026-01-26";
  const POLL_MS = 500;
  const replies = new Map();
  const shown = new Map();
  let next = 1;
  let polling = false;
  let done = false;

  const $ = (id) => document.getElementById(id);

  function status(text, error) {
    const node = $("status");
    node.textContent = text;
    node.className = error ? "error" : "";
  }

  // The iframe's own origin is opaque (sandboxed), and only its parent reads what it posts.
  function post(message) {
    window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
  }

  function request(method, params) {
    const id = next++;
    return new Promise((resolve, reject) => {
      replies.set(id, { resolve, reject });
      post({ id, method, params });
    });
  }

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined) {
      const reply = replies.get(message.id);
      if (!reply) return;
      replies.delete(message.id);
      if (message.error) reply.reject(new Error(String(message.error.message || "refused")));
      else reply.resolve(message.result);
      return;
    }
    if (message.method === "ui/notifications/tool-input") refresh();
    else if (message.method === "ui/notifications/tool-result") finish("The form was answered.");
    else if (message.method === "ui/notifications/tool-cancelled") finish("The question was withdrawn.");
    else if (message.method === "ui/resource-teardown") post({ id: message.id, result: {} });
    else if (message.id !== undefined) post({ id: message.id, error: { code: -32601, message: "Method not found" } });
  });

  // A served tool's answer: its structured content, or the JSON of its text.
  async function call(name, args) {
    const result = await request("tools/call", { name, arguments: args });
    const text = ((result && result.content) || []).map((part) => part.text || "").join("");
    if (!result || result.isError) throw new Error(text || `${name} failed`);
    if (result.structuredContent && typeof result.structuredContent === "object") return result.structuredContent;
    return JSON.parse(text);
  }

  // Lists the waiting forms, again every POLL_MS while none is waiting yet (the ask parks its
  // form as the host starts the app, perhaps a moment after).
  async function refresh() {
    if (polling) return;
    polling = true;
    try {
      while (!done) {
        const listed = await call("ask_forms", {});
        const ids = new Set();
        for (const record of listed.forms || []) {
          ids.add(record.id);
          if (shown.has(record.id)) continue;
          const card = render(record, answer);
          shown.set(record.id, card);
          $("forms").append(card.node);
        }
        for (const [id, card] of shown) {
          if (!ids.has(id) && !card.answered) { card.node.remove(); shown.delete(id); }
        }
        $("empty").hidden = shown.size > 0;
        if (shown.size > 0) {
          status("Answer the form below.");
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    } catch (error) {
      status(`The forms could not be read (${error.message}).`, true);
    } finally {
      polling = false;
    }
  }

  async function answer(id, values) {
    let outcome;
    try {
      outcome = await call("ask_answer", { id, values });
    } catch (error) {
      return { message: `Not sent: ${error.message}` };
    }
    if (outcome.success === true) {
      const card = shown.get(id);
      if (card) card.answered = true;
      return { answered: true };
    }
    const reason = outcome.error && outcome.error.reason;
    if (reason === "rejected") return { errors: outcome.error.errors || [] };
    if (reason === "unknown") return { message: "This form is no longer waiting for an answer." };
    return { message: `The answer was refused (${reason}).` };
  }

  function finish(text) {
    done = true;
    status(text);
  }

  request("ui/initialize", {
    protocolVersion: PROTOCOL,
    appInfo: { name: "orkestrel-ask", version: "1" },
    appCapabilities: {},
  }).then(() => {
    post({ method: "ui/notifications/initialized", params: {} });
    status("Waiting for a form…");
    refresh();
  }, (error) => status(`The host did not start the app (${error.message}).`, true));
})();
