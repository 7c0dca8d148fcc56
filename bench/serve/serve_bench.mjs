// sepp serve side by side with sandbox-agent 0.4.2 (the npm binary that
// tests/acp/node installs), one run, both bound to 127.0.0.1:
//   cold start   spawn -> first 200 {"status":"ok"} on /v1/health (median of RUNS)
//   idle RSS     VmRSS of the server 1 s after it became healthy
//   throughput   wrk -t2 -c50 -d${SECS}s on /v1/health (req/s), with the
//                server pinned to CPU 0 and wrk to CPU 1 (taskset), so the
//                two do not fight for the same core: a server started
//                for this alone, `taskset -c 0 <server>` (every thread on
//                CPU 0, so a runtime that sizes its pool by the CPUs it may
//                use sees one), and `taskset -c 1 wrk`. Unpinned when the
//                machine has one CPU or taskset is missing (said in the output)
//   ACP round trip  POST session/prompt written -> its 200 response read, on
//                a kept-alive connection, sequential, p50/p90/fastest, with
//                an SSE subscriber on GET /v1/acp/{id} receiving the turn's
//                session/update notifications; the two servers' prompts
//                alternate (sepp: its in-process agent, a text turn from the
//                fake provider; sandbox-agent: its built-in mock agent)
//   CPU per prompt  the server's (and its children's) on-CPU time over the
//                prompts / their number
//   "sepp (cached reply)": the same server and agent, its model answering
//                from a cassette in memory (`sepp serve --replay FILE
//                --replay-mode lenient`, recorded first with `sepp --acp
//                --record` against the fake): the agent's whole turn without
//                a model call over the network, the like-for-like match of
//                sandbox-agent's mock, which echoes without a model
//   and, as a reference, the same sepp turn without the server: `sepp --acp`
//   on pipes, its prompts alternating with the servers'
// Prints a table and the ratios. Needs wrk (apt-get install wrk).
// Usage: node bench/serve/serve_bench.mjs   (RUNS=N SECS=N BUILD=dir)
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const build = process.env.BUILD ?? path.join(root, "build");
const runs = Number(process.env.RUNS ?? 10);
const secs = Number(process.env.SECS ?? 5);
const prompts = Number(process.env.PROMPTS ?? 300);
const seppBin = path.join(build, "sepp");
const fakeBin = path.join(build, "fake-provider");
const saBin = path.join(root, "tests/acp/node/node_modules/@sandbox-agent/cli-linux-x64/bin/sandbox-agent");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "sepp-serve-bench-"));
process.on("exit", () => fs.rmSync(work, { recursive: true, force: true }));

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}
// One health probe on a fresh connection; true when it answered ok.
function probe(port) {
  return new Promise((resolve) => {
    const req = http.request({ host: "127.0.0.1", port, path: "/v1/health", agent: false }, (res) => {
      let d = "";
      res.on("data", (c) => { d += c; });
      res.on("end", () => resolve(res.statusCode === 200 && d === '{"status":"ok"}'));
    });
    req.on("error", () => resolve(false));
    req.end();
  });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const rssMb = (pid) => Number(fs.readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]) / 1024;

const fake = spawn(fakeBin, ["--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
const fakeUrl = await new Promise((resolve) => fake.stdout.once("data", (d) => resolve(String(d).replace(/^listening on /, "").trim())));
await fetch(`${fakeUrl}/__script`, { method: "POST", body: JSON.stringify({ responses: Array(3 * prompts + 20).fill({ text: "ok" }) }) });

// `taskset -c CPU bin args` when cpu is given: taskset sets the mask and
// execs the server (the same pid), so every thread it ever starts is on CPU.
const spawnOn = (cpu, bin, args, opts) =>
  cpu === undefined ? spawn(bin, args, opts) : spawn("taskset", ["-c", String(cpu), bin, ...args], opts);
const servers = {
  sepp: (port, cpu) => {
    const home = path.join(work, "sepp-home");
    fs.mkdirSync(home, { recursive: true });
    return spawnOn(cpu, seppBin, ["serve", "--no-token", "--port", String(port)], {
      cwd: work, stdio: "ignore",
      env: { PATH: process.env.PATH, HOME: home, SEPP_HOME: home, ANTHROPIC_BASE_URL: fakeUrl, ANTHROPIC_API_KEY: "bench-key" },
    });
  },
  "sandbox-agent": (port, cpu) => {
    const home = path.join(work, "sa-home");
    fs.mkdirSync(home, { recursive: true });
    return spawnOn(cpu, saBin, ["server", "--no-token", "--no-telemetry", "--host", "127.0.0.1", "--port", String(port)], {
      stdio: "ignore",
      env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: path.join(home, ".local/share"), SANDBOX_AGENT_LOG_HTTP: "0" },
    });
  },
};
if (!fs.existsSync(saBin)) { console.error("sandbox-agent is not installed: run scripts/setup"); delete servers["sandbox-agent"]; }
else execFileSync(saBin, ["install-agent", "mock"], { env: { PATH: process.env.PATH, HOME: path.join(work, "sa-home"), XDG_DATA_HOME: path.join(work, "sa-home/.local/share") }, stdio: "ignore" });

// Pinning for the throughput measure: the server on CPU 0, wrk on CPU 1.
const pin = os.cpus().length >= 2 && (() => { try { execFileSync("taskset", ["-c", "0", "true"]); return true; } catch { return false; } })();
async function startHealthy(name, cpu) {
  const port = await freePort();
  const t0 = process.hrtime.bigint();
  const proc = servers[name](port, cpu);

  while (!(await probe(port))) { /* poll as fast as the loop goes */ }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { proc, port, ms };
}
async function stop(proc) {
  proc.kill("SIGTERM");
  await new Promise((r) => proc.once("exit", r));
}

// CPU time (ms) of a process and all its descendants, every thread:
// the sum of /proc/PID/task/*/schedstat's first field.
function descendants(pid) {
  const kids = new Map();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(d));
    } catch { /* gone */ }
  }
  const all = [pid];
  for (let i = 0; i < all.length; ++i) all.push(...(kids.get(all[i]) ?? []));
  return all;
}
function cpuMs(pids) {
  let ns = 0;
  for (const pid of pids) {
    let tasks = [];
    try { tasks = fs.readdirSync(`/proc/${pid}/task`); } catch { continue; }
    for (const t of tasks) {
      try { ns += Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]); } catch { /* gone */ }
    }
  }
  return ns / 1e6;
}

// One SSE subscriber on GET /v1/acp/{id}: counts the `event: message`
// frames as they arrive.
function subscribe(port, id) {
  const sub = { frames: 0, req: null };
  sub.req = http.request({ host: "127.0.0.1", port, path: `/v1/acp/${id}`, agent: false,
    headers: { Accept: "text/event-stream" } }, (res) => {
    let rest = "";
    res.on("data", (d) => {
      rest += d;
      const parts = rest.split("\n\n");
      rest = parts.pop();
      for (const p of parts) if (p.startsWith("event: message")) sub.frames++;
    });
  });
  sub.req.on("error", () => {});
  sub.req.end();
  return sub;
}

const results = {};
const live = {};
for (const name of Object.keys(servers)) {
  const r = (results[name] = {});
  const starts = [];
  for (let i = 0; i < runs; ++i) {
    const s = await startHealthy(name);
    starts.push(s.ms);
    await stop(s.proc);
  }
  r.coldMs = median(starts);
  r.coldMinMs = Math.min(...starts);
  {
    // Throughput on a server of its own, pinned apart from wrk.
    const h = await startHealthy(name, pin ? 0 : undefined);
    const wrk = ["-t2", "-c50", `-d${secs}s`, `http://127.0.0.1:${h.port}/v1/health`];
    try {
      // The server's CPU per request as well: under load the req/s measure
      // the other builds on CPU 0, the CPU a request costs much less so.
      const c0 = cpuMs([h.proc.pid]);
      const out = pin ? execFileSync("taskset", ["-c", "1", "wrk", ...wrk], { encoding: "utf8" })
                      : execFileSync("wrk", wrk, { encoding: "utf8" });
      const used = cpuMs([h.proc.pid]) - c0;
      r.healthRps = Number(out.match(/Requests\/sec:\s+([\d.]+)/)[1]);
      r.healthCpuUs = (used * 1000) / Number(out.match(/(\d+) requests in/)[1]);
    } catch {
      r.healthRps = NaN;  // wrk missing
    }
    await stop(h.proc);
  }
  const s = await startHealthy(name);
  await new Promise((res) => setTimeout(res, 1000));
  r.idleRssMb = rssMb(s.proc.pid);
  live[name] = s;
}

// A `sepp --acp` over stdio: initialize, session/new; call(msg) -> its answer.
async function stdioAgent(home, extraArgs = [], env = {}) {
  fs.mkdirSync(home, { recursive: true });
  const a = { times: [], cpu: 0 };
  a.proc = spawn(seppBin, ["--acp", ...extraArgs], { cwd: work, stdio: ["pipe", "pipe", "ignore"],
    env: { PATH: process.env.PATH, HOME: home, SEPP_HOME: home, ANTHROPIC_BASE_URL: fakeUrl, ANTHROPIC_API_KEY: "bench-key", ...env } });
  let rest = "";
  const waiting = new Map();
  a.proc.stdout.on("data", (d) => {
    rest += d;
    let nl;
    while ((nl = rest.indexOf("\n")) >= 0) {
      const m = JSON.parse(rest.slice(0, nl));
      rest = rest.slice(nl + 1);
      if (m.id !== undefined && !m.method && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
    }
  });
  a.call = (msg) => new Promise((resolve) => { waiting.set(msg.id, resolve); a.proc.stdin.write(JSON.stringify(msg) + "\n"); });
  await a.call({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } });
  a.sid = (await a.call({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: work, mcpServers: [] } })).result.sessionId;
  return a;
}

// The cassette for "sepp (cached reply)": the same prompts, recorded once
// against the fake (untimed), then answered from memory.
const cassette = path.join(work, "prompts.cassette");
{
  const rec = await stdioAgent(path.join(work, "sepp-record-home"), ["--record", cassette]);
  for (let i = 0; i < prompts + 5; ++i)
    await rec.call({ jsonrpc: "2.0", id: 10 + i, method: "session/prompt", params: { sessionId: rec.sid, prompt: [{ type: "text", text: "hi" }] } });
  rec.proc.stdin.end();
  await new Promise((r) => rec.proc.once("exit", r));
}
servers["sepp (cached reply)"] = (port, cpu) => {
  const home = path.join(work, "sepp-replay-home");
  fs.mkdirSync(home, { recursive: true });
  return spawnOn(cpu, seppBin, ["serve", "--no-token", "--port", String(port), "--replay", cassette, "--replay-mode", "lenient"], {
    cwd: work, stdio: "ignore", env: { PATH: process.env.PATH, HOME: home, SEPP_HOME: home },
  });
};
results["sepp (cached reply)"] = {};
live["sepp (cached reply)"] = await startHealthy("sepp (cached reply)");

// ACP: on each server initialize, session/new and an SSE subscriber on the
// stream, then the prompts, alternating between the servers (prompt i on
// each before prompt i+1 on either), so a change in the machine's load
// falls on both. Timed: POST session/prompt written -> its 200 response
// read, on a kept-alive connection, while the turn's session/update
// notifications go out on the SSE stream.
const id = "bench";
const acp = {};
for (const name of Object.keys(live)) {
  const port = live[name].port;
  const agentId = name.startsWith("sepp") ? "sepp" : "mock";
  const keep = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (msg, q = "") => new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method: "POST", path: `/v1/acp/${id}${q}`, agent: keep,
      headers: { "Content-Type": "application/json" } }, (res) => {
      let data = "";
      res.on("data", (d) => { data += d; });
      res.on("end", () => resolve({ status: res.statusCode, body: data }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(msg));
  });
  await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } }, `?agent=${agentId}`);
  const created = JSON.parse((await post({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: work, mcpServers: [] } })).body);
  const sub = subscribe(port, id);
  acp[name] = { post, sid: created.result?.sessionId ?? "mock", sub, times: [], cpu: 0, before: 0 };
}
// The same agent and turn without the server: `sepp --acp` on pipes, so
// what the server adds shows (its prompts alternate with the servers').
const stdio = await stdioAgent(path.join(work, "sepp-stdio-home"));
await new Promise((res) => setTimeout(res, 300));  // the subscribers are connected
for (const name of Object.keys(acp)) acp[name].before = acp[name].sub.frames;
for (let i = 0; i < prompts; ++i) {
  for (const name of Object.keys(acp)) {
    const a = acp[name];
    const pids = descendants(live[name].proc.pid);
    const c0 = cpuMs(pids);
    const t0 = process.hrtime.bigint();
    const res = await a.post({ jsonrpc: "2.0", id: 10 + i, method: "session/prompt", params: { sessionId: a.sid, prompt: [{ type: "text", text: "hi" }] } });
    a.times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    a.cpu += cpuMs(pids) - c0;
    if (res.status !== 200) throw new Error(`${name}: prompt ${res.status} ${res.body}`);
  }
  const c0 = cpuMs([stdio.proc.pid]);
  const t0 = process.hrtime.bigint();
  const res = await stdio.call({ jsonrpc: "2.0", id: 10 + i, method: "session/prompt", params: { sessionId: stdio.sid, prompt: [{ type: "text", text: "hi" }] } });
  stdio.times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  stdio.cpu += cpuMs([stdio.proc.pid]) - c0;
  if (!res.result) throw new Error(`sepp --acp: prompt ${JSON.stringify(res)}`);
}
stdio.proc.stdin.end();
await new Promise((res) => setTimeout(res, 300));  // the last frames arrive
for (const name of Object.keys(acp)) {
  const r = results[name], a = acp[name], s = live[name];
  r.promptP50 = median(a.times);
  r.promptP90 = pct(a.times, 0.9);
  r.promptMin = Math.min(...a.times);
  r.cpuPerPrompt = a.cpu / prompts;
  r.framesPerPrompt = (a.sub.frames - a.before) / prompts;
  r.rssAfterMb = rssMb(s.proc.pid);
  a.sub.req.destroy();
  // sandbox-agent 0.4.2's DELETE hangs until its agent exits: give up at
  // 2 s as its SDK does (a fresh connection, so the hang does not matter).
  r.deleteStatus = await fetch(`http://127.0.0.1:${s.port}/v1/acp/${id}`, { method: "DELETE", signal: AbortSignal.timeout(2000) })
    .then((x) => x.status, () => "hung (gave up at 2 s)");
  await stop(s.proc);
}
fake.kill("SIGTERM");

const names = Object.keys(results);
const row = (label, key, digits) =>
  `| ${label} | ${names.map((n) => (results[n][key] === undefined ? "" : results[n][key].toFixed(digits))).join(" | ")} |`;
console.log(`| measure | ${names.join(" | ")} |`);
console.log(`|---|${names.map(() => "---").join("|")}|`);
console.log(row("cold start to first healthy /v1/health, ms (median)", "coldMs", 1));
console.log(row("cold start, ms (fastest)", "coldMinMs", 1));
console.log(row("idle RSS, MB", "idleRssMb", 1));
console.log(row(`/v1/health req/s (wrk -t2 -c50 -d${secs}s${pin ? "; server on CPU 0, wrk on CPU 1" : ", unpinned"})`, "healthRps", 0));
console.log(row("server CPU per /v1/health request (all threads), us", "healthCpuUs", 2));
console.log(row("ACP session/prompt round trip p50, ms", "promptP50", 3));
console.log(row("ACP session/prompt round trip p90, ms", "promptP90", 3));
console.log(row("ACP session/prompt round trip fastest, ms", "promptMin", 3));
console.log(row("server CPU per prompt (all threads and children), ms", "cpuPerPrompt", 3));
console.log(row("SSE frames per prompt", "framesPerPrompt", 1));
console.log(row(`RSS after ${prompts} prompts, MB`, "rssAfterMb", 1));
console.log(`| DELETE /v1/acp/{id} after the run | ${names.map((n) => results[n].deleteStatus).join(" | ")} |`);
console.log(`\nthe same turn without the server (sepp --acp on pipes, prompt written -> its answer read): ` +
  `p50 ${median(stdio.times).toFixed(3)} ms, p90 ${pct(stdio.times, 0.9).toFixed(3)} ms, fastest ${Math.min(...stdio.times).toFixed(3)} ms, ` +
  `CPU per prompt ${(stdio.cpu / prompts).toFixed(3)} ms`);
console.log(`\nload average during the run: ${os.loadavg().map((x) => x.toFixed(1)).join(" ")} on ${os.cpus().length} CPUs`);
if (results["sandbox-agent"]) {
  const a = results.sepp, b = results["sandbox-agent"];
  console.log(`\nratios (sandbox-agent / sepp): cold start ${(b.coldMs / a.coldMs).toFixed(1)}x, ` +
    `idle RSS ${(b.idleRssMb / a.idleRssMb).toFixed(2)}x, health req/s sepp/sa ${(a.healthRps / b.healthRps).toFixed(2)}x, ` +
    `health CPU per request sa/sepp ${(b.healthCpuUs / a.healthCpuUs).toFixed(2)}x, ` +
    `prompt p50 ${(b.promptP50 / a.promptP50).toFixed(2)}x, ` +
    `prompt p50 with a cached reply ${(b.promptP50 / results["sepp (cached reply)"].promptP50).toFixed(2)}x`);
}
process.exit(0);
