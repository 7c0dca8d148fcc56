// The inspector of `sepp serve` (docs/serve.md "The inspector"): the
// server's sessions, each one's universal events live over SSE, drawn as a
// conversation (Markdown messages, tool calls with their output and diffs,
// permission requests with buttons that answer them) or as the raw event
// list, with the tree of sub-agents and filters. Everything goes through the
// server's own session API with the bearer token.
//
// The token arrives once in the URL fragment (/ui/#token=…), which browsers
// never send to a server; it is moved into sessionStorage (this tab only,
// gone when the tab closes) and the fragment is removed from the address
// bar and the history at once.
"use strict";
(function () {
  const TOKEN_KEY = "sepp.serve.token";
  const $ = (sel) => document.querySelector(sel);
  const md = window.SeppMarkdown;

  function takeToken() {
    const m = window.location.hash.match(/(?:^#|&)token=([^&]*)/);
    if (m) {
      sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
      history.replaceState(null, "", window.location.pathname + window.location.search);
    }
    return sessionStorage.getItem(TOKEN_KEY) || "";
  }
  let token = takeToken();

  function headers(json) {
    const h = {};
    if (token) h.Authorization = "Bearer " + token;
    if (json) h["Content-Type"] = "application/json";
    return h;
  }

  class ApiError extends Error {
    constructor(status, problem) {
      super(problem && problem.detail ? problem.detail : "HTTP " + status);
      this.status = status;
    }
  }

  async function api(method, path, body) {
    const used = token;
    const r = await fetch(path, {
      method, headers: headers(body !== undefined), cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (r.status === 401 && used === token) needToken();  // not for a token since replaced
    if (!r.ok) throw new ApiError(r.status, await r.json().catch(() => null));
    return r.status === 204 ? null : r.json();
  }

  function setStatus(text, cls) {
    const s = $("#status");
    s.textContent = text;
    s.className = "status " + (cls || "");
  }

  function needToken() {
    $("#app").hidden = true;
    $("#login").hidden = false;
    setStatus("needs the token", "bad");
    stopSessionPolling();
  }

  // ---- sessions -------------------------------------------------------

  let pollTimer = null;
  let current = null;  // the session shown: SessionView

  async function refreshSessions() {
    let list;
    try {
      list = await api("GET", "/v1/sessions");
    } catch (e) {
      if (e.status !== 401) setStatus("server unreachable: " + e.message, "bad");
      return;
    }
    $("#login").hidden = true;
    $("#app").hidden = false;
    if (!current) setStatus("connected", "ok");
    const ul = $("#session-list");
    ul.textContent = "";
    for (const s of list.sessions) {
      const li = document.createElement("li");
      li.dataset.session = s.sessionId;
      if (current && current.id === s.sessionId) li.classList.add("selected");
      if (s.ended) li.classList.add("ended");
      const name = document.createElement("span");
      name.className = "name";
      name.textContent = s.title ? s.title + " (" + s.sessionId + ")" : s.sessionId;
      const meta = document.createElement("span");
      meta.className = "meta";
      meta.textContent = (s.ended ? "ended · " : "") + s.eventCount + " events" + (s.model ? " · " + s.model : "");
      li.append(name, meta);
      li.addEventListener("click", () => select(s.sessionId));
      ul.appendChild(li);
    }
  }

  function startSessionPolling() {
    stopSessionPolling();
    refreshSessions();
    pollTimer = setInterval(refreshSessions, 2000);
  }
  function stopSessionPolling() {
    if (pollTimer) clearInterval(pollTimer);
    pollTimer = null;
  }

  function select(id) {
    if (current) current.close();
    current = new SessionView(id);
    for (const li of document.querySelectorAll("#session-list li"))
      li.classList.toggle("selected", li.dataset.session === id);
    $("#empty").hidden = true;
    $("#send").hidden = false;
    current.open();
  }

  // ---- one session's events ------------------------------------------

  // Which filter box an event type belongs to.
  function kindOf(type, item) {
    if (type.startsWith("sepp.")) return "sepp";
    if (type.startsWith("permission.") || type.startsWith("question.")) return "permission";
    if (type === "error") return "message";
    if (type.startsWith("item.")) return item && item.kind && item.kind.startsWith("tool") ? "tool" : "message";
    return "lifecycle";
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function pretty(v) {
    if (typeof v === "string") {
      try { return JSON.stringify(JSON.parse(v), null, 2); } catch (_) { return v; }
    }
    return JSON.stringify(v, null, 2);
  }

  function outputText(v) {
    if (v === undefined || v === null) return "";
    return typeof v === "string" ? v : JSON.stringify(v, null, 2);
  }

  class SessionView {
    constructor(id) {
      this.id = id;
      this.sequence = 0;       // the last event seen: the offset to resume from
      this.items = new Map();  // item_id -> {card, kind, role, text, body, result}
      this.agents = new Map(); // child_session_id -> {parentCall, parentAgent, node}
      this.permissions = new Map();
      this.questions = new Map();
      this.abort = new AbortController();
      this.ended = false;
      this.pending = new Set();  // message items whose Markdown is to be redrawn
      $("#conversation").textContent = "";
      $("#events tbody").textContent = "";
      this.buildTree();
    }

    close() { this.abort.abort(); }

    async open() {
      // Reads the SSE stream with fetch, since EventSource cannot send the
      // Authorization header; on a dropped connection it resumes after the
      // last sequence it drew, so no event is lost or drawn twice.
      while (!this.abort.signal.aborted && !this.ended) {
        try {
          setStatus("live: " + this.id, "ok");
          await this.read();
          if (!this.ended) await new Promise((r) => setTimeout(r, 500));
        } catch (e) {
          if (this.abort.signal.aborted) return;
          if (e.status === 401) return needToken();
          if (e.status === 404) return setStatus("no session " + this.id, "bad");
          setStatus("reconnecting: " + e.message, "warn");
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
      if (this.ended && current === this) setStatus("ended: " + this.id, "");
    }

    async read() {
      const url = "/v1/sessions/" + encodeURIComponent(this.id) + "/events/sse?offset=" + this.sequence;
      const r = await fetch(url, { headers: headers(false), signal: this.abort.signal, cache: "no-store" });
      if (!r.ok) throw new ApiError(r.status, await r.json().catch(() => null));
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += value.replace(/\r\n?/g, "\n");
        let cut;
        while ((cut = buf.indexOf("\n\n")) >= 0) {
          const frame = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const data = frame.split("\n").filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(l[5] === " " ? 6 : 5)).join("\n");
          if (data) this.onEvent(JSON.parse(data));
        }
      }
    }

    onEvent(e) {
      if (e.sequence <= this.sequence) return;  // already drawn
      this.sequence = e.sequence;
      const agent = e.child_session_id || "";
      if (agent && !this.agents.has(agent)) this.addAgent(agent, e.parent_call_id || "");
      this.addRow(e, agent);
      const d = e.data || {};
      switch (e.type) {
        case "item.started": this.itemStarted(d.item, agent, e); break;
        case "item.delta": this.itemDelta(d.item_id, d.delta); break;
        case "item.completed": this.itemCompleted(d.item, agent, e); break;
        case "permission.requested": this.permissionRequested(d, agent, e); break;
        case "permission.resolved": this.permissionResolved(d); break;
        case "question.requested": this.questionRequested(d, agent); break;
        case "question.resolved": this.questionResolved(d); break;
        case "error": {
          const c = this.card("message", agent, "error");
          c.append(el("div", "label", "error" + (d.code ? " · " + d.code : "")), el("div", "text", d.message || ""));
          break;
        }
        case "session.ended":
          if (!agent) this.ended = true;
          this.lifecycle(e, agent, "session ended: " + (d.reason || "") + (d.message ? " — " + d.message : ""));
          break;
        case "session.started":
          this.lifecycle(e, agent, "session started" + (d.metadata && d.metadata.model ? " · " + d.metadata.model : ""));
          break;
        case "turn.started":
        case "turn.ended":
          this.lifecycle(e, agent, e.type.replace(".", " ") + " " + (d.turn_id || ""));
          break;
        default:
          if (e.type.startsWith("sepp.")) this.lifecycle(e, agent, e.type, "sepp");
      }
    }

    // A card in the conversation, filed under its kind and agent.
    card(kind, agent, cls) {
      const c = el("div", "card " + kind + (cls ? " " + cls : ""));
      c.dataset.kind = kind;
      c.dataset.agent = agent;
      if (agent) c.append(el("div", "agent-tag", "sub-agent " + this.agentLabel(agent)));
      $("#conversation").appendChild(c);
      applyFilter(c);
      scrollToEnd();
      return c;
    }

    lifecycle(e, agent, text, kind = "lifecycle") {
      const c = this.card(kind, agent, "line");
      c.append(el("span", "text", text), el("time", "", e.time ? e.time.slice(11, 19) : ""));
    }

    itemStarted(item, agent) {
      if (!item || this.items.has(item.item_id)) return;
      if (item.kind === "tool_result") {
        // Shown inside its call's card.
        const call = this.items.get(item.parent_id);
        const box = el("div", "result running");
        box.dataset.item = item.item_id;
        const pre = el("pre", "output");
        box.append(el("div", "label", "output"), pre);
        (call ? call.card : this.card("tool", agent)).appendChild(box);
        this.items.set(item.item_id, { card: box, kind: "tool_result", text: "", body: pre });
        return;
      }
      if (item.kind === "tool_call") {
        const part = (item.content || []).find((p) => p.type === "tool_call") || {};
        const c = this.card("tool", agent, "call");
        c.dataset.item = item.item_id;
        const head = el("div", "label");
        head.append(el("span", "tool-name", part.name || "tool"), el("span", "summary", item.summary || ""));
        const args = el("details", "args");
        args.append(el("summary", "", "arguments"), el("pre", "", pretty(part.arguments ?? "")));
        c.append(head, args);
        this.items.set(item.item_id, { card: c, kind: "tool_call" });
        return;
      }
      const reasoning = /(^|\/)reasoning-/.test(item.item_id);
      const c = this.card("message", agent, (item.role || "assistant") + (reasoning ? " thinking" : ""));
      c.dataset.item = item.item_id;
      const body = el("div", "text");
      c.append(el("div", "label", reasoning ? "thinking" : item.role || "assistant"), body);
      this.items.set(item.item_id, { card: c, kind: "message", text: "", body });
      if (item.content && item.content.length) this.fillMessage(this.items.get(item.item_id), item);
    }

    itemDelta(id, delta) {
      const it = this.items.get(id);
      if (!it || typeof delta !== "string") return;
      it.text += delta;
      if (it.kind === "tool_result") {
        it.body.textContent = it.text;
      } else {
        // Markdown is redrawn once a frame however fast the deltas come.
        this.pending.add(it);
        if (this.pending.size === 1) requestAnimationFrame(() => {
          for (const p of this.pending) { p.body.textContent = ""; p.body.appendChild(md.render(p.text)); }
          this.pending.clear();
        });
      }
      applyFilter(it.card.closest(".card") || it.card);
      scrollToEnd();
    }

    itemCompleted(item, agent, e) {
      if (!item) return;
      if (!this.items.has(item.item_id)) this.itemStarted(item, agent, e);
      const it = this.items.get(item.item_id);
      it.card.classList.toggle("failed", item.status === "failed");
      if (it.kind === "tool_result") {
        it.card.classList.remove("running");
        const part = (item.content || []).find((p) => p.type === "tool_result");
        const text = part ? outputText(part.output) : it.text;
        if (md.looksLikeDiff(text)) {
          it.body.classList.add("diff");
          md.colorDiff(it.body, text.split("\n"));
        } else {
          it.body.textContent = text;
        }
        const meta = item.metadata || {};
        if (meta.denied) it.card.append(el("div", "badge denied", "denied by the sandbox"));
        if (meta.truncated) it.card.append(el("div", "badge", "output truncated"));
        if (item.status === "failed") it.card.append(el("div", "badge failed", "failed"));
      } else if (it.kind === "message") {
        this.pending.delete(it);
        this.fillMessage(it, item);
        if (item.status === "failed")
          it.card.append(el("div", "badge failed", "failed" + (item.error ? ": " + outputText(item.error) : "")));
      }
      applyFilter(it.card.closest(".card") || it.card);
    }

    // A completed message: its text as Markdown, its thinking folded. Its
    // tool calls are drawn as their own cards when they start.
    fillMessage(it, item) {
      const text = [], thinking = [];
      for (const p of item.content || []) {
        if (p.type === "text") text.push(p.text);
        if (p.type === "reasoning") thinking.push(p.text);
      }
      if (!text.length && !thinking.length) {
        if (it.text) { it.body.textContent = ""; it.body.appendChild(md.render(it.text)); }
        else if (item.status !== "failed" && (item.content || []).some((p) => p.type === "tool_call")) it.card.hidden = true;
        return;
      }
      it.body.textContent = "";
      if (thinking.length && !it.card.classList.contains("thinking")) {
        const d = el("details", "thinking");
        d.append(el("summary", "", "thinking"), el("div", "", thinking.join("\n")));
        it.body.appendChild(d);
      }
      const all = text.length ? text.join("\n\n") : thinking.join("\n");
      it.body.appendChild(md.render(all));
      it.text = all;
    }

    permissionRequested(d, agent) {
      const c = this.card("permission", agent, "pending");
      c.dataset.permission = d.permission_id;
      const meta = d.metadata || {};
      c.append(el("div", "label", "permission · " + (d.action || "tool")));
      const why = meta.justification || meta.reason || meta.message || meta.summary;
      if (why) c.append(el("div", "text", why));
      const details = el("details", "args");
      details.append(el("summary", "", "request"), el("pre", "", pretty(meta)));
      c.append(details);
      const buttons = el("div", "buttons");
      for (const [reply, label] of [["once", "allow once"], ["always", "allow for the session"], ["reject", "reject"]]) {
        const b = el("button", reply === "reject" ? "reject" : "allow", label);
        b.type = "button";
        b.dataset.reply = reply;
        b.addEventListener("click", () => this.reply(d.permission_id, reply, c));
        buttons.appendChild(b);
      }
      c.append(buttons);
      this.permissions.set(d.permission_id, c);
    }

    async reply(pid, reply, card) {
      for (const b of card.querySelectorAll("button")) b.disabled = true;
      try {
        await api("POST", "/v1/sessions/" + encodeURIComponent(this.id) + "/permissions/" +
                  encodeURIComponent(pid) + "/reply", { reply });
      } catch (e) {
        for (const b of card.querySelectorAll("button")) b.disabled = false;
        card.append(el("div", "badge failed", "the reply failed: " + e.message));
      }
    }

    permissionResolved(d) {
      const c = this.permissions.get(d.permission_id);
      if (!c) return;
      c.classList.remove("pending");
      c.classList.add("resolved", d.status === "reject" ? "rejected" : "accepted");
      const buttons = c.querySelector(".buttons");
      if (buttons) buttons.remove();
      const by = d.metadata && d.metadata.source ? " (" + d.metadata.source + ")" : "";
      c.append(el("div", "badge", "answered: " + d.status + by));
    }

    // A question to the user (the model's question tool, an MCP server's
    // elicitation) as a small form: one input per field, by its kind.
    questionRequested(d, agent) {
      const c = this.card("permission", agent, "pending");
      c.classList.add("question");
      c.dataset.question = d.question_id;
      c.append(el("div", "label", "question" + (d.source && d.source.startsWith("mcp:") ? " · MCP " + d.source.slice(4) : "")));
      c.append(el("div", "text", d.prompt || ""));
      const form = el("form", "question-form");
      const inputs = [];
      (d.fields || []).forEach((f, i) => {
        const box = el("fieldset", "field");
        box.dataset.field = f.name;
        const title = f.title || f.name;
        box.append(el("legend", "", title + (f.description && f.description !== title && f.description !== d.prompt ? ": " + f.description : "")));
        const name = "q-" + d.question_id + "-" + i;
        const read = [];
        if (f.kind === "choice") {
          for (const o of f.options || []) {
            const label = el("label", "option");
            const input = document.createElement("input");
            input.type = f.multiple ? "checkbox" : "radio";
            input.name = name;
            input.value = o.label;
            if (f.default === o.label || (Array.isArray(f.default) && f.default.includes(o.label))) input.checked = true;
            label.append(input, document.createTextNode(" " + o.label + (o.description ? " — " + o.description : "")));
            box.append(label);
          }
          let other = null;
          if (f.allow_other) {
            other = document.createElement("input");
            other.type = "text";
            other.className = "other";
            other.placeholder = "or your own answer";
            box.append(other);
          }
          read.push(() => {
            const picked = [...box.querySelectorAll("input[name='" + name + "']:checked")].map((x) => x.value);
            if (other && other.value) picked.push(other.value);
            if (f.multiple) return picked.length ? picked : undefined;
            return picked.length ? picked[picked.length - 1] : undefined;
          });
        } else if (f.kind === "boolean") {
          const input = document.createElement("input");
          input.type = "checkbox";
          input.checked = f.default === true;
          const label = el("label", "option");
          label.append(input, document.createTextNode(" yes"));
          box.append(label);
          read.push(() => input.checked);
        } else {
          const input = document.createElement("input");
          input.type = f.kind === "text" ? "text" : "number";
          if (f.kind === "integer") input.step = "1";
          if (f.default !== undefined) input.placeholder = String(f.default);
          box.append(input);
          read.push(() => {
            if (input.value === "") return undefined;  // the default
            return f.kind === "text" ? input.value : Number(input.value);
          });
        }
        inputs.push([f.name, read[0]]);
        form.append(box);
      });
      const buttons = el("div", "buttons");
      const answer = el("button", "allow", "answer");
      answer.type = "submit";
      answer.dataset.answer = "reply";
      const decline = el("button", "reject", "decline");
      decline.type = "button";
      decline.dataset.answer = "reject";
      buttons.append(answer, decline);
      form.append(buttons);
      form.addEventListener("submit", (ev) => {
        ev.preventDefault();
        const values = {};
        for (const [n, read] of inputs) {
          const v = read();
          if (v !== undefined) values[n] = v;
        }
        this.answerQuestion(d.question_id, "reply", { values }, c);
      });
      decline.addEventListener("click", () => this.answerQuestion(d.question_id, "reject", undefined, c));
      c.append(form);
      this.questions.set(d.question_id, c);
    }

    async answerQuestion(qid, how, body, card) {
      for (const b of card.querySelectorAll("button")) b.disabled = true;
      const old = card.querySelector(".badge.failed");
      if (old) old.remove();
      try {
        await api("POST", "/v1/sessions/" + encodeURIComponent(this.id) + "/questions/" +
                  encodeURIComponent(qid) + "/" + how, body);
      } catch (e) {
        for (const b of card.querySelectorAll("button")) b.disabled = false;
        card.append(el("div", "badge failed", "the answer was not taken: " + e.message));
      }
    }

    questionResolved(d) {
      const c = this.questions.get(d.question_id);
      if (!c) return;
      c.classList.remove("pending");
      c.classList.add("resolved", d.status === "answered" ? "accepted" : "rejected");
      const form = c.querySelector(".question-form");
      if (form) form.remove();
      const meta = d.metadata || {};
      const shown = d.status === "answered" ? "answered: " + JSON.stringify(d.values || {}) : (meta.status || "declined") + (meta.source ? " (" + meta.source + ")" : "");
      c.append(el("div", "badge", shown));
    }

    // The raw event list.
    addRow(e, agent) {
      const tr = document.createElement("tr");
      const item = e.data && e.data.item;
      tr.dataset.kind = kindOf(e.type, item);
      tr.dataset.agent = agent;
      const data = el("td", "data");
      const d = el("details");
      const json = JSON.stringify(e.data);
      d.append(el("summary", "", json.length > 160 ? json.slice(0, 160) + "…" : json), el("pre", "", JSON.stringify(e, null, 2)));
      data.appendChild(d);
      tr.append(el("td", "seq", String(e.sequence)), el("td", "", e.time ? e.time.slice(11, 23) : ""),
                el("td", "type", e.type), el("td", "", agent ? this.agentLabel(agent) : "main"), data);
      $("#events tbody").appendChild(tr);
      applyFilter(tr);
    }

    // ---- the tree of agents: the session's own, and its sub-agents under
    // the tool call of the agent that started them.
    buildTree() {
      const ul = $("#tree");
      ul.textContent = "";
      this.root = this.treeNode("", this.id, ul);
      selectAgent(null);
    }

    treeNode(agent, label, parentUl) {
      const li = el("li");
      const b = el("button", "node", label);
      b.type = "button";
      b.dataset.agent = agent;
      b.addEventListener("click", () => selectAgent(agent === "" ? null : agent));
      const sub = el("ul");
      li.append(b, sub);
      parentUl.appendChild(li);
      return sub;
    }

    addAgent(agent, parentCall) {
      // The call that started it belongs to the main agent (its id as is) or
      // to another sub-agent (prefixed "<child>/").
      let parentAgent = "";
      for (const [id] of this.agents) if (this.items.has(id + "/" + parentCall)) parentAgent = id;
      const call = this.items.get(parentAgent ? parentAgent + "/" + parentCall : parentCall);
      const summary = call && call.card.querySelector(".summary");
      const info = { parentCall, parentAgent, label: (summary && summary.textContent) || agent.slice(0, 8) };
      this.agents.set(agent, info);
      const under = parentAgent ? this.agents.get(parentAgent).node : this.root;
      info.node = this.treeNode(agent, info.label, under);
    }

    agentLabel(agent) {
      const a = this.agents.get(agent);
      return a ? a.label : agent;
    }
  }

  // ---- filters --------------------------------------------------------

  const filter = { text: "", kinds: new Set(), agent: null };
  function readFilter() {
    filter.text = $("#filter-text").value.trim().toLowerCase();
    filter.kinds = new Set([...document.querySelectorAll(".filters input[data-kind]")]
      .filter((c) => c.checked).map((c) => c.dataset.kind));
  }
  function applyFilter(node) {
    let show = filter.kinds.has(node.dataset.kind);
    if (show && filter.agent !== null) show = node.dataset.agent === filter.agent;
    if (show && filter.text) show = node.textContent.toLowerCase().includes(filter.text);
    node.classList.toggle("filtered", !show);
  }
  function applyAll() {
    readFilter();
    for (const n of document.querySelectorAll("#conversation > .card, #events tbody tr")) applyFilter(n);
  }
  function selectAgent(agent) {
    filter.agent = agent;
    for (const b of document.querySelectorAll("#tree .node"))
      b.classList.toggle("selected", (b.dataset.agent || null) === agent);
    applyAll();
  }

  let stick = true;  // follow the end while the user has not scrolled up
  function scrollToEnd() {
    if (!stick) return;
    const c = $("#conversation");
    c.scrollTop = c.scrollHeight;
  }

  // ---- wiring ---------------------------------------------------------

  function showTab(events) {
    $("#conversation").hidden = events;
    $("#events").hidden = !events;
    $("#tab-events").classList.toggle("active", events);
    $("#tab-conversation").classList.toggle("active", !events);
  }

  document.addEventListener("DOMContentLoaded", () => {
    readFilter();
    $("#filter-text").addEventListener("input", applyAll);
    for (const c of document.querySelectorAll(".filters input[data-kind]")) c.addEventListener("change", applyAll);
    $("#tab-conversation").addEventListener("click", () => showTab(false));
    $("#tab-events").addEventListener("click", () => showTab(true));
    $("#conversation").addEventListener("scroll", (ev) => {
      const c = ev.target;
      stick = c.scrollTop + c.clientHeight >= c.scrollHeight - 40;
    });
    $("#login").addEventListener("submit", (ev) => {
      ev.preventDefault();
      token = $("#token").value.trim();
      $("#token").value = "";
      sessionStorage.setItem(TOKEN_KEY, token);
      setStatus("checking the token…", "");
      startSessionPolling();
    });
    $("#forget").addEventListener("click", () => {
      sessionStorage.removeItem(TOKEN_KEY);
      token = "";
      if (current) current.close();
      current = null;
      needToken();
    });
    $("#create").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const id = $("#new-id").value.trim();
      try {
        await api("POST", "/v1/sessions/" + encodeURIComponent(id), { agent: "sepp" });
        $("#new-id").value = "";
        await refreshSessions();
        select(id);
      } catch (e) {
        setStatus("could not create " + id + ": " + e.message, "bad");
      }
    });
    const send = async () => {
      const text = $("#message").value;
      if (!current || !text.trim()) return;
      try {
        await api("POST", "/v1/sessions/" + encodeURIComponent(current.id) + "/messages", { message: text });
        $("#message").value = "";
      } catch (e) {
        setStatus("not sent: " + e.message, "bad");
      }
    };
    $("#send").addEventListener("submit", (ev) => { ev.preventDefault(); send(); });
    $("#message").addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); send(); }
    });
    const wanted = new URLSearchParams(window.location.search).get("session");
    startSessionPolling();
    if (wanted) select(wanted);
  });
})();
