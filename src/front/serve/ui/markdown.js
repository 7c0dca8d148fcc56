// A small Markdown renderer for the inspector: fenced code, headings,
// lists, quotes, paragraphs, and inline code, bold, italics and links.
// It builds DOM nodes with textContent only, never innerHTML, so whatever a
// model or a tool wrote is shown as text and can never become markup.
"use strict";
(function () {
  function el(tag, cls) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    return e;
  }

  // Only web links: a javascript: or data: URL in a message stays text.
  function safeHref(url) {
    try {
      const u = new URL(url, window.location.href);
      return u.protocol === "http:" || u.protocol === "https:" ? u.href : null;
    } catch (_) {
      return null;
    }
  }

  // Underscores mark emphasis only at word edges, so snake_case and
  // __dunder__ names inside words stay as written.
  const INLINE = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([^*]+)\*\*|(?<!\S)__([^_\s][^_]*)__(?!\w)|\*([^*\s][^*]*)\*|(?<!\S)_([^_\s][^_]*)_(?!\w)|\[([^\]]+)\]\(([^)\s]+)\)/g;

  function inline(parent, text) {
    // Its own regex each call: the nested calls for bold, italics and link
    // text must not move this loop's lastIndex.
    const re = new RegExp(INLINE.source, "g");
    let last = 0;
    for (let m; (m = re.exec(text));) {
      if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
      last = re.lastIndex;
      if (m[2] !== undefined) {
        const c = el("code");
        c.textContent = m[2].replace(/^ (.*) $/, "$1");
        parent.appendChild(c);
      } else if (m[3] !== undefined || m[4] !== undefined) {
        const b = el("strong");
        inline(b, m[3] ?? m[4]);
        parent.appendChild(b);
      } else if (m[5] !== undefined || m[6] !== undefined) {
        const i = el("em");
        inline(i, m[5] ?? m[6]);
        parent.appendChild(i);
      } else {
        const href = safeHref(m[8]);
        if (!href) {
          parent.appendChild(document.createTextNode(m[0]));
          continue;
        }
        const a = el("a");
        a.href = href;
        a.rel = "noopener noreferrer";
        a.target = "_blank";
        inline(a, m[7]);
        parent.appendChild(a);
      }
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  }

  function render(text) {
    const out = document.createDocumentFragment();
    const lines = String(text ?? "").replace(/\r\n?/g, "\n").split("\n");
    let para = [];
    let list = null;
    const flush = () => {
      if (para.length) {
        const p = el("p");
        inline(p, para.join("\n"));
        out.appendChild(p);
        para = [];
      }
    };
    const endList = () => { list = null; };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const fence = line.match(/^\s*(```+|~~~+)\s*([\w+-]*)/);
      if (fence) {
        flush(); endList();
        const body = [];
        for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
        const pre = el("pre");
        const code = el("code");
        if (fence[2]) code.dataset.lang = fence[2];
        code.textContent = body.join("\n");
        if (fence[2] === "diff") colorDiff(code, body);
        pre.appendChild(code);
        out.appendChild(pre);
        continue;
      }
      const h = line.match(/^(#{1,6})\s+(.*)$/);
      if (h) {
        flush(); endList();
        const e = el("h" + Math.min(6, h[1].length + 2));
        inline(e, h[2]);
        out.appendChild(e);
        continue;
      }
      const li = line.match(/^\s*([-*+]|\d+[.)])\s+(.*)$/);
      if (li) {
        flush();
        const ordered = /\d/.test(li[1]);
        if (!list || list.ordered !== ordered) {
          list = { node: el(ordered ? "ol" : "ul"), ordered };
          out.appendChild(list.node);
        }
        const item = el("li");
        inline(item, li[2]);
        list.node.appendChild(item);
        continue;
      }
      const q = line.match(/^>\s?(.*)$/);
      if (q) {
        flush(); endList();
        const b = el("blockquote");
        inline(b, q[1]);
        out.appendChild(b);
        continue;
      }
      if (!line.trim()) { flush(); endList(); continue; }
      endList();
      para.push(line);
    }
    flush();
    return out;
  }

  // A unified diff, one span a line, coloured by its first character.
  function colorDiff(code, lines) {
    code.textContent = "";
    for (const line of lines) {
      const s = el("span", diffClass(line));
      s.textContent = line + "\n";
      code.appendChild(s);
    }
  }
  function diffClass(line) {
    if (line.startsWith("+++") || line.startsWith("---")) return "diff-file";
    if (line.startsWith("@@")) return "diff-hunk";
    if (line.startsWith("+")) return "diff-add";
    if (line.startsWith("-")) return "diff-del";
    return "diff-ctx";
  }
  // Whether a tool's output holds a unified diff (an edit's result does).
  function looksLikeDiff(text) {
    return /^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/m.test(text) && /^[+-]/m.test(text);
  }

  window.SeppMarkdown = { render, colorDiff, looksLikeDiff };
})();
