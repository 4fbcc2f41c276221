// The answering page of one orkestrel terminal: plain JavaScript, no build step.
// It reads the terminal's event stream with fetch (so it can send the token header), lists the
// pending forms (deduplicated by SSE id, since every reconnect replays them), renders every
// control, posts the answers, and re-renders the failed fields from a 422 body.
"use strict";

(() => {
  const HEADER = "x-orkestrel-token";
  const RECONNECT_MS = 2000;
  const streamUrl = location.pathname.replace(/\/+$/, "");
  const name = decodeURIComponent(streamUrl.split("/").pop() || "");
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
      const card = render(payload);
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

  function element(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value === true) node.setAttribute(key, "");
      else if (value !== false && value !== undefined && value !== null) node.setAttribute(key, String(value));
    }
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const INPUT_TYPES = {
    text: "text", password: "password", number: "number", date: "date",
    time: "time", datetime: "datetime-local", color: "color",
  };

  // Each control becomes a widget: {node, read(), write(value), mark(message)}.
  function widget(field, formId) {
    const id = `${formId}-${field.name}`.replace(/[^A-Za-z0-9_-]/g, "_");
    const wrap = element("div", { class: "field", "data-field": field.name });
    const label = field.label || field.name;
    const locked = Boolean(field.locked || field.disabled);
    const error = element("p", { class: "error", id: `${id}-error`, hidden: true });
    let read, write, inputs;

    if (field.control === "confirm") {
      wrap.classList.add("inline");
      const box = element("input", { type: "checkbox", id, name: field.name, disabled: locked });
      box.checked = field.default === true;
      wrap.append(box, element("label", { for: id }, label));
      read = () => box.checked;
      write = (value) => { box.checked = value === true; };
      inputs = [box];
    } else if (field.control === "checkbox" || (field.control === "select" && !field.open)) {
      const multiple = field.control === "checkbox";
      if (multiple) {
        const group = element("fieldset", { id });
        group.append(element("legend", {}, label));
        inputs = field.choices.map((choice, index) => {
          const cid = `${id}-${index}`;
          const box = element("input", {
            type: "checkbox", id: cid, value: choice.value,
            disabled: locked || choice.disabled === true,
          });
          box.checked = Array.isArray(field.default) && field.default.includes(choice.value);
          const row = element("div", { class: "field inline" });
          row.append(box, element("label", { for: cid, class: "choice" }, choice.label));
          if (choice.help) row.append(element("span", { class: "help" }, choice.help));
          group.append(row);
          return box;
        });
        wrap.append(group);
        read = () => {
          const picked = inputs.filter((box) => box.checked).map((box) => box.value);
          return picked.length ? picked : undefined;
        };
        write = (value) => { for (const box of inputs) box.checked = Array.isArray(value) && value.includes(box.value); };
      } else {
        const select = element("select", { id, name: field.name, disabled: locked });
        select.append(element("option", { value: "" }, "—"));
        for (const choice of field.choices) {
          select.append(element("option", { value: choice.value, disabled: choice.disabled === true }, choice.label));
        }
        if (typeof field.default === "string") select.value = field.default;
        wrap.append(element("label", { for: id }, label), select);
        read = () => (select.value === "" ? undefined : select.value);
        write = (value) => { select.value = typeof value === "string" ? value : ""; };
        inputs = [select];
      }
    } else if (field.control === "file") {
      const input = element("input", {
        type: "file", id, name: field.name, multiple: field.multiple === true,
        accept: Array.isArray(field.accept) ? field.accept.join(",") : undefined, disabled: locked,
      });
      wrap.append(element("label", { for: id }, label), input);
      read = () => {
        const names = Array.from(input.files || []).map((file) => file.name);
        return names.length ? names : undefined;
      };
      write = () => {};
      inputs = [input];
    } else {
      const editor = field.control === "editor";
      const input = editor
        ? element("textarea", { id, name: field.name, placeholder: field.placeholder, readonly: locked })
        : element("input", {
          type: INPUT_TYPES[field.control] || "text", id, name: field.name,
          placeholder: field.placeholder, readonly: locked && field.control !== "color",
          disabled: locked && field.control === "color",
          step: field.control === "number" ? "any" : field.control === "time" || field.control === "datetime" ? "1" : undefined,
          list: field.control === "select" ? `${id}-choices` : undefined,
          autocomplete: field.control === "password" ? "off" : undefined,
        });
      wrap.append(element("label", { for: id }, label), input);
      if (field.control === "select") {
        const list = element("datalist", { id: `${id}-choices` });
        for (const choice of field.choices) list.append(element("option", { value: choice.value }, choice.label));
        wrap.append(list);
      }
      read = () => {
        const text = input.value;
        if (text.trim() === "") return undefined;
        if (field.control === "number") {
          const number = Number(text);
          return Number.isFinite(number) ? number : text;
        }
        return text;
      };
      write = (value) => {
        if (value === undefined || value === null) input.value = "";
        else input.value = String(value);
      };
      if (field.default !== undefined) write(field.default);
      inputs = [input];
    }
    if (field.help) wrap.append(element("p", { class: "help" }, field.help));
    wrap.append(error);
    for (const input of inputs) input.setAttribute("aria-describedby", error.id);
    const mark = (message) => {
      error.hidden = !message;
      error.textContent = message || "";
      for (const input of inputs) input.setAttribute("aria-invalid", message ? "true" : "false");
    };
    if (field.hidden) wrap.hidden = true;
    return { node: wrap, read, write, mark, field };
  }

  function render(record) {
    const schema = record.schema || {};
    const node = element("article", { "data-form": record.id });
    node.append(element("h2", {}, schema.label || schema.name || "Form"));
    if (record.from) node.append(element("p", { class: "from" }, `Asked by ${record.from}`));
    if (schema.help) node.append(element("p", { class: "help" }, schema.help));
    const form = element("form", { novalidate: true });
    const widgets = [];
    const groups = new Map();
    for (const group of schema.groups || []) {
      const set = element("fieldset", { "data-group": group.name });
      set.append(element("legend", {}, group.label));
      if (group.help) set.append(element("p", { class: "help" }, group.help));
      groups.set(group.name, set);
    }
    const placed = new Set();
    for (const field of schema.fields || []) {
      const made = widget(field, record.id);
      widgets.push(made);
      const set = field.group ? groups.get(field.group) : undefined;
      if (set) {
        set.append(made.node);
        if (!placed.has(set)) { form.append(set); placed.add(set); }
      } else {
        form.append(made.node);
      }
    }
    const general = element("p", { class: "error", hidden: true });
    const outcome = element("p", { class: "outcome", role: "status" });
    const submit = element("button", { type: "submit" }, "Answer");
    form.append(general, submit, outcome);
    node.append(form);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      answer(record.id, widgets, general, outcome, submit);
    });
    return { node, widgets };
  }

  async function answer(id, widgets, general, outcome, submit) {
    const values = {};
    for (const made of widgets) {
      made.mark("");
      if (made.field.disabled) continue;
      const value = made.read();
      if (value !== undefined) values[made.field.name] = value;
    }
    general.hidden = true;
    submit.disabled = true;
    outcome.textContent = "Sending…";
    let response;
    try {
      response = await fetch(streamUrl, {
        method: "POST",
        headers: headers({ "content-type": "application/json" }),
        body: JSON.stringify({ id, values }),
      });
    } catch (error) {
      outcome.textContent = `Not sent: ${error.message}`;
      submit.disabled = false;
      return;
    }
    let body = null;
    try { body = await response.json(); } catch { body = null; }
    if (response.status === 200) {
      outcome.textContent = "Answered.";
      const card = forms.get(id);
      if (card) {
        forms.delete(id);
        setTimeout(() => { card.node.remove(); refreshEmpty(); }, 1500);
      }
      return;
    }
    submit.disabled = false;
    if (response.status === 401) {
      outcome.textContent = "The token was refused.";
      askToken();
      return;
    }
    const error = body && body.error;
    if (response.status === 422 && error && error.reason === "rejected") {
      outcome.textContent = "Some answers need another look.";
      const byName = new Map(widgets.map((made) => [made.field.name, made]));
      const stray = [];
      for (const fault of error.errors || []) {
        const made = byName.get(fault.field);
        if (made) made.mark(fault.message); else stray.push(fault.message);
      }
      general.hidden = stray.length === 0;
      general.textContent = stray.join(" ");
      return;
    }
    if (error && error.reason === "unknown") {
      outcome.textContent = "This form is no longer waiting for an answer.";
      return;
    }
    outcome.textContent = `The answer was refused (${response.status}).`;
  }

  refreshEmpty();
  connect();
})();
