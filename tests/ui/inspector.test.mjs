// The inspector of `sepp serve` in headless Chromium (Debian's chromium,
// driven by puppeteer-core from tests/ui/node): the page loads with the
// token from the URL fragment and keeps it out of the address bar, a prompt
// sent through the API appears live as Markdown, a permission request is
// answered from the page and the agent goes on, a question is answered in
// its form, hostile Markdown stays
// text, an edit's diff is coloured, a sub-agent appears in the tree and can
// be shown alone, the filter works, and the page needs nothing the CSP
// forbids. A screenshot is kept in
// the build folder ($SEPP_UI_ARTIFACTS/inspector.png).
//
// Run by ctest as:
//   SEPP_BIN=... FAKE_PROVIDER_BIN=... SEPP_UI_ARTIFACTS=... node --test inspector.test.mjs
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const puppeteer = (await import(pathToFileURL(path.join(here, "node/node_modules/puppeteer-core/lib/esm/puppeteer/puppeteer-core.js")).href)).default;
const { SEPP_BIN, FAKE_PROVIDER_BIN } = process.env;
if (!SEPP_BIN || !FAKE_PROVIDER_BIN) throw new Error("set SEPP_BIN and FAKE_PROVIDER_BIN (ctest does)");
const artifacts = process.env.SEPP_UI_ARTIFACTS || path.join(here, "artifacts");
const chromium = process.env.SEPP_CHROMIUM || "/usr/bin/chromium";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sepp-ui-"));
const home = path.join(work, "home");
const cwd = path.join(work, "project");
const outside = path.join(work, "outside");
for (const d of [home, cwd, outside]) fs.mkdirSync(d, { recursive: true });

const children = [];
let browser;
after(async () => {
  if (browser) await browser.close();
  for (const c of children) c.kill("SIGTERM");
  fs.rmSync(work, { recursive: true, force: true });
});

// Runs a child and resolves with it and the stdout lines that match[] asked for.
async function startChild(bin, args, env, want) {
  const proc = spawn(bin, args, { cwd, env, stdio: ["ignore", "pipe", "inherit"] });
  children.push(proc);
  const found = {};
  for await (const line of readline.createInterface({ input: proc.stdout })) {
    for (const [key, re] of Object.entries(want)) {
      const m = line.match(re);
      if (m) found[key] = m[1];
    }
    if (Object.keys(want).every((k) => found[k])) break;
  }
  return { proc, ...found };
}

const fake = await startChild(FAKE_PROVIDER_BIN, ["--port", "0"], process.env, { url: /^listening on (\S+)/ });
async function script(responses) {
  const r = await fetch(`${fake.url}/__script`, { method: "POST", body: JSON.stringify({ responses }) });
  assert.equal(r.status, 200, "the fake provider took the script");
}

const serve = await startChild(SEPP_BIN, ["serve", "--port", "0"], {
  PATH: process.env.PATH, HOME: home, SEPP_HOME: home,
  ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "test-key-not-secret",
}, { url: /listening on (http:\/\/\S+)/, token: / token ([0-9a-f]+) /, inspector: /inspector (http:\/\/\S+)/ });
const auth = { Authorization: `Bearer ${serve.token}`, "Content-Type": "application/json" };
async function post(p, body) {
  const r = await fetch(serve.url + p, { method: "POST", headers: auth, body: JSON.stringify(body) });
  return r.status;
}

test("the inspector shows a live prompt, answers a permission from the page, and keeps the token out of the URL", async () => {
  assert.ok(serve.url && serve.token, "sepp serve printed its address and token");
  assert.equal(serve.inspector, `${serve.url}/ui/#token=${serve.token}`, "the printed inspector address carries the token in the fragment");

  // The page's headers: nothing inline, nothing from elsewhere, no framing.
  const head = await fetch(`${serve.url}/ui/`);
  assert.equal(head.status, 200, "the page itself needs no token");
  const csp = head.headers.get("content-security-policy");
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.match(csp, /connect-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  assert.equal(head.headers.get("x-frame-options"), "DENY");
  assert.equal(head.headers.get("referrer-policy"), "no-referrer");
  // ... while the API still wants the token.
  assert.equal((await fetch(`${serve.url}/v1/sessions`)).status, 401);

  assert.equal(await post("/v1/sessions/ui1", { agent: "sepp", directory: cwd, title: "inspector test" }), 200);

  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    // --no-sandbox: the tests may run as root, where Chromium's own sandbox cannot start.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const problems = [];
  page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
  page.on("pageerror", (e) => problems.push(String(e)));

  await page.goto(`${serve.url}/ui/?session=ui1#token=${serve.token}`, { waitUntil: "domcontentloaded" });
  await page.waitForSelector('#session-list li[data-session="ui1"]', { timeout: 30000 });
  assert.ok(!page.url().includes(serve.token), `the token left the address bar: ${page.url()}`);
  assert.equal(await page.evaluate(() => sessionStorage.getItem("sepp.serve.token")), serve.token);

  // A prompt sent through the API appears live; its answer is Markdown, and
  // markup or a javascript: link in it stays inert text.
  await script([{ text: "Here is **bold** and `code`.\n\n- one\n- two\n\n<img src=x onerror=\"window.__pwned=1\"> [click](javascript:window.__pwned=2)" }]);
  assert.equal(await post("/v1/sessions/ui1/messages", { message: "say something" }), 204);
  await page.waitForFunction(() => [...document.querySelectorAll(".card.user")].some((c) => c.textContent.includes("say something")), { timeout: 30000 });
  await page.waitForFunction(() => {
    const c = [...document.querySelectorAll(".card.assistant")].pop();
    return c && c.querySelector("strong")?.textContent === "bold" && c.querySelectorAll("li").length === 2;
  }, { timeout: 30000 });
  const assistant = await page.$$eval(".card.assistant", (cs) => {
    const c = cs[cs.length - 1];
    return { code: c.querySelector("code")?.textContent, imgs: c.querySelectorAll("img").length,
             links: [...c.querySelectorAll("a")].map((a) => a.href), text: c.textContent };
  });
  assert.equal(assistant.code, "code");
  assert.equal(assistant.imgs, 0, "markup in a message is not turned into elements");
  assert.deepEqual(assistant.links, [], "a javascript: link is not made a link");
  assert.ok(assistant.text.includes("<img src=x"), "the markup is shown as text");
  assert.equal(await page.evaluate(() => window.__pwned), undefined);

  // A write outside the workspace needs a permission: answered from the page.
  const target = path.join(outside, "report.txt");
  await script([
    { tool_calls: [{ id: "w1", name: "write", arguments: { path: target, content: "written\n" } }] },
    { tool_calls: [{ id: "w1-retry", name: "retry_with_access",
      arguments: { call_id: "w1", write_paths: [target], justification: "the user asked for the report there" } }] },
    { text: "finished the report" },
  ]);
  assert.equal(await post("/v1/sessions/ui1/messages", { message: "write the report" }), 204);
  const button = await page.waitForSelector('.card.permission.pending button[data-reply="once"]', { timeout: 30000 });
  const asked = await page.$eval(".card.permission.pending", (c) => c.textContent);
  assert.ok(asked.includes("the user asked for the report there"), `the request shows its justification: ${asked}`);
  await button.click();
  await page.waitForSelector(".card.permission.resolved.accepted", { timeout: 30000 });
  await page.waitForFunction(() => [...document.querySelectorAll(".card.assistant")].some((c) => c.textContent.includes("finished the report")), { timeout: 30000 });
  assert.equal(fs.readFileSync(target, "utf8"), "written\n", "the agent went on and wrote the file");
  const tools = await page.$$eval(".card.call .tool-name", (ns) => ns.map((n) => n.textContent));
  assert.ok(tools.includes("write") && tools.includes("retry_with_access"), `tool calls drawn: ${tools}`);

  // The server saw the same: the permission resolved as accepted.
  const events = await (await fetch(`${serve.url}/v1/sessions/ui1/events?offset=0&limit=10000`, { headers: auth })).json();
  const resolved = events.events.filter((e) => e.type === "permission.resolved");
  assert.equal(resolved.length, 1);
  assert.equal(resolved[0].data.status, "accept");

  // An edit's diff and a sub-agent: the diff coloured, the sub-agent in the
  // tree under its call, and choosing it shows only its events.
  fs.writeFileSync(path.join(cwd, "notes.txt"), "alpha\nbeta\n");
  await script([
    { tool_calls: [
      { id: "e1", name: "edit", arguments: { path: path.join(cwd, "notes.txt"), old_string: "beta", new_string: "gamma" } },
      { id: "a1", name: "agent", arguments: { task: "summarise the notes" } },
    ] },
    { text: "the sub-agent report" },
    { text: "all done" },
  ]);
  assert.equal(await post("/v1/sessions/ui1/messages", { message: "edit and delegate" }), 204);
  await page.waitForFunction(() => [...document.querySelectorAll(".card.assistant")].some((c) => c.textContent.includes("all done")), { timeout: 30000 });
  const diff = await page.$$eval(".result pre.diff", (ps) => ps.map((p) => ({
    add: [...p.querySelectorAll(".diff-add")].map((s) => s.textContent).join(""),
    del: [...p.querySelectorAll(".diff-del")].map((s) => s.textContent).join(""),
  })));
  assert.equal(diff.length, 1, "the edit's output is drawn as a diff");
  assert.match(diff[0].add, /\+gamma/);
  assert.match(diff[0].del, /-beta/);
  const child = await page.$eval('#tree .node:not([data-agent=""])', (b) => { b.click(); return b.dataset.agent; });
  assert.ok(child, "the sub-agent is in the tree");
  const visible = await page.$$eval("#conversation > .card", (cs) => cs.filter((c) => !c.classList.contains("filtered"))
    .map((c) => ({ agent: c.dataset.agent, text: c.textContent })));
  assert.ok(visible.length > 0 && visible.every((c) => c.agent === child), "only the sub-agent's cards are shown");
  assert.ok(visible.some((c) => c.text.includes("the sub-agent report")), JSON.stringify(visible));
  await page.click('#tree .node[data-agent=""]');

  // Filtering: the text filter hides the cards without the text.
  await page.type("#filter-text", "finished the report");
  const shown = await page.$$eval("#conversation > .card", (cs) => cs.filter((c) => !c.classList.contains("filtered")).length);
  const all = await page.$$eval("#conversation > .card", (cs) => cs.length);
  assert.ok(shown >= 1 && shown < all, `filter shows ${shown} of ${all}`);
  await page.$eval("#filter-text", (i) => { i.value = ""; i.dispatchEvent(new Event("input")); });

  // A question from the model, answered from the page's form.
  await script([
    { tool_calls: [{ id: "qq1", name: "question", arguments: { questions: [
      { question: "Which database?", header: "DB", options: [{ label: "SQLite" }, { label: "PostgreSQL", description: "a server" }] },
      { question: "Anything else?" }] } }] },
    { text: "going with the answer" },
  ]);
  assert.equal(await post("/v1/sessions/ui1/messages", { message: "ask me" }), 204);
  await page.waitForSelector(".card.question.pending form", { timeout: 30000 });
  await page.click('.card.question.pending input[type=radio][value="PostgreSQL"]');
  await page.type('.card.question.pending fieldset[data-field="Anything else?"] input[type=text]', "no");
  await page.click('.card.question.pending button[data-answer="reply"]');
  await page.waitForSelector(".card.question.resolved.accepted", { timeout: 30000 });
  await page.waitForFunction(() => [...document.querySelectorAll(".card.assistant")].some((c) => c.textContent.includes("going with the answer")), { timeout: 30000 });
  const qevents = await (await fetch(`${serve.url}/v1/sessions/ui1/events?offset=0&limit=10000`, { headers: auth })).json();
  const answered = qevents.events.filter((e) => e.type === "question.resolved");
  assert.equal(answered.length, 1);
  assert.deepEqual(answered[0].data.values, { "Which database?": "PostgreSQL", "Anything else?": "no" });

  fs.mkdirSync(artifacts, { recursive: true });
  await page.$eval("#conversation", (c) => { c.scrollTop = c.scrollHeight; });  // the diff and the sub-agent in view
  await page.screenshot({ path: path.join(artifacts, "inspector.png"), fullPage: true });
  assert.deepEqual(problems, [], "the page ran without errors or CSP violations");
});

test("without a token in the fragment or the tab the page asks for one", async () => {
  const page = await browser.newPage();
  await page.goto(`${serve.url}/ui/`, { waitUntil: "domcontentloaded" });
  await page.waitForSelector("#login:not([hidden])", { timeout: 30000 });
  await page.type("#token", "wrong-token");
  await page.click("#login button");
  await page.waitForFunction(() => document.querySelector("#status").textContent === "needs the token" &&
                             !document.querySelector("#login").hidden, { timeout: 30000 });
  assert.equal(await page.$eval("#app", (m) => m.hidden), true, "a wrong token shows nothing");
  await page.$eval("#token", (i) => { i.value = ""; });
  await page.type("#token", serve.token);
  await page.click("#login button");
  await page.waitForSelector('#session-list li[data-session="ui1"]', { timeout: 30000 });
  await page.close();
});
