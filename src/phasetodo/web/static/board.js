// The phasetodo board: sessions, one live plan, its history, and edits.
// Every piece of plan text reaches the page through textContent or a text node,
// never as markup; the server's Content-Security-Policy allows only this file.
"use strict";

(() => {
  const TOKEN_KEY = "phasetodo-token";
  const STATUS = {
    pending: { icon: "○", label: "pending" },
    in_progress: { icon: "▶", label: "in progress" },
    completed: { icon: "✓", label: "done" },
    abandoned: { icon: "✕", label: "dropped" },
    blocked: { icon: "⏸", label: "blocked" },
  };
  const KINDS = { write: "agent write", user_edit: "person's edit", clear: "auto-clear" };

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
  const token = takeToken();

  // -- small helpers ---------------------------------------------------------------------------

  function h(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      node.append(kid instanceof Node ? kid : String(kid));
    }
    return node;
  }
  const $ = (selector) => document.querySelector(selector);
  // Replace the page's content; null and false children are left out.
  function show(...kids) {
    const main = $("#main");
    main.replaceChildren();
    for (const kid of kids.flat(Infinity)) if (kid !== null && kid !== undefined && kid !== false) main.append(kid);
  }
  const enc = encodeURIComponent;
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

  function ago(t) {
    const s = Math.max(0, Date.now() / 1000 - t);
    if (s < 5) return "just now";
    if (s < 60) return `${Math.round(s)} s ago`;
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
    return `${Math.floor(s / 86400)} d ago`;
  }
  function timeEl(t) {
    if (t === null || t === undefined) return h("span", { class: "muted" }, "never");
    const date = new Date(t * 1000);
    return h("time", { datetime: date.toISOString(), title: date.toLocaleString(), "data-t": t }, ago(t));
  }
  setInterval(() => {
    for (const node of document.querySelectorAll("time[data-t]")) node.textContent = ago(Number(node.dataset.t));
  }, 15000);

  let sayTimer = null;
  function say(text, kind) {
    const box = $("#message");
    clearTimeout(sayTimer);
    if (kind === "ok") sayTimer = setTimeout(unsay, 6000); // errors stay until dismissed
    box.replaceChildren(
      h("span", { class: "message-text" }, text),
      h("button", { type: "button", class: "link", onclick: unsay }, "Dismiss"),
    );
    box.className = "message " + (kind || "error");
    box.hidden = false;
  }
  function unsay() {
    $("#message").hidden = true;
  }
  function setLive(text, state) {
    const node = $("#live");
    node.textContent = text;
    node.dataset.state = state;
  }
  function crumbs(...items) {
    $("#crumbs").replaceChildren(
      ...items.map((item) => (item.href ? h("a", { href: item.href }, item.text) : h("span", {}, item.text))),
    );
  }
  function title(text) {
    document.title = text + " · phasetodo board";
  }

  // A board reachable from other machines wants the token on reads too: a header on
  // fetches, ?token= on live feeds (EventSource sends no headers of ours).
  const readHeaders = token ? { accept: "application/json", "x-phasetodo-token": token } : { accept: "application/json" };
  const withToken = (url) => (token ? url + (url.includes("?") ? "&" : "?") + "token=" + enc(token) : url);

  async function getJSON(url) {
    const response = await fetch(url, { headers: readHeaders });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      const error = new Error(body.message || response.statusText);
      error.status = response.status;
      throw error;
    }
    return body;
  }
  async function postEdit(sid, body) {
    try {
      const response = await fetch(`/api/sessions/${enc(sid)}/edit`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-phasetodo-token": token },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json().catch(() => ({})) };
    } catch (error) {
      return { status: 0, body: { message: `The board did not answer (${error.message}); nothing changed.` } };
    }
  }

  // A live feed: server-sent events that reconnect by themselves, and again a few
  // seconds after a refusal (a busy board answers 503, which EventSource gives up on).
  function feed(url, event, onData) {
    let source = null;
    let retry = null;
    const api = {
      open() {
        if (source) return;
        source = new EventSource(withToken(url));
        source.addEventListener(event, (e) => onData(JSON.parse(e.data)));
        source.onopen = () => setLive("● live", "live");
        source.onerror = () => {
          setLive("reconnecting…", "down");
          if (source && source.readyState === EventSource.CLOSED && retry === null) {
            source = null;
            retry = setTimeout(() => {
              retry = null;
              api.open();
            }, 5000);
          }
        };
      },
      close() {
        clearTimeout(retry);
        retry = null;
        if (source) source.close();
        source = null;
        setLive("paused", "paused");
      },
    };
    return api;
  }

  function counts(phase) {
    const c = { tasks: 0, completed: 0, abandoned: 0, in_progress: 0, open: 0 };
    for (const task of phase.tasks || []) {
      c.tasks += 1;
      c[task.status] = (c[task.status] || 0) + 1;
      if (task.status !== "completed" && task.status !== "abandoned") c.open += 1;
    }
    return c;
  }
  function bar(c, label) {
    const total = c.tasks || 0;
    const done = c.completed || 0;
    const dropped = c.abandoned || 0;
    const pct = (n) => (total ? (100 * n) / total : 0) + "%";
    const node = h("div", {
      class: "bar",
      role: "progressbar",
      "aria-label": label,
      "aria-valuemin": 0,
      "aria-valuemax": total,
      "aria-valuenow": done + dropped,
      "aria-valuetext": `${done} done, ${dropped} dropped, ${total - done - dropped} open of ${total}`,
    });
    const doneSeg = h("span", { class: "bar-done" });
    const dropSeg = h("span", { class: "bar-dropped" });
    doneSeg.style.width = pct(done); // CSSOM, which the style policy allows
    dropSeg.style.width = pct(dropped);
    node.append(doneSeg, dropSeg);
    return node;
  }
  function statusBadge(status) {
    const known = STATUS[status] || { icon: "?", label: String(status) };
    return [h("span", { class: "st-icon", "aria-hidden": "true" }, known.icon), h("span", { class: "sr-only" }, known.label + ": ")];
  }
  function teamFields(task) {
    const out = [];
    if (typeof task.owner === "string" && task.owner) out.push(h("span", { class: "chip owner", title: "owner" }, "@" + task.owner));
    if (task.reason !== undefined && task.reason !== null && task.reason !== "")
      out.push(h("span", { class: "reason" }, "Blocked: ", String(task.reason)));
    const after = Array.isArray(task.after) ? task.after : task.after ? [task.after] : [];
    if (after.length) out.push(h("span", { class: "after" }, "After: ", after.map(String).join(", ")));
    return out;
  }

  // Focus and caret survive a re-render: elements carry data-key, and the one
  // that had focus is focused again if it is still there.
  function keepFocus(render) {
    const active = document.activeElement;
    const key = active && active.dataset ? active.dataset.key : undefined;
    const caret = active && "selectionStart" in active ? [active.selectionStart, active.selectionEnd] : null;
    render();
    if (key === undefined) return;
    for (const node of document.querySelectorAll("[data-key]")) {
      if (node.dataset.key === key) {
        node.focus({ preventScroll: true });
        if (caret && "setSelectionRange" in node) {
          try {
            node.setSelectionRange(caret[0], caret[1]);
          } catch (_) {
            /* not a text field */
          }
        }
        return;
      }
    }
  }

  // -- sessions page -----------------------------------------------------------------------------

  // The sessions page shows the store's sessions a page at a time (?offset=N).
  function pager(data) {
    if (data.total <= data.limit && data.offset === 0) return null;
    const back = Math.max(0, data.offset - data.limit);
    const next = data.offset + data.limit;
    return h(
      "nav",
      { class: "pager", "aria-label": "Pages of sessions" },
      data.offset > 0 ? h("a", { href: back ? `/?offset=${back}` : "/", rel: "prev" }, "← Previous") : null,
      " ",
      next < data.total ? h("a", { href: `/?offset=${next}`, rel: "next" }, "Next →") : null,
    );
  }

  function sessionsPage() {
    title("Sessions");
    crumbs({ text: "Sessions" });
    const main = $("#main");
    const offset = Math.max(0, Number(new URLSearchParams(location.search).get("offset")) || 0);
    const render = (data) => {
      const rows = data.sessions.map((s) =>
        h(
          "tr",
          { class: "session-row", "data-session": s.id },
          h(
            "th",
            { scope: "row" },
            h("a", { class: "sid", href: "/s/" + enc(s.id) }, s.id),
            s.active.length ? h("div", { class: "active-task" }, "▶ ", s.active.join(", ")) : null,
          ),
          h("td", { class: "progress" }, bar(s, `Progress of ${s.id}`), h("span", { class: "count" }, `${s.completed} of ${s.tasks} done`)),
          h("td", { class: "open" }, h("span", { class: "open-count" }, String(s.open)), h("span", { class: "sr-only" }, " open")),
          h(
            "td",
            { class: "agents" },
            s.agents.length
              ? s.agents.map((a) => h("span", { class: "chip" + (a === s.owner ? " owner" : ""), title: a === s.owner ? "owner" : "agent" }, a))
              : h("span", { class: "muted" }, "—"),
          ),
          h(
            "td",
            { class: "last" },
            timeEl(s.time),
            s.kind ? h("div", { class: "muted" }, `v${s.version} · ${KINDS[s.kind] || s.kind}${s.agent ? " by " + s.agent : s.source ? " (" + s.source + ")" : ""}`) : null,
          ),
        ),
      );
      const open = data.sessions.reduce((n, s) => n + s.open, 0);
      const total = data.total === undefined ? data.sessions.length : data.total;
      const paged = total > data.sessions.length;
      const shown = paged ? ` · ${data.offset + 1}–${data.offset + data.sessions.length} shown` : "";
      main.replaceChildren(
        h("h1", {}, "Sessions"),
        h(
          "p",
          { class: "sub" },
          `${plural(total, "session")}${shown} · ${plural(open, "open task")}${paged ? " on this page" : ""}`,
          data.read_only ? " · read-only board" : "",
        ),
        data.sessions.length
          ? h(
              "table",
              { class: "sessions" },
              h("thead", {}, h("tr", {}, ["Session", "Progress", "Open", "Agents", "Last change"].map((t) => h("th", { scope: "col" }, t)))),
              h("tbody", {}, rows),
            )
          : h("p", { class: "empty" }, total ? "No sessions on this page." : "No sessions in this store yet. An agent's list shows up here as soon as it writes."),
        data.total === undefined ? null : pager(data),
      );
    };
    const query = offset ? `?offset=${offset}` : "";
    getJSON("/api/sessions" + query).then(render, (e) => say(e.message));
    feed("/api/stream" + query, "sessions", render).open();
  }

  // -- plan page -----------------------------------------------------------------------------------

  function planPage(sid) {
    title(sid);
    crumbs({ text: "Sessions", href: "/" }, { text: sid });
    const ui = {
      plan: null,
      folded: new Set(),
      filter: "",
      hideClosed: false,
      editing: null, // {key, phase, task, old, draft}
      drafts: {}, // phase name -> text being added
      newPhase: { name: "", task: "" },
      md: null, // {version, text} while the Markdown editor is open
      busy: false,
    };
    const live = feed(`/api/sessions/${enc(sid)}/stream`, "plan", (plan) => {
      if (ui.plan && plan.version <= ui.plan.version) return; // versions only grow
      ui.plan = plan;
      drawSoon();
    });
    // Live updates and typing in the filter redraw once per frame at most, so a
    // fast-writing agent or a long list never queues up redraws.
    let drawPending = false;
    function drawSoon() {
      if (drawPending) return;
      drawPending = true;
      requestAnimationFrame(() => {
        drawPending = false;
        draw();
      });
    }
    let liveOn = true;
    const writable = () => ui.plan && !ui.plan.read_only && token;

    async function edit(body, done) {
      if (ui.busy) return;
      ui.busy = true;
      const reply = await postEdit(sid, { ...body, expected_version: ui.plan.version });
      ui.busy = false;
      if (reply.status === 200) {
        ui.plan = reply.body.plan;
        if (done) done();
        say(reply.body.changed ? `Saved as version ${ui.plan.version}.` : "Nothing to change.", "ok");
      } else {
        say(reply.body.message || `The edit was refused (HTTP ${reply.status}).`);
        if (reply.status === 409) ui.plan = await getJSON(`/api/sessions/${enc(sid)}`);
      }
      draw();
    }

    function matches(task) {
      if (ui.hideClosed && (task.status === "completed" || task.status === "abandoned")) return false;
      if (!ui.filter) return true;
      const needle = ui.filter.toLowerCase();
      const hay = [task.content, ...(task.notes || []), task.owner || "", task.reason || ""].join("\n").toLowerCase();
      return hay.includes(needle);
    }

    function renameField(key, label, onSave) {
      const input = h("input", {
        type: "text",
        class: "rename",
        "aria-label": label,
        "data-key": key + ":input",
        oninput: (e) => (ui.editing.draft = e.target.value),
        onkeydown: (e) => {
          if (e.key === "Enter") onSave();
          if (e.key === "Escape") {
            ui.editing = null;
            draw();
          }
        },
      });
      input.value = ui.editing.draft;
      return h(
        "span",
        { class: "rename-box" },
        input,
        h("button", { type: "button", "data-key": key + ":save", onclick: onSave }, "Save"),
        h("button", { type: "button", class: "link", "data-key": key + ":cancel", onclick: () => { ui.editing = null; draw(); } }, "Cancel"),
      );
    }

    function taskRow(phase, p, task, t) {
      const key = `t:${phase.name}\u0000${task.content}`;
      const editing = ui.editing && ui.editing.key === key;
      const act = (label, status) =>
        h(
          "button",
          {
            type: "button",
            class: "act act-" + status,
            "data-key": key + ":" + status,
            "aria-label": `${label}: ${task.content}`,
            onclick: () => edit({ action: "status", phase: p, task: t, content: task.content, status }),
          },
          label,
        );
      const actions = [];
      if (writable() && !editing) {
        if (task.status !== "in_progress" && task.status !== "completed" && task.status !== "abandoned") actions.push(act("Start", "in_progress"));
        if (task.status !== "completed") actions.push(act("Done", "completed"));
        if (task.status !== "abandoned" && task.status !== "completed") actions.push(act("Drop", "abandoned"));
        if (task.status === "completed" || task.status === "abandoned" || task.status === "in_progress")
          actions.push(act(task.status === "in_progress" ? "Pause" : "Reopen", "pending"));
        actions.push(
          h(
            "button",
            {
              type: "button",
              class: "act link",
              "data-key": key + ":rename",
              "aria-label": `Rename: ${task.content}`,
              onclick: () => {
                ui.editing = { key, draft: task.content };
                draw();
                const field = [...document.querySelectorAll("[data-key]")].find((n) => n.dataset.key === key + ":input");
                if (field) field.focus();
              },
            },
            "Rename",
          ),
        );
      }
      const save = () => edit({ action: "rename", phase: p, task: t, old: task.content, name: ui.editing.draft }, () => (ui.editing = null));
      return h(
        "li",
        { class: "task st-" + task.status, "data-status": task.status },
        statusBadge(task.status),
        h(
          "div",
          { class: "task-main" },
          editing ? renameField(key, `New name for ${task.content}`, save) : h("span", { class: "content" }, task.content),
          teamFields(task),
          task.notes && task.notes.length ? h("ul", { class: "notes" }, task.notes.map((n) => h("li", {}, n))) : null,
        ),
        actions.length ? h("div", { class: "actions" }, actions) : null,
      );
    }

    function phaseSection(phase, p, { readOnly } = {}) {
      const c = counts(phase);
      const folded = ui.folded.has(phase.name);
      const key = `p:${phase.name}`;
      const editing = !readOnly && ui.editing && ui.editing.key === key;
      const visible = (phase.tasks || []).map((task, t) => [task, t]).filter(([task]) => matches(task));
      const listId = `phase-${p}-tasks`;
      const save = () => edit({ action: "rename", phase: p, old: phase.name, name: ui.editing.draft }, () => (ui.editing = null));
      const head = h(
        "div",
        { class: "phase-head" },
        h(
          "button",
          {
            type: "button",
            class: "fold",
            "aria-expanded": String(!folded),
            "aria-controls": listId,
            "aria-label": (folded ? "Unfold " : "Fold ") + phase.name,
            "data-key": key + ":fold",
            onclick: () => {
              if (folded) ui.folded.delete(phase.name);
              else ui.folded.add(phase.name);
              draw();
            },
          },
          folded ? "▸" : "▾",
        ),
        editing ? renameField(key, `New name for phase ${phase.name}`, save) : h("h2", { id: `phase-${p}` }, phase.name),
        h("span", { class: "phase-count" }, `${c.completed + c.abandoned} / ${c.tasks}`),
        bar(c, `Progress of ${phase.name}`),
        !readOnly && writable() && !editing
          ? h(
              "button",
              {
                type: "button",
                class: "link small",
                "data-key": key + ":rename",
                "aria-label": `Rename phase: ${phase.name}`,
                onclick: () => {
                  ui.editing = { key, draft: phase.name };
                  draw();
                },
              },
              "Rename",
            )
          : null,
      );
      const body = [];
      if (!folded) {
        body.push(
          h(
            "ol",
            { class: "tasks", id: listId },
            visible.map(([task, t]) => (readOnly ? readOnlyRow(task) : taskRow(phase, p, task, t))),
          ),
        );
        if (visible.length < (phase.tasks || []).length)
          body.push(h("p", { class: "muted hidden-count" }, `${plural(phase.tasks.length - visible.length, "task")} hidden by the filter`));
        if (!readOnly && writable()) body.push(addForm(phase, p));
      }
      return h("section", { class: "phase" + (c.open === 0 && c.tasks ? " phase-closed" : ""), "aria-labelledby": `phase-${p}` }, head, body);
    }

    function addForm(phase, p) {
      const key = `add:${phase.name}`;
      const input = h("input", {
        type: "text",
        id: `add-${p}`,
        placeholder: "Add a task…",
        "data-key": key,
        oninput: (e) => (ui.drafts[phase.name] = e.target.value),
      });
      input.value = ui.drafts[phase.name] || "";
      return h(
        "form",
        {
          class: "add-task",
          onsubmit: (e) => {
            e.preventDefault();
            const text = (ui.drafts[phase.name] || "").trim();
            if (!text) return;
            edit({ action: "add", phase: phase.name, content: text }, () => (ui.drafts[phase.name] = ""));
          },
        },
        h("label", { class: "sr-only", for: `add-${p}` }, `New task in ${phase.name}`),
        input,
        h("button", { type: "submit", "data-key": key + ":submit" }, "Add"),
      );
    }

    function newPhaseForm() {
      const field = (name, label) => {
        const input = h("input", {
          type: "text",
          id: "new-phase-" + name,
          "data-key": "newphase:" + name,
          oninput: (e) => (ui.newPhase[name] = e.target.value),
        });
        input.value = ui.newPhase[name];
        return h("label", {}, label, " ", input);
      };
      return h(
        "form",
        {
          class: "new-phase",
          onsubmit: (e) => {
            e.preventDefault();
            edit({ action: "add", phase: ui.newPhase.name.trim(), content: ui.newPhase.task.trim() }, () => (ui.newPhase = { name: "", task: "" }));
          },
        },
        h("h2", { class: "small-title" }, "New phase"),
        field("name", "Phase"),
        field("task", "First task"),
        h("button", { type: "submit", "data-key": "newphase:submit" }, "Add phase"),
      );
    }

    function markdownEditor() {
      const stale = ui.md.version !== ui.plan.version;
      const area = h("textarea", {
        id: "md-text",
        rows: 18,
        spellcheck: "false",
        "data-key": "md:text",
        "aria-describedby": "md-hint",
        oninput: (e) => (ui.md.text = e.target.value),
      });
      area.value = ui.md.text;
      return h(
        "section",
        { class: "md-editor", "aria-labelledby": "md-title" },
        h("h2", { id: "md-title" }, "Edit the whole list as Markdown"),
        h("p", { id: "md-hint", class: "muted" }, "# Phase starts a phase; - [ ] pending, - [/] in progress, - [x] done, - [-] dropped; “  > ” lines are notes."),
        stale
          ? h(
              "p",
              { class: "warn" },
              `The plan changed since you opened the editor (you edit version ${ui.md.version}, it is now at ${ui.plan.version}); saving will be refused. `,
              h("button", { type: "button", class: "link", "data-key": "md:reload", onclick: openMarkdown }, "Load the newest text"),
            )
          : null,
        h("label", { class: "sr-only", for: "md-text" }, "The list as Markdown"),
        area,
        h(
          "div",
          { class: "row" },
          h(
            "button",
            {
              type: "button",
              "data-key": "md:save",
              onclick: async () => {
                if (ui.busy) return;
                ui.busy = true;
                const reply = await postEdit(sid, { action: "markdown", markdown: ui.md.text, expected_version: ui.md.version });
                ui.busy = false;
                if (reply.status === 200) {
                  ui.plan = reply.body.plan;
                  ui.md = null;
                  say(reply.body.changed ? `Saved as version ${ui.plan.version}.` : "Nothing to change.", "ok");
                } else {
                  say(reply.body.message || `The edit was refused (HTTP ${reply.status}).`);
                  // the text stays in the editor, which now says the plan moved on
                  if (reply.status === 409) ui.plan = await getJSON(`/api/sessions/${enc(sid)}`);
                }
                draw();
              },
            },
            "Save list",
          ),
          h("button", { type: "button", class: "link", "data-key": "md:cancel", onclick: () => { ui.md = null; draw(); } }, "Cancel"),
        ),
      );
    }

    async function openMarkdown() {
      try {
        const md = await getJSON(`/api/sessions/${enc(sid)}/markdown`);
        ui.md = { version: md.version, text: md.markdown };
        draw();
        const area = $("#md-text");
        if (area) area.focus();
      } catch (e) {
        say(e.message);
      }
    }

    function toolbar() {
      const liveBox = h("input", {
        type: "checkbox",
        id: "live-toggle",
        "data-key": "tool:live",
        onchange: (e) => {
          liveOn = e.target.checked;
          if (liveOn) live.open();
          else live.close();
        },
      });
      liveBox.checked = liveOn;
      const filter = h("input", {
        type: "search",
        id: "filter",
        placeholder: "Filter tasks",
        "data-key": "tool:filter",
        oninput: (e) => {
          ui.filter = e.target.value;
          drawSoon();
        },
      });
      filter.value = ui.filter;
      const hide = h("input", {
        type: "checkbox",
        id: "hide-closed",
        "data-key": "tool:hide",
        onchange: (e) => {
          ui.hideClosed = e.target.checked;
          draw();
        },
      });
      hide.checked = ui.hideClosed;
      return h(
        "div",
        { class: "toolbar" },
        h("label", {}, liveBox, " Live updates"),
        h("label", { class: "sr-only", for: "filter" }, "Filter tasks"),
        filter,
        h("label", {}, hide, " Hide finished"),
        writable() && !ui.md ? h("button", { type: "button", "data-key": "tool:md", onclick: openMarkdown }, "Edit as Markdown") : null,
        h("a", { href: `/s/${enc(sid)}/history`, class: "button-link" }, "History"),
      );
    }

    function draw() {
      const plan = ui.plan;
      if (!plan) return;
      keepFocus(() => {
        const total = plan.counts;
        const phases = plan.phases;
        const notice = plan.read_only
          ? h("p", { class: "notice" }, "This board is read-only.")
          : !token
            ? h("p", { class: "notice" }, "View only: open the address that phasetodo serve printed (it carries the token) to make changes.")
            : null;
        show(
          h(
            "div",
            { class: "plan-head" },
            h("h1", {}, sid),
            h(
              "p",
              { class: "meta" },
              (plan.agents || []).map((a) => h("span", { class: "chip" + (a === plan.owner ? " owner" : ""), title: a === plan.owner ? "owner" : "agent" }, a)),
              plan.agents && plan.agents.length ? " · " : null,
              h("span", { class: "version" }, `version ${plan.version}`),
              plan.time !== null ? [" · last change ", timeEl(plan.time), plan.kind ? ` (${KINDS[plan.kind] || plan.kind}${plan.agent ? " by " + plan.agent : ""})` : ""] : null,
            ),
            h(
              "div",
              { class: "overall" },
              bar(total, "Progress of the whole plan"),
              h("span", { class: "count" }, `${total.completed} of ${total.tasks} done · ${total.abandoned} dropped · ${total.open} open`),
            ),
          ),
          toolbar(),
          notice,
          ui.md ? markdownEditor() : null,
          phases.length > 3
            ? h(
                "nav",
                { class: "phase-index", "aria-label": "Phases" },
                phases.map((phase, p) => {
                  const c = counts(phase);
                  return h("a", { href: `#phase-${p}` }, phase.name, h("span", { class: "muted" }, ` ${c.completed + c.abandoned}/${c.tasks}`));
                }),
              )
            : null,
          phases.length ? h("div", { class: "phases" }, phases.map((phase, p) => phaseSection(phase, p))) : h("p", { class: "empty" }, "The list is empty."),
          writable() ? newPhaseForm() : null,
        );
      });
    }

    getJSON(`/api/sessions/${enc(sid)}`).then(
      (plan) => {
        if (!ui.plan || plan.version > ui.plan.version) ui.plan = plan;
        draw();
      },
      (e) => {
        show(h("h1", {}, sid), h("p", { class: "empty" }, e.message));
      },
    );
    live.open();

    return { phaseSection, ui };
  }

  function readOnlyRow(task) {
    return h(
      "li",
      { class: "task st-" + task.status, "data-status": task.status },
      statusBadge(task.status),
      h(
        "div",
        { class: "task-main" },
        h("span", { class: "content" }, task.content),
        teamFields(task),
        task.notes && task.notes.length ? h("ul", { class: "notes" }, task.notes.map((n) => h("li", {}, n))) : null,
      ),
    );
  }

  // -- history -------------------------------------------------------------------------------------

  function diffLines(diff) {
    const lines = [];
    for (const name of diff.phases_added) lines.push(["add", `+ phase “${name}”`]);
    for (const name of diff.phases_removed) lines.push(["del", `− phase “${name}”`]);
    for (const t of diff.added) lines.push(["add", `+ “${t.content}” (${t.phase}) ${STATUS[t.status] ? STATUS[t.status].label : t.status}`]);
    for (const t of diff.removed) lines.push(["del", `− “${t.content}” (${t.phase})`]);
    for (const c of diff.status_changed) {
      const from = STATUS[c.from] ? STATUS[c.from].label : c.from;
      const to = STATUS[c.to] ? STATUS[c.to].label : c.to;
      lines.push(["chg", `~ “${c.content}”: ${from} → ${to}`]);
    }
    for (const n of diff.notes_added) lines.push(["add", `+ note on “${n.content}”: ${n.text}`]);
    for (const n of diff.notes_removed) lines.push(["del", `− note on “${n.content}”: ${n.text}`]);
    return lines;
  }

  function historyPage(sid) {
    title("History of " + sid);
    crumbs({ text: "Sessions", href: "/" }, { text: sid, href: "/s/" + enc(sid) }, { text: "History" });
    let events = [];
    const list = h("ol", { class: "events", reversed: true });
    const head = h("p", { class: "sub" });
    function item(ev) {
      const who = ev.agent ? `by ${ev.agent}` : ev.source ? `from ${ev.source}` : "";
      const lines = diffLines(ev.diff);
      return h(
        "li",
        { class: "event kind-" + ev.kind, "data-version": ev.version },
        h(
          "div",
          { class: "ev-head" },
          h("span", { class: "ver" }, "v" + ev.version),
          h("span", { class: "kind" }, KINDS[ev.kind] || ev.kind),
          who ? h("span", { class: "who" }, who) : null,
          timeEl(ev.time),
          h("span", { class: "muted" }, `${plural(ev.tasks, "task")}, ${ev.open} open`),
          h("a", { href: `/s/${enc(sid)}/v/${ev.version}` }, `Plan at v${ev.version}`),
        ),
        lines.length
          ? h("ul", { class: "diff" }, lines.map(([cls, text]) => h("li", { class: cls }, text)))
          : h("p", { class: "muted diff-none" }, "No change to the list."),
      );
    }
    const FIRST = 200; // the newest events shown at first; the rest on request
    let omitted = 0;
    let loading = Promise.resolve();
    const last = () => (events.length ? events[events.length - 1].version : 0);
    function draw() {
      const older = omitted
        ? h("button", { type: "button", class: "link", onclick: () => load(true) }, `Show the ${plural(omitted, "older event")}`)
        : null;
      head.replaceChildren(`${plural(events.length + omitted, "event")}, newest first. `, older || "");
      list.replaceChildren(...events.slice().reverse().map(item));
    }
    // Loads run one after another: the first takes the newest events, later ones
    // what is new since, ``all`` everything.
    function load(all) {
      const run = async () => {
        const query = all ? "" : events.length ? `since=${last()}` : `limit=${FIRST}`;
        const data = await getJSON(`/api/sessions/${enc(sid)}/events?${query}`);
        if (all || !events.length) {
          events = data.events;
          omitted = data.omitted;
        } else events = events.concat(data.events.filter((e) => e.version > last()));
        draw();
      };
      loading = loading.then(run, run).catch((e) => say(e.message));
      return loading;
    }
    show(h("h1", {}, "History of ", h("span", {}, sid)), head, list);
    load(false);
    feed(`/api/sessions/${enc(sid)}/stream`, "plan", (plan) => {
      if (plan.version > last()) load(false);
    }).open();
  }

  // -- one version -----------------------------------------------------------------------------------

  async function versionPage(sid, version) {
    title(`${sid} at v${version}`);
    crumbs({ text: "Sessions", href: "/" }, { text: sid, href: "/s/" + enc(sid) }, { text: "History", href: `/s/${enc(sid)}/history` }, { text: "v" + version });
    let data;
    try {
      data = await getJSON(`/api/sessions/${enc(sid)}/versions/${version}`);
    } catch (e) {
      show(h("h1", {}, sid), h("p", { class: "empty" }, e.message));
      return;
    }
    setLive("snapshot", "paused");
    const canRestore = !data.read_only && token && data.version < data.latest;
    const restore = async () => {
      const reply = await postEdit(sid, { action: "restore", version: data.version, expected_version: data.latest });
      if (reply.status === 200) location.href = "/s/" + enc(sid);
      else say(reply.body.message || `The edit was refused (HTTP ${reply.status}).`);
    };
    const c = data.counts;
    show(
      h(
        "div",
        { class: "plan-head" },
        h("h1", {}, sid, h("span", { class: "muted" }, ` at version ${data.version}`)),
        h("p", { class: "meta" }, `Version ${data.version} of ${data.latest} · `, timeEl(data.time), ` · ${KINDS[data.kind] || data.kind}${data.agent ? " by " + data.agent : ""}`),
        h("div", { class: "overall" }, bar(c, "Progress at this version"), h("span", { class: "count" }, `${c.completed} of ${c.tasks} done · ${c.open} open`)),
      ),
      h(
        "div",
        { class: "toolbar" },
        canRestore ? h("button", { type: "button", onclick: restore }, `Restore this version (undo to v${data.version})`) : null,
        h("a", { class: "button-link", href: "/s/" + enc(sid) }, "Back to the live plan"),
      ),
      h(
        "div",
        { class: "phases" },
        data.phases.map((phase, p) => {
          const pc = counts(phase);
          return h(
            "section",
            { class: "phase", "aria-labelledby": `phase-${p}` },
            h("div", { class: "phase-head" }, h("h2", { id: `phase-${p}` }, phase.name), h("span", { class: "phase-count" }, `${pc.completed + pc.abandoned} / ${pc.tasks}`), bar(pc, `Progress of ${phase.name}`)),
            h("ol", { class: "tasks" }, (phase.tasks || []).map(readOnlyRow)),
          );
        }),
      ),
    );
  }

  // -- route -----------------------------------------------------------------------------------------

  const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) sessionsPage();
  else if (parts[0] === "s" && parts.length === 2) planPage(parts[1]);
  else if (parts[0] === "s" && parts.length === 3 && parts[2] === "history") historyPage(parts[1]);
  else if (parts[0] === "s" && parts.length === 4 && parts[2] === "v") versionPage(parts[1], Number(parts[3]));
  else show(h("h1", {}, "Not found"), h("p", {}, h("a", { href: "/" }, "All sessions")));
})();
