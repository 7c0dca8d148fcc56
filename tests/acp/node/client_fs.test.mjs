// A client that offers fs/read_text_file and fs/write_text_file keeps its own
// in-memory "buffers" (unsaved editor state that differs from the disk):
// sepp's read sees the buffer, its edit and write land in the buffer (the
// disk is unchanged), and a read of a denied path (~/.ssh) is refused by
// sepp without any fs/ request reaching the client. A client that never
// answers makes the tool fail after --fs-timeout, and session/cancel stops
// the wait. Without the capabilities sepp uses the disk (sdk_client.test.mjs).
//
// Run by ctest (tests/acp/CMakeLists.txt) as:
//   SEPP_BIN=build/sepp FAKE_PROVIDER_BIN=build/fake-provider node --test client_fs.test.mjs
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startFake, startAgent } from "./harness.mjs";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sepp-acp-fs-"));
const home = path.join(work, "home");
const cwd = path.join(work, "project");
const secret = "SECRET-acp-fs-do-not-leak";
fs.mkdirSync(path.join(home, ".ssh"), { recursive: true });
fs.mkdirSync(cwd);
fs.writeFileSync(path.join(home, ".ssh", "id_ed25519"), `-----BEGIN OPENSSH PRIVATE KEY-----\n${secret}\n`);
const greet = path.join(cwd, "greet.txt");
fs.writeFileSync(greet, "helo from the disk\n");

const fake = await startFake();
after(() => {
  fake.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

// The editor: open buffers by absolute path, falling back to the disk.
function editor(buffers) {
  return {
    readTextFile: async ({ path: p }) => {
      if (buffers.has(p)) return { content: buffers.get(p) };
      return { content: fs.readFileSync(p, "utf8") };
    },
    writeTextFile: async ({ path: p, content }) => {
      buffers.set(p, content);
      return {};
    },
  };
}

const finished = (agent, sid) => agent.updates(sid).filter(
  (u) => u.sessionUpdate === "tool_call_update" && u.status !== "in_progress");
const shownText = (u) => u.content.map((c) => c.content?.text ?? "").join("");

test("read, edit and write go through the client's buffers; a secret never leaves sepp", async () => {
  const buffers = new Map([[greet, "helo from the unsaved buffer\n"]]);
  const fresh = path.join(cwd, "fresh.txt");
  await fake.setScript([
    { tool_calls: [{ id: "r1", name: "read", arguments: { path: "greet.txt" } }] },
    { tool_calls: [{ id: "e1", name: "edit", arguments: { path: "greet.txt", old_string: "helo", new_string: "hello" } }] },
    { tool_calls: [{ id: "w1", name: "write", arguments: { path: "fresh.txt", content: "new file\n" } }] },
    { tool_calls: [{ id: "s1", name: "read", arguments: { path: "~/.ssh/id_ed25519" } }] },
    { tool_calls: [{ id: "s2", name: "write", arguments: { path: path.join(work, "outside.txt"), content: "x" } }] },
    { text: "Done." },
  ]);
  const agent = await startAgent({ home, cwd, baseUrl: fake.url, clientFs: editor(buffers) });
  try {
    await agent.initialize();
    const { sessionId: sid } = await agent.request("session/new", { cwd, mcpServers: [] });
    const answer = await agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "fix it" }] });
    assert.equal(answer.stopReason, "end_turn");

    const done = finished(agent, sid);
    assert.deepEqual(done.map((u) => u.status), ["completed", "completed", "completed", "failed", "failed"]);
    assert.match(shownText(done[0]), /helo from the unsaved buffer/, "the read saw the buffer");
    assert.doesNotMatch(shownText(done[0]), /disk/);
    assert.equal(buffers.get(greet), "hello from the unsaved buffer\n", "the edit landed in the buffer");
    assert.equal(fs.readFileSync(greet, "utf8"), "helo from the disk\n", "the disk is unchanged");
    assert.equal(buffers.get(fresh), "new file\n");
    assert.ok(!fs.existsSync(fresh), "the write went to the editor, not the disk");

    // Exactly the allowed requests reached the client, with the session id.
    assert.deepEqual(agent.fsRequests.map((r) => `${r.method} ${r.path}`), [
      `fs/read_text_file ${greet}`,
      `fs/read_text_file ${greet}`,
      `fs/write_text_file ${greet}`,
      `fs/write_text_file ${fresh}`,
    ]);
    assert.ok(agent.fsRequests.every((r) => r.sessionId === sid));
    // The secret: refused by sepp's guard, never asked for, never shown.
    assert.match(shownText(done[3]), /denied|not allowed|refused/i);
    const everything = JSON.stringify(agent.updates(sid)) + JSON.stringify(agent.fsRequests) +
      JSON.stringify(await fake.requests());
    assert.ok(!everything.includes(secret), "the key's content never left sepp");
    assert.ok(!fs.existsSync(path.join(work, "outside.txt")));
  } finally {
    await agent.close();
  }
});

test("a client that never answers: the tool fails after --fs-timeout and the turn goes on", async () => {
  const never = { readTextFile: () => new Promise(() => {}), writeTextFile: () => new Promise(() => {}) };
  await fake.setScript([
    { tool_calls: [{ id: "r1", name: "read", arguments: { path: "greet.txt" } }] },
    { text: "The editor did not answer." },
  ]);
  const agent = await startAgent({ home, cwd, baseUrl: fake.url, clientFs: never, args: ["--fs-timeout", "0.3"] });
  try {
    await agent.initialize();
    const { sessionId: sid } = await agent.request("session/new", { cwd, mcpServers: [] });
    const answer = await agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "read" }] });
    assert.equal(answer.stopReason, "end_turn");
    const done = finished(agent, sid);
    assert.equal(done[0].status, "failed");
    assert.match(shownText(done[0]), /did not answer fs\/read_text_file within 300 ms/);
    assert.equal(agent.fsRequests.length, 1);
    assert.equal(agent.text(sid, "agent_message_chunk"), "The editor did not answer.");
  } finally {
    await agent.close();
  }
});

test("session/cancel while a read waits for the client ends the turn cancelled", async () => {
  let asked;
  const reached = new Promise((resolve) => { asked = resolve; });
  const never = { readTextFile: () => { asked(); return new Promise(() => {}); } };
  await fake.setScript([
    { tool_calls: [{ id: "r1", name: "read", arguments: { path: "greet.txt" } }] },
    { text: "(should not be reached)" },
  ]);
  const agent = await startAgent({ home, cwd, baseUrl: fake.url, clientFs: never });
  try {
    await agent.initialize();
    const { sessionId: sid } = await agent.request("session/new", { cwd, mcpServers: [] });
    const prompt = agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "read" }] });
    await reached;  // the read waits for our answer now
    await agent.notify("session/cancel", { sessionId: sid });
    assert.equal((await prompt).stopReason, "cancelled");
    // Reads only were offered: a write in the next turn uses the disk.
    await fake.setScript([
      { tool_calls: [{ id: "w1", name: "write", arguments: { path: "disk.txt", content: "on disk\n" } }] },
      { text: "Wrote it." },
    ]);
    const again = await agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "write" }] });
    assert.equal(again.stopReason, "end_turn");
    assert.equal(fs.readFileSync(path.join(cwd, "disk.txt"), "utf8"), "on disk\n");
    assert.equal(agent.fsRequests.length, 1);
  } finally {
    await agent.close();
  }
});
