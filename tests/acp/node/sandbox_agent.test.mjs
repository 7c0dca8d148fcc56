// sandbox-agent 0.4.2 (npm) drives `sepp --acp` through its ACP transport:
// its server runs one agent process per connection behind HTTP + SSE, and
// its TypeScript SDK is the client. Its agent ids are a fixed list, so sepp
// is installed as the launcher of the built-in "mock" agent
// ($XDG_DATA_HOME/sandbox-agent/bin/agent_processes/mock-acp). The SDK then
// completes a prompt with a bash call and sees its updates, and one that
// needs a permission answer, given through the SDK's respondPermission.
//
// Run by ctest as:
//   SEPP_BIN=... FAKE_PROVIDER_BIN=... node --test sandbox_agent.test.mjs
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SandboxAgent } from "sandbox-agent";
import { startFake, agentEnv, permissionScript } from "./harness.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const saBin = path.join(here, "node_modules/@sandbox-agent/cli-linux-x64/bin/sandbox-agent");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "sepp-acp-sa-"));
const home = path.join(work, "home");
const cwd = path.join(work, "project");
fs.mkdirSync(cwd, { recursive: true });
fs.mkdirSync(home, { recursive: true });
const saEnv = { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: path.join(home, ".local/share") };

const fake = await startFake();
let server;
after(() => {
  if (server) server.kill("SIGTERM");
  fake.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
    s.on("error", reject);
  });
}

// sh-quotes a value for the launcher script.
const q = (v) => `'${String(v).replaceAll("'", "'\\''")}'`;

test("sandbox-agent's SDK completes a prompt with a tool call and one with a permission request through sepp --acp", async () => {
  // Install the built-in mock launcher, then replace it with one running sepp.
  execFileSync(saBin, ["install-agent", "mock"], { env: saEnv, stdio: "ignore" });
  const launcher = path.join(saEnv.XDG_DATA_HOME, "sandbox-agent/bin/agent_processes/mock-acp");
  assert.ok(fs.existsSync(launcher), "install-agent mock writes its launcher");
  const env = agentEnv({ home: path.join(home, "sepp"), baseUrl: fake.url });
  fs.mkdirSync(env.SEPP_HOME, { recursive: true });
  const assigns = Object.entries(env).map(([k, v]) => `${k}=${q(v)}`).join(" ");
  fs.writeFileSync(launcher, `#!/bin/sh\nexec env -i ${assigns} ${q(process.env.SEPP_BIN)} --acp "$@"\n`, { mode: 0o755 });

  const port = await freePort();
  server = spawn(saBin, ["server", "--no-token", "--no-telemetry", "--host", "127.0.0.1", "--port", String(port)],
    { env: saEnv, stdio: ["ignore", "ignore", "inherit"] });
  const sdk = await SandboxAgent.connect({ baseUrl: `http://127.0.0.1:${port}` });
  try {
    await fake.setScript([
      { tool_calls: [{ name: "bash", arguments: { command: "echo from-sepp" } }] },
      { text: "All done." },
    ]);
    const session = await sdk.createSession({ agent: "mock", cwd });
    const updates = [];
    const waiters = new Set();
    session.onEvent((e) => {
      if (e.payload.method !== "session/update") return;
      updates.push(e.payload.params.update);
      for (const w of waiters) w();
    });
    // The answer comes back in the POST's body; the updates on the SSE
    // stream, which may still be on their way when the answer is in.
    const seen = (pred) => new Promise((resolve, reject) => {
      const check = () => { if (updates.some(pred)) { waiters.delete(check); clearTimeout(t); resolve(); } };
      const t = setTimeout(() => { waiters.delete(check); reject(new Error(`not seen; got ${JSON.stringify(updates.map((u) => u.sessionUpdate))}`)); }, 30000);
      waiters.add(check);
      check();
    });
    const answer = await session.prompt([{ type: "text", text: "say something" }]);
    assert.equal(answer.stopReason, "end_turn");
    await seen((u) => u.sessionUpdate === "tool_call" && u.kind === "execute");
    await seen((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed" && /from-sepp/.test(JSON.stringify(u.content)));
    await seen((u) => u.sessionUpdate === "agent_message_chunk" && u.content.text === "All done.");

    // A permission request travels agent -> SSE -> SDK, the answer back as a POST.
    const outside = fs.mkdtempSync(path.join(work, "outside-"));
    const target = path.join(outside, "report.txt");
    await fake.setScript(permissionScript(target));
    const asked = [];
    session.onPermissionRequest((req) => {
      asked.push(req);
      session.respondPermission(req.id, "once");
    });
    const allowed = await session.prompt([{ type: "text", text: "write the report" }]);
    assert.equal(allowed.stopReason, "end_turn");
    assert.equal(asked.length, 1, "one permission request reached the SDK");
    assert.match(asked[0].toolCall.title, /report\.txt/);
    assert.ok(asked[0].availableReplies.includes("once"));
    assert.equal(fs.readFileSync(target, "utf8"), "written\n", "the allowed retry wrote the file");
  } finally {
    await sdk.dispose();
  }
});
