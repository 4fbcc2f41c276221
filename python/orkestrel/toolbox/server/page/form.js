// The form renderer the answering page (page.js) and the ask MCP App (app.js) share: plain
// JavaScript, no build step. Every text a form carries (labels, help, choices, defaults) is set
// as text or an attribute value, never parsed as HTML.
"use strict";

window.orkestrelForm = (() => {
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

  function render(record, send) {
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
    const button = element("button", { type: "submit" }, "Answer");
    form.append(general, button, outcome);
    node.append(form);
    // Answered on the button's click, which Enter in a field also makes: a frame sandboxed
    // without allow-forms (an MCP App's host may not grant it) blocks the submission first.
    button.addEventListener("click", (event) => {
      event.preventDefault();
      submit(record.id, widgets, general, outcome, button, send);
    });
    form.addEventListener("submit", (event) => event.preventDefault());
    return { node, widgets };
  }

  // `send(id, values)` delivers the answers and resolves to what became of them:
  // {answered: true}, {errors: [...]} for answers the form rejected (the form stays open), or
  // {message} saying why nothing was answered.
  async function submit(id, widgets, general, outcome, button, send) {
    const values = {};
    for (const made of widgets) {
      made.mark("");
      if (made.field.disabled) continue;
      const value = made.read();
      if (value !== undefined) values[made.field.name] = value;
    }
    general.hidden = true;
    button.disabled = true;
    outcome.textContent = "Sending…";
    const result = await send(id, values);
    if (result.answered) {
      outcome.textContent = "Answered.";
      return;
    }
    button.disabled = false;
    if (!result.errors) {
      outcome.textContent = result.message;
      return;
    }
    outcome.textContent = "Some answers need another look.";
    const byName = new Map(widgets.map((made) => [made.field.name, made]));
    const stray = [];
    for (const fault of result.errors) {
      const made = byName.get(fault.field);
      if (made) made.mark(fault.message); else stray.push(fault.message);
    }
    general.hidden = stray.length === 0;
    general.textContent = stray.join(" ");
  }

  return { element, render };
})();
