// ACP agents side by side, one run, the same fake provider, the same
// client (@agentclientprotocol/sdk 2.4.0): sepp --acp, claude-agent-acp
// 0.23.1 and codex-acp 0.16.0. Per agent: prompt -> first session/update and
// prompt -> answer for a text-only turn (median of RUNS), and the agent's
// resident memory (its process tree) idle after session/new. Prints the
// ratios peer/sepp. Peers are installed from npm into bench/.peers/acp;
// CI does not run this.
// Usage: node bench/acp/peers.mjs [--no-peers]   (RUNS=N, BUILD=dir)
import { spawn, execFileSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { Readable, Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const build = process.env.BUILD ?? path.join(root, "build");
const cache = path.join(root, "bench/.peers/acp");
const runs = Number(process.env.RUNS ?? 20);
const peers = !process.argv.includes("--no-peers");
if (!fs.existsSync(path.join(cache, "node_modules/@agentclientprotocol/sdk"))) {
  fs.mkdirSync(cache, { recursive: true });
  const pkgs = ["@agentclientprotocol/sdk@2.4.0"];
  if (peers) pkgs.push("@zed-industries/claude-agent-acp@0.23.1", "@zed-industries/codex-acp@0.16.0");
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--silent", "--prefix", cache, ...pkgs], { stdio: "inherit" });
}
const acp = await import(pathToFileURL(path.join(cache, "node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js")));

const work = fs.mkdtempSync(path.join(os.tmpdir(), "sepp-bench-acp-"));
const home = path.join(work, "home");
const cwd = path.join(work, "ws");
fs.mkdirSync(path.join(home, ".codex"), { recursive: true });
fs.mkdirSync(cwd);

const fake = spawn(path.join(build, "fake-provider"), ["--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
const [first] = await once(readline.createInterface({ input: fake.stdout }), "line");
const url = first.replace(/^listening on /, "").trim();
const setScript = async (responses) =>
  (await fetch(`${url}/__script`, { method: "POST", body: JSON.stringify({ responses }) })).ok;

fs.writeFileSync(path.join(home, ".codex/config.toml"), `model = "gpt-5"
model_provider = "fake"
[model_providers.fake]
name = "fake"
base_url = "${url}/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
`);
const base = { PATH: process.env.PATH, HOME: home, TMPDIR: work };
const agents = {
  sepp: { cmd: path.join(build, "sepp"), args: ["--acp"],
    env: { ...base, SEPP_HOME: path.join(home, ".sepp"), ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "bench-key" } },
};
if (peers) {
  agents.claude = { cmd: path.join(cache, "node_modules/.bin/claude-agent-acp"), args: [],
    env: { ...base, ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "bench-key", IS_SANDBOX: "1", DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" } };
  agents.codex = { cmd: path.join(cache, "node_modules/.bin/codex-acp"), args: [],
    env: { ...base, CODEX_HOME: path.join(home, ".codex"), OPENAI_API_KEY: "bench-key" } };
}

function treeRssKb(pid) {
  let total = 0;
  const kids = (p) => { try { return fs.readFileSync(`/proc/${p}/task/${p}/children`, "utf8").trim().split(/\s+/).filter(Boolean); } catch { return []; } };
  const walk = (p) => {
    try { total += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, "utf8"))[1]); } catch {}
    for (const k of kids(p)) walk(k);
  };
  walk(pid);
  return total;
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

async function measure(name, a) {
  const child = spawn(a.cmd, a.args, { cwd, env: a.env, stdio: ["pipe", "pipe", "ignore"] });
  let onUpdate = () => {};
  const app = acp.client({ name: "bench" })
    .onNotification(acp.methods.client.session.update, () => onUpdate())
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) =>
      ({ outcome: { outcome: "selected", optionId: params.options[0].optionId } }));
  const conn = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
  const ctx = conn.agent;
  try {
    await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
    const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    await new Promise((r) => setTimeout(r, 1000));  // let start-up work settle before reading RSS
    const rss = treeRssKb(child.pid);
    await setScript(Array.from({ length: runs + 2 }, () => ({ text: "hello" })));
    const firsts = [], totals = [];
    for (let i = 0; i < runs + 2; ++i) {
      let firstAt = 0;
      const start = performance.now();
      onUpdate = () => { if (!firstAt) firstAt = performance.now(); };
      await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
      if (i < 2) continue;  // warm-up
      firsts.push((firstAt || performance.now()) - start);
      totals.push(performance.now() - start);
    }
    return { name, first: median(firsts), total: median(totals), rss };
  } finally {
    conn.close();
    child.kill("SIGTERM");
  }
}

const results = [];
try {
  for (const [name, a] of Object.entries(agents)) {
    try {
      results.push(await measure(name, a));
    } catch (e) {
      console.error(`${name}: ${e.message ?? e}`);
    }
  }
} finally {
  fake.kill("SIGTERM");
}
const s = results.find((r) => r.name === "sepp");
console.log(`${"agent".padEnd(8)} ${"first update".padStart(13)} ${"turn".padStart(10)} ${"idle RSS".padStart(10)}   ratio to sepp (first / turn / RSS)`);
for (const r of results)
  console.log(`${r.name.padEnd(8)} ${r.first.toFixed(2).padStart(10)} ms ${r.total.toFixed(2).padStart(7)} ms ${(r.rss / 1024).toFixed(1).padStart(7)} MB` +
    (s ? `   ${(r.first / s.first).toFixed(1)}x / ${(r.total / s.total).toFixed(1)}x / ${(r.rss / s.rss).toFixed(1)}x` : ""));
fs.rmSync(work, { recursive: true, force: true });
