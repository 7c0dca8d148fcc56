// sandbox-agent 0.4.2's TypeScript SDK, unchanged, pointed at `sepp serve`:
// connect -> listAgents -> createSession (agent "sepp") -> a prompt whose
// write outside the workspace needs a permission, answered through the SDK
// -> the session's events -> setMode -> destroySession -> dispose, against
// the scripted fake provider; then its file, process and MCP config calls
// (writeFsFile ... uploadFsBatch's siblings, runProcess, createProcess with
// input and logs, connectProcessTerminal, setMcpConfig) on the workspace. The packages are tests/acp/node's (installed
// by scripts/setup), imported from there by path.
//
// Run by ctest as:
//   SEPP_BIN=... FAKE_PROVIDER_BIN=... node --experimental-websocket --test sdk.test.mjs
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { once } from "node:events";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startFake, agentEnv, permissionScript } from "../../acp/node/harness.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const sdkEntry = path.join(here, "../../acp/node/node_modules/sandbox-agent/dist/index.js");
const { SandboxAgent } = await import(pathToFileURL(sdkEntry).href);

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sepp-serve-sdk-"));
const home = path.join(work, "home");
const cwd = path.join(work, "project");
fs.mkdirSync(cwd, { recursive: true });
fs.mkdirSync(home, { recursive: true });

const fake = await startFake();
let server;
// Every server started, until it exits: a test that fails before its own
// SIGTERM must not leave one running (node would wait on its pipes).
const running = new Set();
after(() => {
  for (const p of running) p.kill("SIGTERM");
  fake.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

// Starts `sepp serve --port 0`, resolves with its URL and printed token.
async function startServe(args = []) {
  const proc = spawn(process.env.SEPP_BIN, ["serve", "--port", "0", ...args], {
    cwd, env: agentEnv({ home, baseUrl: fake.url }), stdio: ["ignore", "pipe", "inherit"],
  });
  running.add(proc);
  proc.on("exit", () => running.delete(proc));
  const lines = readline.createInterface({ input: proc.stdout });
  let url, token;
  for await (const line of lines) {
    const l = line.match(/listening on (http:\/\/\S+)/);
    if (l) url = l[1];
    const t = line.match(/ token ([0-9a-f]+) /);
    if (t) token = t[1];
    if (url && token) break;
  }
  return { proc, url, token };
}

test("sandbox-agent 0.4.2's SDK drives sepp serve: session, permission, events, mode, teardown", async () => {
  const s = await startServe();
  server = s.proc;
  assert.ok(s.url && s.token, "sepp serve printed its address and a token");
  const sdk = await SandboxAgent.connect({ baseUrl: s.url, token: s.token });
  let disposed = false;
  try {
    const agents = await sdk.listAgents();
    // sepp, then the external agents (docs/serve.md), whatever is installed.
    assert.deepEqual(agents.agents.map((a) => a.id), ["sepp", "claude", "codex", "pi"]);
    assert.equal(agents.agents[0].installed, true);

    const session = await sdk.createSession({ agent: "sepp", cwd });
    assert.ok(session.agentSessionId, "session/new answered with a session id");
    const events = [];
    const waiters = new Set();
    session.onEvent((e) => {
      events.push(e);
      for (const w of waiters) w();
    });
    const updates = () => events.filter((e) => e.payload.method === "session/update").map((e) => e.payload.params.update);
    // The updates come on the SSE stream; the answer in the POST body may be first.
    const seen = (pred, what) => new Promise((resolve, reject) => {
      const check = () => { if (pred(updates())) { waiters.delete(check); clearTimeout(t); resolve(); } };
      const t = setTimeout(() => { waiters.delete(check); reject(new Error(`${what} not seen; got ${JSON.stringify(updates().map((u) => u.sessionUpdate))}`)); }, 30000);
      waiters.add(check);
      check();
    });

    // The model writes outside the workspace, the sandbox refuses, the
    // model asks for access: a permission request through SSE to the SDK,
    // its answer back as a POST (202), then the retry writes the file.
    const outside = fs.mkdtempSync(path.join(work, "outside-"));
    const target = path.join(outside, "report.txt");
    await fake.setScript(permissionScript(target));
    const asked = [];
    session.onPermissionRequest((req) => {
      asked.push(req);
      session.respondPermission(req.id, "once");
    });
    const answer = await session.prompt([{ type: "text", text: "write the report" }]);
    assert.equal(answer.stopReason, "end_turn");
    assert.equal(asked.length, 1, "one permission request reached the SDK");
    assert.match(asked[0].toolCall.title, /report\.txt/);
    assert.ok(asked[0].availableReplies.includes("once"));
    assert.equal(fs.readFileSync(target, "utf8"), "written\n", "the allowed retry wrote the file");
    // The answer's text arrives as deltas: one chunk or several, depending on
    // how the stream was cut; together they are the model's whole answer.
    const answerText = (us) =>
      us.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
    await seen((us) => answerText(us) === "finished", "the final text");
    await seen((us) => us.some((u) => u.sessionUpdate === "tool_call"), "the tool call");

    // The SDK's own event log has the session's envelopes, in order.
    const page = await sdk.getEvents({ sessionId: session.id, limit: 200 });
    const indexes = page.items.map((e) => e.eventIndex);
    assert.deepEqual(indexes, [...indexes].sort((a, b) => a - b));
    assert.ok(page.items.some((e) => e.payload.method === "session/request_permission"));

    // setMode: checked by the SDK against the modes session/new announced,
    // then sent as session/set_mode. In "deny" the agent refuses a widening
    // without asking: the same script now asks nobody and writes nothing.
    await session.setMode("deny");
    assert.equal((await session.getModes()).currentModeId, "deny");
    const denied = path.join(outside, "denied.txt");
    await fake.setScript(permissionScript(denied, "w2"));
    const refused = await session.prompt([{ type: "text", text: "write it again" }]);
    assert.equal(refused.stopReason, "end_turn");
    assert.equal(asked.length, 1, "no permission request in deny mode");
    assert.equal(fs.existsSync(denied), false, "the denied write did not happen");

    // The server lists the SDK's connection while it lives.
    const listed = await (await fetch(`${s.url}/v1/acp`, { headers: { Authorization: `Bearer ${s.token}` } })).json();
    assert.equal(listed.servers.length, 1);
    assert.equal(listed.servers[0].agent, "sepp");

    await sdk.destroySession(session.id);
    await sdk.dispose();
    disposed = true;
    // dispose's DELETE was served (sandbox-agent 0.4.2's hangs until the
    // SDK gives up on it): the connection is gone from the list.
    const after = await (await fetch(`${s.url}/v1/acp`, { headers: { Authorization: `Bearer ${s.token}` } })).json();
    assert.deepEqual(after.servers, []);
  } finally {
    if (!disposed) await sdk.dispose();
  }
  server.kill("SIGTERM");
  const [code] = await once(server, "exit");
  server = undefined;
  assert.equal(code, 0, "sepp serve exits cleanly on SIGTERM");
});

test("the SDK's file, process and config calls work against sepp serve, inside the workspace", async () => {
  const s = await startServe();
  server = s.proc;
  const sdk = await SandboxAgent.connect({ baseUrl: s.url, token: s.token });
  try {
    // files
    const wrote = await sdk.writeFsFile({ path: "notes/a.txt" }, "hello sdk");
    assert.equal(wrote.bytesWritten, 9);
    assert.equal(wrote.path, path.join(cwd, "notes/a.txt"));
    assert.equal(new TextDecoder().decode(await sdk.readFsFile({ path: "notes/a.txt" })), "hello sdk");
    const entries = await sdk.listFsEntries({ path: "notes" });
    assert.deepEqual(entries.map((e) => [e.name, e.entryType, e.size]), [["a.txt", "file", 9]]);
    assert.equal((await sdk.statFs({ path: "notes" })).entryType, "directory");
    await sdk.mkdirFs({ path: "notes/deep/er" });
    assert.deepEqual(await sdk.moveFs({ from: "notes/a.txt", to: "notes/b.txt" }),
                     { from: path.join(cwd, "notes/a.txt"), to: path.join(cwd, "notes/b.txt") });
    await sdk.deleteFsEntry({ path: "notes", recursive: true });
    assert.equal(fs.existsSync(path.join(cwd, "notes")), false);
    await assert.rejects(sdk.readFsFile({ path: "/etc/passwd" }), (e) => e.status === 403);

    // processes
    const ran = await sdk.runProcess({ command: "sh", args: ["-c", "echo from-sdk; exit 4"] });
    assert.equal(ran.stdout, "from-sdk\n");
    assert.equal(ran.exitCode, 4);
    const cat = await sdk.createProcess({ command: "cat", interactive: true });
    assert.equal(cat.status, "running");
    assert.equal((await sdk.sendProcessInput(cat.id, { data: Buffer.from("typed\n").toString("base64") })).bytesWritten, 6);
    let text = "";
    for (let i = 0; i < 200 && !text.includes("typed"); i++) {
      const logs = await sdk.getProcessLogs(cat.id, { stream: "stdout" });
      text = logs.entries.map((e) => Buffer.from(e.data, "base64").toString()).join("");
      if (!text.includes("typed")) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(text, "typed\n");
    assert.equal((await sdk.listProcesses()).processes.length, 1);
    assert.equal((await sdk.killProcess(cat.id, { waitMs: 5000 })).status, "exited");
    await sdk.deleteProcess(cat.id);
    assert.equal((await sdk.getProcessConfig()).maxConcurrentProcesses, 64);

    // config: sepp's own .sepp/mcp.toml
    await sdk.setMcpConfig({ directory: cwd, mcpName: "git" }, { type: "local", command: "uvx", args: ["mcp-server-git"] });
    assert.match(fs.readFileSync(path.join(cwd, ".sepp/mcp.toml"), "utf8"), /\[\[mcp\.servers\]\]\s+name = 'git'/);
    const got = await sdk.getMcpConfig({ directory: cwd, mcpName: "git" });
    assert.equal(got.command, "uvx");
    assert.deepEqual(got.args, ["mcp-server-git"]);
    await sdk.deleteMcpConfig({ directory: cwd, mcpName: "git" });
    await assert.rejects(sdk.getMcpConfig({ directory: cwd, mcpName: "git" }), (e) => e.status === 404);
  } finally {
    await sdk.dispose();
  }
  server.kill("SIGTERM");
  const [code] = await once(server, "exit");
  server = undefined;
  assert.equal(code, 0);
});

// The SDK's terminal (connectProcessTerminal: a WebSocket, Node's global
// one; ctest runs node with --experimental-websocket where Node 20 needs it).
test("the SDK's terminal session types into a shell on a pty, resizes it and sees it exit", async () => {
  const s = await startServe();
  server = s.proc;
  const sdk = await SandboxAgent.connect({ baseUrl: s.url, token: s.token });
  try {
    const sh = await sdk.createProcess({ command: "sh", tty: true });
    const term = sdk.connectProcessTerminal(sh.id);
    let output = "";
    const decoder = new TextDecoder();
    const waiters = [];
    term.onData((bytes) => {
      output += decoder.decode(bytes, { stream: true });
      for (const w of [...waiters]) if (output.includes(w.want)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
    });
    const seen = (want) => output.includes(want) ? Promise.resolve() : new Promise((resolve) => waiters.push({ want, resolve }));
    const ready = new Promise((resolve) => term.onReady(resolve));
    const exited = new Promise((resolve) => term.onExit(resolve));
    const errors = [];
    term.onError((e) => errors.push(e));
    assert.deepEqual(await ready, { type: "ready", processId: sh.id });
    term.sendInput("echo sdk-$((20+1))\n");
    await seen("sdk-21");
    assert.match(output, /echo sdk-\$\(\(20\+1\)\)/, "the terminal echoes what is typed");
    term.resize({ cols: 111, rows: 22 });
    term.sendInput(new TextEncoder().encode("stty size\n"));  // bytes: sent as base64
    await seen("22 111");
    term.sendInput("exit 5\n");
    assert.deepEqual(await exited, { type: "exit", exitCode: 5 });
    await term.closed;
    assert.deepEqual(errors, []);
  } finally {
    await sdk.dispose();
  }
  server.kill("SIGTERM");
  const [code] = await once(server, "exit");
  server = undefined;
  assert.equal(code, 0);
});
