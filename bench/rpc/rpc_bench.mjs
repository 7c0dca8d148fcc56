// Per-turn harness overhead over RPC: sepp --rpc next to pi --mode rpc, in
// one run, against the same C++ fake provider (no network). For each agent:
//   first event: prompt written -> its first event record (agent_start)
//   text turn:   prompt written -> agent_settled, the model answers with text
//   tool turn:   prompt written -> agent_settled, one read call then text
//   idle RSS:    VmRSS of the agent process after start-up and one get_state
//   CPU per turn: the agent process's own on-CPU time during a turn (every
//                thread's /proc schedstat), which the fake provider's and
//                the client's time cannot enter; for the tool turn without
//                the tool worker (a separate process)
// Prints medians (ms) and pi/sepp ratios. Usage: bench/rpc/run.sh
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFake, tempDir, seppEnv, piEnv, RpcClient, seppBin, piCli } from "../../tests/rpc/node/harness.mjs";

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
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

async function bench(kind, fake) {
  const root = tempDir(`bench-${kind}`);
  const cwd = join(root, "work");
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, "notes.txt"), "hello\n");
  const client = kind === "pi"
    ? new RpcClient(process.execPath, [piCli, "--mode", "rpc", "--no-session"], { cwd, env: piEnv(root, fake.url) })
    : new RpcClient(seppBin, ["--rpc", "--no-session"], { cwd, env: seppEnv(root, fake.url) });
  await client.request({ id: "warm", type: "get_state" });
  const idle = rssKb(client.proc.pid);
  const first = [], text = [], tool = [], textCpu = [], toolCpu = [];
  for (let i = 0; i < runs; i++) {
    for (const [script, bucket] of [[[{ text: "ok" }], text],
                                    [[{ tool_calls: [{ name: "read", arguments: { path: "notes.txt" } }] }, { text: "ok" }], tool]]) {
      await fake.setScript(script);
      const from = client.records.length;
      const c0 = cpuNs(client.proc.pid);
      const t0 = process.hrtime.bigint();
      client.send({ type: "prompt", message: `turn ${i}` });
      await client.waitFor((r) => r.type !== "response", from);
      const t1 = process.hrtime.bigint();
      await client.waitFor((r) => r.type === "agent_settled", from);
      const t2 = process.hrtime.bigint();
      (bucket === text ? textCpu : toolCpu).push((cpuNs(client.proc.pid) - c0) / 1e6);
      if (bucket === text) first.push(Number(t1 - t0) / 1e6);
      bucket.push(Number(t2 - t0) / 1e6);
    }
  }
  await client.close();
  return { idle, first: median(first), text: median(text), tool: median(tool),
           textCpu: median(textCpu), toolCpu: median(toolCpu) };
}

const fake = await startFake();
try {
  const sepp = await bench("sepp", fake);
  const pi = await bench("pi", fake);
  const row = (name, k, unit) =>
    console.log(`${name.padEnd(28)} ${sepp[k].toFixed(2).padStart(9)} ${pi[k].toFixed(2).padStart(9)} ${(pi[k] / sepp[k]).toFixed(1).padStart(7)}x  ${unit}`);
  console.log(`${"".padEnd(28)} ${"sepp".padStart(9)} ${"pi 1.6".padStart(9)} ${"pi/sepp".padStart(8)}   (${runs} runs, medians)`);
  row("prompt -> first event", "first", "ms");
  row("turn, text answer", "text", "ms");
  row("turn, one tool call", "tool", "ms");
  row("idle RSS", "idle", "kB");
  row("CPU, text turn", "textCpu", "ms (the agent process)");
  row("CPU, tool turn", "toolCpu", "ms (without sepp's tool worker)");
} finally {
  fake.stop();
}
