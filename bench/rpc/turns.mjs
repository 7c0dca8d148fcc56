// Runs N turns of one kind through `sepp --rpc` or `sepp --acp` against the
// C++ fake provider and exits: the driver for profiling one turn (callgrind,
// perf), where a wrapper command runs sepp. The cost of a turn is the
// difference between a run of N turns and a run of 0 (start-up, one query,
// exit), divided by N: load-independent with callgrind's instruction counts.
//   node bench/rpc/turns.mjs rpc|acp text|tool N [--session]
// Environment: SEPP_BIN, FAKE_PROVIDER_BIN (bench/rpc/callgrind.sh sets them),
// SEPP_WRAP (a command line put before sepp, split on spaces).
// Tool turns read a small file; the read runs in the session sandbox's tool
// worker (a separate process) unless SEPP_SANDBOX=off.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFake, tempDir, seppEnv, RpcClient, seppBin } from "../../tests/rpc/node/harness.mjs";

const [mode, kind, count, ...rest] = process.argv.slice(2);
const n = Number(count);
if (!["rpc", "acp"].includes(mode) || !["text", "tool"].includes(kind) || !(n >= 0))
  throw new Error("usage: turns.mjs rpc|acp text|tool N [--session]");
const session = rest.includes("--session");
const wrap = (process.env.SEPP_WRAP ?? "").split(" ").filter(Boolean);
const script = kind === "text"
  ? [{ text: "ok" }]
  : [{ tool_calls: [{ name: "read", arguments: { path: "notes.txt" } }] }, { text: "ok" }];

const fake = await startFake();
const root = tempDir("turns");
const cwd = join(root, "work");
mkdirSync(cwd, { recursive: true });
writeFileSync(join(cwd, "notes.txt"), "hello\n");
const args = [...wrap, seppBin, mode === "rpc" ? "--rpc" : "--acp"];
if (mode === "rpc" && !session) args.push("--no-session");
if (process.env.SEPP_SANDBOX === "off") args.push("--sandbox", "off");
const client = new RpcClient(args[0], args.slice(1), { cwd, env: seppEnv(root, fake.url) });
const timeout = 600000;  // valgrind is slow
try {
  if (mode === "rpc") {
    await client.request({ id: "warm", type: "get_state" });
    for (let i = 0; i < n; i++) {
      await fake.setScript(script);
      const from = client.records.length;
      client.send({ type: "prompt", message: `turn ${i}` });
      await client.waitFor((r) => r.type === "agent_settled", from, timeout);
    }
  } else {
    let id = 0;
    const call = async (method, params) => {
      const from = client.records.length;
      const my = ++id;
      client.send({ jsonrpc: "2.0", id: my, method, params });
      const i = await client.waitFor((r) => r.id === my && !r.method, from, timeout);
      if (client.records[i].error) throw new Error(JSON.stringify(client.records[i].error));
      return client.records[i].result;
    };
    await call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await call("session/new", { cwd, mcpServers: [] });
    for (let i = 0; i < n; i++) {
      await fake.setScript(script);
      await call("session/prompt", { sessionId, prompt: [{ type: "text", text: `turn ${i}` }] });
    }
  }
  // TURNS_DUMP=1: the records read (for checking what a turn sent);
  // TURNS_STAT=1: the agent process's user and system CPU (ms, its threads,
  // not its children) before it exits.
  if (process.env.TURNS_DUMP) for (const r of client.records) console.log(JSON.stringify(r).slice(0, 300));
  if (process.env.TURNS_STAT) {
    const f = readFileSync(`/proc/${client.proc.pid}/stat`, "utf8").split(") ")[1].split(" ");
    console.log(`user ${Number(f[11]) * 10} ms, system ${Number(f[12]) * 10} ms`);
  }
  await client.close();
} finally {
  fake.stop();
}
