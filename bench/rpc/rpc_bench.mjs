// Per-turn harness overhead over RPC: sepp --rpc next to pi --mode rpc, in
// one run, against the same C++ fake provider (no network). For each agent:
//   first event: prompt written -> its first event record (agent_start)
//   text turn:   prompt written -> agent_settled, the model answers with text
//   tool turn:   prompt written -> agent_settled, one read call then text
//   idle RSS:    VmRSS of the agent process after start-up and one get_state
//   CPU per turn: the agent process's own on-CPU time during a turn (every
//                thread's /proc schedstat), which the fake provider's and
//                the client's time cannot enter; for the tool turn without
//                the tool worker (a separate process), whose own CPU for the
//                call is the row after (the processes below the agent's)
// and the same for the floor agent (floor_agent.cc: the loopback exchange
// and the pipe lines alone), whose turn no harness can beat on this machine.
// Turns are interleaved across the agents. Prints medians (ms) and ratios.
// Usage: bench/rpc/run.sh
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFake, tempDir, seppEnv, piEnv, RpcClient, seppBin, piCli } from "../../tests/rpc/node/harness.mjs";

const floorBin = process.env.FLOOR_BIN;  // bench/rpc/floor_agent.cc, when built

const runs = Number(process.env.RUNS ?? 30);

function rssKb(pid) {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/);
  return m ? Number(m[1]) : NaN;
}
// On-CPU nanoseconds of every live thread of pid (schedstat's first field).
function cpuNs(pid) {
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try { ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]); } catch {}
  }
  return ns;
}
// The same for every process below pid (sepp's tool worker in the session
// sandbox, which runs the tool calls).
function childrenCpuNs(pid) {
  let ns = 0;
  const kids = (p) => {
    const out = [];
    try {
      for (const t of readdirSync(`/proc/${p}/task`))
        out.push(...readFileSync(`/proc/${p}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean));
    } catch {}
    return out;
  };
  const walk = (p) => { for (const k of kids(p)) { ns += cpuNs(k); walk(k); } };
  walk(pid);
  return ns;
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

// One agent process and its samples.
async function start(kind, fake, floorBody) {
  const root = tempDir(`bench-${kind}`);
  const cwd = join(root, "work");
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, "notes.txt"), "hello\n");
  const client = kind === "pi"
    ? new RpcClient(process.execPath, [piCli, "--mode", "rpc", "--no-session"], { cwd, env: piEnv(root, fake.url) })
    : kind === "floor"
      ? new RpcClient(floorBin, [], { cwd, env: { ...seppEnv(root, fake.url), FLOOR_BODY: floorBody } })
      : new RpcClient(seppBin, ["--rpc", "--no-session"], { cwd, env: seppEnv(root, fake.url) });
  await client.request({ id: "warm", type: "get_state" });
  return { kind, client, idle: rssKb(client.proc.pid), first: [], text: [], tool: [], textCpu: [], toolCpu: [],
           workerCpu: [] };
}

const scripts = [["text", [{ text: "ok" }]],
                 ["tool", [{ tool_calls: [{ name: "read", arguments: { path: "notes.txt" } }] }, { text: "ok" }]]];

async function turn(a, fake, i, kind, script) {
  await fake.setScript(script);
  const { client } = a;
  const from = client.records.length;
  const c0 = cpuNs(client.proc.pid);
  const w0 = childrenCpuNs(client.proc.pid);
  const t0 = process.hrtime.bigint();
  client.send({ type: "prompt", message: `turn ${i}` });
  await client.waitFor((r) => r.type !== "response", from);
  const t1 = process.hrtime.bigint();
  await client.waitFor((r) => r.type === "agent_settled", from);
  const t2 = process.hrtime.bigint();
  a[`${kind}Cpu`].push((cpuNs(client.proc.pid) - c0) / 1e6);
  // A process that exited during the turn is not counted: sepp's worker
  // lives as long as the session.
  if (kind === "tool") a.workerCpu.push(Math.max(0, childrenCpuNs(client.proc.pid) - w0) / 1e6);
  if (kind === "text") a.first.push(Number(t1 - t0) / 1e6);
  a[kind].push(Number(t2 - t0) / 1e6);
}

const summary = (a) => ({ idle: a.idle, first: median(a.first), text: median(a.text), tool: median(a.tool),
                          textCpu: median(a.textCpu), toolCpu: median(a.toolCpu), workerCpu: median(a.workerCpu) });

const fake = await startFake();
try {
  // The floor agent sends the request sepp sent for its first text turn.
  const sepp = await start("sepp", fake);
  await turn(sepp, fake, -1, "text", scripts[0][1]);
  const sent = await fake.requests();
  const floorBody = join(tempDir("bench-floor-body"), "body.json");
  writeFileSync(floorBody, JSON.stringify(sent[sent.length - 1].body));
  sepp.first.length = sepp.text.length = sepp.textCpu.length = 0;
  const agents = [sepp, await start("pi", fake)];
  if (floorBin) agents.push(await start("floor", fake, floorBody));
  // Interleaved: every agent's turn i before anyone's turn i+1, so a change
  // in the machine's load falls on all of them alike.
  for (let i = 0; i < runs; i++)
    for (const [kind, script] of scripts)
      for (const a of agents) await turn(a, fake, i, kind, script);
  for (const a of agents) await a.client.close();
  const [s, p, f] = agents.map(summary);
  const cell = (x) => (x === undefined ? "" : x.toFixed(2)).padStart(9);
  const row = (name, k, unit) =>
    console.log(`${name.padEnd(28)} ${cell(s[k])} ${cell(p[k])} ${(p[k] / s[k]).toFixed(1).padStart(7)}x ${f ? cell(f[k]) + " " + (p[k] / f[k]).toFixed(1).padStart(7) + "x" : ""}  ${unit}`);
  console.log(`${"".padEnd(28)} ${"sepp".padStart(9)} ${"pi 1.6".padStart(9)} ${"pi/sepp".padStart(8)} ${f ? "floor".padStart(9) + " pi/floor" : ""}  (${runs} runs, interleaved, medians)`);
  row("prompt -> first event", "first", "ms");
  row("turn, text answer", "text", "ms");
  row("turn, one tool call", "tool", "ms");
  row("idle RSS", "idle", "kB");
  row("CPU, text turn", "textCpu", "ms (the agent process)");
  row("CPU, tool turn", "toolCpu", "ms (without sepp's tool worker)");
  row("CPU, tool turn's children", "workerCpu", "ms (sepp: the tool worker's read)");
} finally {
  fake.stop();
}
