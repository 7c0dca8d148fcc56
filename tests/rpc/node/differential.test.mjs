// The differential test: pi 1.6 (`pi --mode rpc`, the reference) and
// `sepp --rpc`, driven with the same script against the same fake provider,
// must give the same responses and the same event sequences (normalised:
// harness.mjs). Both runs use the fake's OpenAI chat API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFake, tempDir, seppEnv, piEnv, RpcClient, normalise, seppBin, piCli } from "./harness.mjs";

const SCRIPT = [
  { tool_calls: [{ name: "read", arguments: { path: "notes.txt" } }] },
  { text: "The file says hello; nothing else to do." },
  { text: "Second answer." },
];

// The same conversation for either agent: every record it printed, by step.
async function drive(client, fake) {
  const steps = {};
  steps.state = await client.request({ id: "s1", type: "get_state" });
  const from = client.records.length;
  const accepted = await client.request({ id: "p1", type: "prompt", message: "read notes.txt" });
  const end = await client.waitFor((r) => r.type === "agent_settled", from);
  steps.prompt = client.records.slice(from, end + 1);
  steps.accepted = accepted;
  steps.messages = await client.request({ id: "m1", type: "get_messages" });
  steps.last = await client.request({ id: "l1", type: "get_last_assistant_text" });
  steps.unknown = await client.request({ id: "u1", type: "no_such_command" });
  const beforeParse = client.records.length;
  client.send("{this is not json");
  const pi = await client.waitFor((r) => r.type === "response" && r.command === "parse", beforeParse);
  steps.parse = client.records[pi];
  steps.clear = await client.request({ id: "q1", type: "clear_queue" });
  const from2 = client.records.length;
  await client.request({ id: "p2", type: "prompt", message: "again" });
  const end2 = await client.waitFor((r) => r.type === "agent_settled", from2);
  steps.prompt2 = client.records.slice(from2, end2 + 1);
  steps.stats = await client.request({ id: "t1", type: "get_session_stats" });
  steps.requests = await fake.requests();
  steps.exit = await client.close();
  return steps;
}

async function run(kind, fake) {
  const root = tempDir(`diff-${kind}`);
  const cwd = join(root, "work");
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, "notes.txt"), "hello\n");
  await fake.reset();
  await fake.setScript(SCRIPT);
  const client = kind === "pi"
    ? new RpcClient(process.execPath, [piCli, "--mode", "rpc", "--no-session"], { cwd, env: piEnv(root, fake.url) })
    : new RpcClient(seppBin, ["--rpc", "--no-session"], { cwd, env: seppEnv(root, fake.url) });
  return drive(client, fake);
}

const keys = (o) => Object.keys(o ?? {}).sort();
const roles = (msgs) => msgs.filter((m) => m.role !== "system").map((m) => m.role);

test("pi and sepp answer the same script the same way", async () => {
  const fake = await startFake();
  try {
    const pi = await run("pi", fake);
    const sepp = await run("sepp", fake);

    // Event sequences of both prompts; the reference has the whole story.
    const ref = normalise(pi.prompt);
    for (const t of ["agent_start", "turn_start", "message_end:user", "message_update:toolcall_end",
                     "tool_execution_end:read:false", "message_end:toolResult", "turn_end:1",
                     "message_update:text_delta", "message_end:assistant:stop", "agent_settled:false"])
      assert.ok(ref.includes(t), `pi's stream has ${t}: ${ref.join(" ")}`);
    assert.deepEqual(normalise(sepp.prompt), normalise(pi.prompt));
    assert.deepEqual(normalise(sepp.prompt2), normalise(pi.prompt2));
    // The responses.
    assert.deepEqual(sepp.accepted.data, pi.accepted.data);
    for (const k of ["isStreaming", "isCompacting", "messageCount", "pendingMessageCount", "thinkingLevel"])
      assert.deepEqual(sepp.state.data[k], pi.state.data[k], `get_state.${k}`);
    for (const k of ["id", "api", "contextWindow", "maxTokens", "reasoning", "input", "cost"])
      assert.ok(k in sepp.state.data.model, `get_state.model.${k}`);
    assert.deepEqual(roles(sepp.messages.data.messages), roles(pi.messages.data.messages));
    assert.deepEqual(sepp.last.data, pi.last.data);
    assert.deepEqual(sepp.unknown, pi.unknown);  // same error text, id echoed
    assert.deepEqual({ ...sepp.parse, error: "" }, { ...pi.parse, error: "" });
    assert.equal(sepp.parse.id, undefined);
    assert.deepEqual(sepp.clear.data, pi.clear.data);
    for (const k of ["userMessages", "assistantMessages", "toolCalls", "toolResults"])
      assert.equal(sepp.stats.data[k], pi.stats.data[k], `get_session_stats.${k}`);
    // pi counts its system message too.
    const piSystem = pi.messages.data.messages.filter((m) => m.role === "system").length;
    assert.equal(sepp.stats.data.totalMessages, pi.stats.data.totalMessages - piSystem);
    assert.deepEqual(keys(sepp.stats.data.tokens), keys(pi.stats.data.tokens));
    // The model saw the same conversation: user, tool call, tool result, ...
    const shape = (reqs) => reqs.map((r) => (r.body.messages ?? []).filter((m) => m.role !== "system")
                                                               .map((m) => m.role));
    assert.deepEqual(shape(sepp.requests), shape(pi.requests));
    assert.equal(sepp.exit, 0);
    assert.equal(pi.exit, 0);
  } finally {
    fake.stop();
  }
});

// Abort in the middle of a streamed answer, then go on.
async function driveAbort(client) {
  const out = {};
  const from = client.records.length;
  await client.request({ id: "p", type: "prompt", message: "write a lot" });
  await client.waitFor((r) => r.type === "message_update" && r.assistantMessageEvent?.type === "text_delta", from);
  out.abort = await client.request({ id: "a", type: "abort" });
  const end = await client.waitFor((r) => r.type === "agent_settled", from);
  out.aborted = client.records.slice(from, end + 1);
  const from2 = client.records.length;
  await client.request({ id: "p2", type: "prompt", message: "go on" });
  const end2 = await client.waitFor((r) => r.type === "agent_settled", from2);
  out.after = client.records.slice(from2, end2 + 1);
  out.messages = await client.request({ id: "m", type: "get_messages" });
  out.exit = await client.close();
  return out;
}

test("pi and sepp abort a streaming answer the same way and go on after it", async () => {
  const fake = await startFake();
  try {
    const results = {};
    for (const kind of ["pi", "sepp"]) {
      const root = tempDir(`diff-abort-${kind}`);
      const cwd = join(root, "work");
      mkdirSync(cwd, { recursive: true });
      await fake.reset();
      await fake.setScript([{ text: "x".repeat(2000), chunk_delay_ms: 20 }, { text: "after the abort" }]);
      const client = kind === "pi"
        ? new RpcClient(process.execPath, [piCli, "--mode", "rpc", "--no-session"], { cwd, env: piEnv(root, fake.url) })
        : new RpcClient(seppBin, ["--rpc", "--no-session"], { cwd, env: seppEnv(root, fake.url) });
      results[kind] = await driveAbort(client);
    }
    const { pi, sepp } = results;
    const ref = normalise(pi.aborted);
    assert.ok(ref.includes("message_end:assistant:aborted") && ref.includes("agent_settled:true"), ref.join(" "));
    assert.deepEqual(normalise(sepp.aborted), ref);
    assert.deepEqual(normalise(sepp.after), normalise(pi.after));
    assert.equal(sepp.abort.success, pi.abort.success);
    const shape = (r) => r.data.messages.filter((m) => m.role !== "system").map((m) => `${m.role}:${m.stopReason ?? ""}`);
    assert.deepEqual(shape(sepp.messages), shape(pi.messages));
    assert.equal(sepp.exit, 0);
  } finally {
    fake.stop();
  }
});

// The user's own commands and the settings: bash (output, exit code,
// cancelled, truncated), abort_bash with nothing running, export_html of an
// in-memory session (both refuse), set_auto_compaction as get_state shows
// it, set_auto_retry.
async function driveBash(client) {
  const out = {};
  out.bash = await client.request({ id: "b", type: "bash", command: "echo hi; echo err >&2; exit 2" });
  out.ok = await client.request({ id: "b0", type: "bash", command: "printf 'a\\nb\\n'" });
  out.abortIdle = await client.request({ id: "ab", type: "abort_bash" });
  out.exportMem = await client.request({ id: "e", type: "export_html" });
  out.autoOff = await client.request({ id: "c", type: "set_auto_compaction", enabled: false });
  out.retryOff = await client.request({ id: "r", type: "set_auto_retry", enabled: false });
  out.state = await client.request({ id: "s", type: "get_state" });
  out.exit = await client.close();
  return out;
}

test("pi and sepp run the user's bash and take the settings the same way", async () => {
  const fake = await startFake();
  try {
    const results = {};
    for (const kind of ["pi", "sepp"]) {
      const root = tempDir(`diff-bash-${kind}`);
      const cwd = join(root, "work");
      mkdirSync(cwd, { recursive: true });
      await fake.reset();
      const client = kind === "pi"
        ? new RpcClient(process.execPath, [piCli, "--mode", "rpc", "--no-session"], { cwd, env: piEnv(root, fake.url) })
        : new RpcClient(seppBin, ["--rpc", "--no-session"], { cwd, env: seppEnv(root, fake.url) });
      results[kind] = await driveBash(client);
    }
    const { pi, sepp } = results;
    for (const k of ["success", "command", "id"]) {
      assert.equal(sepp.bash[k], pi.bash[k], `bash.${k}`);
      assert.equal(sepp.abortIdle[k], pi.abortIdle[k], `abort_bash.${k}`);
      assert.equal(sepp.exportMem[k], pi.exportMem[k], `export_html.${k}`);
      assert.equal(sepp.autoOff[k], pi.autoOff[k], `set_auto_compaction.${k}`);
      assert.equal(sepp.retryOff[k], pi.retryOff[k], `set_auto_retry.${k}`);
    }
    for (const k of ["exitCode", "cancelled", "truncated"]) {
      assert.deepEqual(sepp.bash.data[k], pi.bash.data[k], `bash.data.${k}`);
      assert.deepEqual(sepp.ok.data[k], pi.ok.data[k], `bash.data.${k}`);
    }
    assert.equal(sepp.ok.data.output, pi.ok.data.output);
    for (const r of [pi, sepp]) assert.match(r.bash.data.output, /hi\n[^]*err/);
    assert.equal(pi.exportMem.success, false);
    assert.equal(sepp.state.data.autoCompactionEnabled, pi.state.data.autoCompactionEnabled);
    assert.equal(sepp.state.data.autoCompactionEnabled, false);
    assert.equal(sepp.exit, 0);
  } finally {
    fake.stop();
  }
});
