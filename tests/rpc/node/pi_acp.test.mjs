// pi-acp 0.0.34 (an ACP agent that runs pi's RPC mode, taking the command
// from PI_ACP_PI_COMMAND) pointed at sepp: a real RPC client that must work
// unchanged. Driven by an ACP client on the SDK pi-acp itself depends on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { startFake, tempDir, seppEnv, seppBin, piAcp } from "./harness.mjs";

function startPiAcp(root, url, onPermission) {
  const env = { ...seppEnv(root, url), PI_ACP_PI_COMMAND: seppBin };
  const child = spawn(process.execPath, [piAcp], { cwd: root, env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => { stderr += d; });
  const updates = [];
  const permissions = [];
  const client = {
    async sessionUpdate(params) { updates.push(params.update); },
    async requestPermission(params) {
      permissions.push(params);
      return onPermission(params);
    },
    async readTextFile() { throw new Error("not offered"); },
    async writeTextFile() { throw new Error("not offered"); },
  };
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const conn = new acp.ClientSideConnection(() => client, stream);
  return { child, conn, updates, permissions, stderr: () => stderr };
}

const text = (updates, kind) => updates.filter((u) => u.sessionUpdate === kind && u.content?.type === "text")
                                       .map((u) => u.content.text).join("");

test("pi-acp drives sepp --rpc: a prompt with a tool call, then a permission round trip", async () => {
  const fake = await startFake();
  const root = tempDir("pi-acp");
  const cwd = join(root, "work");
  const outside = join(root, "outside");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(outside, { recursive: true });
  const target = join(outside, "report.txt");
  await fake.setScript([
    { tool_calls: [{ name: "ls", arguments: { path: "." } }] },
    { text: "Listed the folder." },
    { tool_calls: [{ id: "w1", name: "write", arguments: { path: target, content: "report\n" } }] },
    { tool_calls: [{ id: "r1", name: "retry_with_access",
                     arguments: { call_id: "w1", write_paths: [outside], justification: "the report goes there" } }] },
    { text: "Wrote the report." },
  ]);
  const a = startPiAcp(root, fake.url, (params) => {
    const allow = params.options.find((o) => o.name === "Allow once");
    return { outcome: allow ? { outcome: "selected", optionId: allow.optionId } : { outcome: "cancelled" } };
  });
  let sessionId;
  try {
    const init = await a.conn.initialize({ protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    assert.equal(init.protocolVersion, acp.PROTOCOL_VERSION);
    const s = await a.conn.newSession({ cwd, mcpServers: [] });
    sessionId = s.sessionId;
    assert.match(sessionId, /^[0-9a-f]{32}$/, "the session id is sepp's");

    const r1 = await a.conn.prompt({ sessionId, prompt: [{ type: "text", text: "list the files" }] });
    assert.equal(r1.stopReason, "end_turn");
    assert.ok(a.updates.some((u) => u.sessionUpdate === "tool_call"), JSON.stringify(a.updates));
    assert.match(text(a.updates, "agent_message_chunk"), /Listed the folder\./);

    const r2 = await a.conn.prompt({ sessionId, prompt: [{ type: "text", text: "write the report" }] });
    assert.equal(r2.stopReason, "end_turn");
    assert.equal(a.permissions.length, 1, "one permission request reached the ACP client");
    assert.match(JSON.stringify(a.permissions[0]), /writing to/);
    assert.ok(existsSync(target), `the allowed retry wrote the file; stderr: ${a.stderr()}`);
    assert.equal(readFileSync(target, "utf8"), "report\n");
    assert.match(text(a.updates, "agent_message_chunk"), /Wrote the report\./);
  } finally {
    a.child.kill("SIGTERM");
    fake.stop();
  }
});

test("pi-acp: a denied permission leaves the file unwritten and the turn goes on", async () => {
  const fake = await startFake();
  const root = tempDir("pi-acp-deny");
  const cwd = join(root, "work");
  const outside = join(root, "outside");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(outside, { recursive: true });
  const target = join(outside, "x.txt");
  await fake.setScript([
    { tool_calls: [{ id: "w1", name: "write", arguments: { path: target, content: "x\n" } }] },
    { tool_calls: [{ id: "r1", name: "retry_with_access",
                     arguments: { call_id: "w1", write_paths: [outside], justification: "needed" } }] },
    { text: "Could not write it." },
  ]);
  const a = startPiAcp(root, fake.url, (params) => {
    const deny = params.options.find((o) => o.name === "Deny");
    return { outcome: { outcome: "selected", optionId: deny.optionId } };
  });
  try {
    await a.conn.initialize({ protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await a.conn.newSession({ cwd, mcpServers: [] });
    const r = await a.conn.prompt({ sessionId, prompt: [{ type: "text", text: "write x" }] });
    assert.equal(r.stopReason, "end_turn");
    assert.equal(a.permissions.length, 1);
    assert.ok(!existsSync(target));
    const reqs = await fake.requests();
    assert.match(JSON.stringify(reqs[reqs.length - 1].body), /permission denied/);
  } finally {
    a.child.kill("SIGTERM");
    fake.stop();
  }
});
