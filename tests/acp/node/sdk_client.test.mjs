// A real ACP client, built on @agentclientprotocol/sdk 2.4.0, drives
// `sepp --acp` against the scripted fake provider: initialize -> session/new
// -> a prompt that reads, edits and runs bash -> config options and modes ->
// a permission round trip (and modes that answer it) -> cancel mid-turn -> session/load in a fresh process, which must replay the
// history. The SDK validates every message against ACP v1's schema, so a
// malformed update would not arrive at all: each step checks what arrived.
//
// Run by ctest (tests/acp/CMakeLists.txt) as:
//   SEPP_BIN=build/sepp FAKE_PROVIDER_BIN=build/fake-provider node --test sdk_client.test.mjs
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startFake, startAgent, permissionScript } from "./harness.mjs";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sepp-acp-sdk-"));
const home = path.join(work, "home");
const cwd = path.join(work, "project");
fs.mkdirSync(home);
fs.mkdirSync(cwd);
fs.writeFileSync(path.join(cwd, "greet.txt"), "helo world\n");

const fake = await startFake();
after(() => {
  fake.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

let sessionId;

test("initialize, session/new, and a prompt that reads, edits and runs bash", async () => {
  await fake.setScript([
    { thinking: "Let me look at the file.", tool_calls: [{ name: "read", arguments: { path: "greet.txt" } }] },
    { tool_calls: [{ name: "edit", arguments: { path: "greet.txt", old_string: "helo", new_string: "hello" } }] },
    { tool_calls: [{ name: "bash", arguments: { command: "cat greet.txt" } }] },
    { text: "Fixed the greeting." },
  ]);
  const agent = await startAgent({ home, cwd, baseUrl: fake.url });
  try {
    const init = await agent.initialize();
    assert.equal(init.protocolVersion, 1);
    assert.equal(init.agentCapabilities.loadSession, true);
    assert.ok(init.agentCapabilities.sessionCapabilities.list);
    assert.ok(init.agentCapabilities.sessionCapabilities.resume);
    assert.equal(init.agentInfo.name, "sepp");

    const created = await agent.request("session/new", { cwd, mcpServers: [] });
    sessionId = created.sessionId;
    assert.match(sessionId, /\S/);
    assert.equal(created.modes.currentModeId, "ask");
    const ids = created.configOptions.map((o) => o.id);
    assert.deepEqual(ids, ["model", "thought_level"]);
    await agent.waitFor(sessionId, (u) => u.sessionUpdate === "available_commands_update");

    const answer = await agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "fix the greeting" }],
    });
    assert.equal(answer.stopReason, "end_turn");

    const updates = agent.updates(sessionId);
    const calls = updates.filter((u) => u.sessionUpdate === "tool_call");
    assert.deepEqual(calls.map((c) => c.kind), ["read", "edit", "execute"]);
    assert.equal(calls[0].locations[0].path, path.join(cwd, "greet.txt"));
    assert.match(calls[0].title, /greet\.txt/);
    const progress = updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress");
    assert.ok(progress.some((u) => /hello world/.test(u.content[0].content.text)), "bash's output is shown while it runs");
    const done = updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status !== "in_progress");
    assert.deepEqual(done.map((u) => u.status), ["completed", "completed", "completed"]);
    const diff = done[1].content[0];
    assert.equal(diff.type, "diff");
    assert.equal(diff.path, path.join(cwd, "greet.txt"));
    assert.equal(diff.oldText, "helo");
    assert.equal(diff.newText, "hello");
    assert.match(done.at(-1).content[0].content.text, /hello world/);  // bash's output
    assert.equal(agent.text(sessionId, "agent_thought_chunk"), "Let me look at the file.");
    assert.equal(agent.text(sessionId, "agent_message_chunk"), "Fixed the greeting.");
    const usage = updates.filter((u) => u.sessionUpdate === "usage_update");
    assert.ok(usage.length >= 4, "one usage_update per model call");
    assert.ok(usage.every((u) => Number.isInteger(u.used) && u.used > 0 && u.size > 0));
    assert.equal(fs.readFileSync(path.join(cwd, "greet.txt"), "utf8"), "hello world\n");
  } finally {
    await agent.close();
  }
});

test("config options, modes, and errors a client can act on", async () => {
  const agent = await startAgent({ home, cwd, baseUrl: fake.url });
  try {
    await agent.initialize();
    const { sessionId: sid } = await agent.request("session/new", { cwd, mcpServers: [] });
    const set = await agent.request("session/set_config_option", {
      sessionId: sid, configId: "thought_level", value: "high",
    });
    assert.equal(set.configOptions.find((o) => o.id === "thought_level").currentValue, "high");
    const model = await agent.request("session/set_config_option", {
      sessionId: sid, configId: "model", value: "claude-haiku-4-5",
    });
    assert.equal(model.configOptions.find((o) => o.id === "model").currentValue, "claude-haiku-4-5");
    assert.deepEqual(await agent.request("session/set_mode", { sessionId: sid, modeId: "deny" }), {});

    await assert.rejects(agent.request("session/set_mode", { sessionId: sid, modeId: "yolo" }),
      (e) => e.code === -32602 && /unknown mode/.test(e.message));
    await assert.rejects(agent.request("session/prompt", { sessionId: "nope", prompt: [{ type: "text", text: "x" }] }),
      (e) => e.code === -32002 && /no open session/.test(e.message));
    await assert.rejects(agent.request("session/new", { cwd: "relative/dir", mcpServers: [] }),
      (e) => e.code === -32602 && /absolute path/.test(e.message));
    await assert.rejects(agent.request("session/frobnicate", {}), (e) => e.code === -32601);
  } finally {
    await agent.close();
  }
});

test("two sessions in one process run their prompts at the same time, each with its own updates", async () => {
  await fake.setScript([{ text: "Same answer." }, { text: "Same answer." }]);
  const agent = await startAgent({ home, cwd, baseUrl: fake.url });
  try {
    await agent.initialize();
    const a = (await agent.request("session/new", { cwd, mcpServers: [] })).sessionId;
    const b = (await agent.request("session/new", { cwd, mcpServers: [] })).sessionId;
    assert.notEqual(a, b);
    const [ra, rb] = await Promise.all([
      agent.request("session/prompt", { sessionId: a, prompt: [{ type: "text", text: "one" }] }),
      agent.request("session/prompt", { sessionId: b, prompt: [{ type: "text", text: "two" }] }),
    ]);
    assert.equal(ra.stopReason, "end_turn");
    assert.equal(rb.stopReason, "end_turn");
    assert.equal(agent.text(a, "agent_message_chunk"), "Same answer.");
    assert.equal(agent.text(b, "agent_message_chunk"), "Same answer.");
    // Each session's own file: the prompts did not cross.
    const list = (await agent.request("session/list", { cwd })).sessions;
    assert.equal(list.find((s) => s.sessionId === a).title, "one");
    assert.equal(list.find((s) => s.sessionId === b).title, "two");
  } finally {
    await agent.close();
  }
});

test("a permission round trip: the sandbox refuses, the model asks, the client answers", async () => {
  const outside = fs.mkdtempSync(path.join(work, "outside-"));
  const target = path.join(outside, "report.txt");
  let answer = "allow_once";
  const agent = await startAgent({ home, cwd, baseUrl: fake.url,
    permission: (params) => ({ outcome: { outcome: "selected", optionId: answer } }) });
  try {
    await agent.initialize();
    const { sessionId: sid } = await agent.request("session/new", { cwd, mcpServers: [] });

    await fake.setScript(permissionScript(target));
    const allowed = await agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "write the report" }] });
    assert.equal(allowed.stopReason, "end_turn");
    assert.equal(agent.permissionRequests.length, 1);
    const req = agent.permissionRequests[0];
    assert.equal(req.sessionId, sid);
    assert.equal(req.toolCall.toolCallId, "w1-retry");
    assert.match(req.toolCall.title, new RegExp(`write ${target.replaceAll("/", "\\/")}`));
    assert.match(req.toolCall.content[0].content.text, /the user asked for the report there/);
    assert.deepEqual(req.options.map((o) => o.optionId), ["allow_once", "allow_session", "allow_project", "deny"]);
    assert.equal(fs.readFileSync(target, "utf8"), "written\n", "the allowed retry wrote the file");

    answer = "deny";
    fs.rmSync(target);
    await fake.setScript(permissionScript(target, "w2"));
    const denied = await agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "again" }] });
    assert.equal(denied.stopReason, "end_turn");
    assert.equal(agent.permissionRequests.length, 2);
    assert.ok(!fs.existsSync(target), "a denied retry writes nothing");

    // Mode "deny": refused without asking the client.
    await agent.request("session/set_mode", { sessionId: sid, modeId: "deny" });
    await fake.setScript(permissionScript(target, "w3"));
    await agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "once more" }] });
    assert.equal(agent.permissionRequests.length, 2, "no request in mode deny");
    assert.ok(!fs.existsSync(target));
    const sent = JSON.stringify((await fake.requests()).at(-1).body);
    assert.match(sent, /Never widen/, "the model is told why");

    // Mode "allow": allowed once without asking.
    await agent.request("session/set_mode", { sessionId: sid, modeId: "allow" });
    await fake.setScript(permissionScript(target, "w4"));
    await agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "last time" }] });
    assert.equal(agent.permissionRequests.length, 2, "no request in mode allow");
    assert.equal(fs.readFileSync(target, "utf8"), "written\n");
  } finally {
    await agent.close();
  }
});

test("session/cancel mid-turn ends the turn with stopReason cancelled", async () => {
  await fake.setScript([
    { tool_calls: [{ name: "bash", arguments: { command: "sleep 30" } }] },
    { text: "(should not be reached)" },
  ]);
  const agent = await startAgent({ home, cwd, baseUrl: fake.url });
  try {
    await agent.initialize();
    await agent.request("session/load", { sessionId, cwd, mcpServers: [] });
    const before = agent.updates(sessionId).length;
    const prompt = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "wait a bit" }] });
    await agent.waitFor(sessionId, (u, i) => i >= before && u.sessionUpdate === "tool_call" && u.kind === "execute");
    // One turn at a time: a second prompt meanwhile is refused, saying why.
    await assert.rejects(agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "and this?" }] }),
      (e) => e.code === -32600 && /already running/.test(e.message));
    await agent.notify("session/cancel", { sessionId });
    const answer = await prompt;
    assert.equal(answer.stopReason, "cancelled");
    // The session is still usable: another prompt runs to its end.
    await fake.setScript([{ text: "Still here." }]);
    const again = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "still there?" }] });
    assert.equal(again.stopReason, "end_turn");
  } finally {
    await agent.close();
  }
});

test("a fresh process lists the session and session/load replays its history", async () => {
  const agent = await startAgent({ home, cwd, baseUrl: fake.url });
  try {
    await agent.initialize();
    const listed = await agent.request("session/list", { cwd });
    const row = listed.sessions.find((s) => s.sessionId === sessionId);
    assert.ok(row, `session/list names ${sessionId}`);
    assert.equal(row.cwd, cwd);
    assert.equal(row.title, "fix the greeting");

    const loaded = await agent.request("session/load", { sessionId, cwd, mcpServers: [] });
    assert.equal(loaded.modes.currentModeId, "ask");
    const replay = agent.updates(sessionId);
    const users = replay.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
    assert.deepEqual(users.slice(0, 2), ["fix the greeting", "wait a bit"]);
    const kinds = replay.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.kind);
    assert.deepEqual(kinds.slice(0, 3), ["read", "edit", "execute"]);
    const edit = replay.filter((u) => u.sessionUpdate === "tool_call_update")[1];
    assert.equal(edit.content[0].type, "diff");
    assert.match(agent.text(sessionId, "agent_message_chunk"), /Fixed the greeting\./);
  } finally {
    await agent.close();
  }
  // session/resume (once the other process let go of it) takes it up
  // without a replay.
  const other = await startAgent({ home, cwd, baseUrl: fake.url });
  try {
    await other.initialize();
    const resumed = await other.request("session/resume", { sessionId, cwd, mcpServers: [] });
    assert.ok(resumed.configOptions);
    const shown = other.updates(sessionId).filter((u) => u.sessionUpdate !== "available_commands_update");
    assert.equal(shown.length, 0);
  } finally {
    await other.close();
  }
});
