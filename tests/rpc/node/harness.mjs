// Shared by the Node RPC tests: the fake provider as a child process, a
// JSONL RPC client for `sepp --rpc` and `pi --mode rpc`, and the
// normalisation the differential test compares.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import readline from "node:readline";

export const seppBin = process.env.SEPP_BIN;
export const fakeBin = process.env.FAKE_PROVIDER_BIN;
if (!seppBin || !fakeBin) throw new Error("set SEPP_BIN and FAKE_PROVIDER_BIN (ctest does)");
const here = dirname(fileURLToPath(import.meta.url));
export const piCli = join(here, "node_modules/@earendil-works/pi-coding-agent/dist/cli.js");
export const piAcp = join(here, "node_modules/pi-acp/dist/index.js");

export function tempDir(name) {
  return mkdtempSync(join(tmpdir(), `sepp-${name}-`));
}

export async function startFake() {
  const proc = spawn(fakeBin, ["--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = readline.createInterface({ input: proc.stdout });
  const [first] = await once(lines, "line");
  const url = first.replace(/^listening on /, "").trim();
  return {
    url,
    async setScript(responses) {
      const r = await fetch(`${url}/__script`, { method: "POST", body: JSON.stringify({ responses }) });
      if (!r.ok) throw new Error(`fake provider: ${r.status}`);
    },
    async reset() { await fetch(`${url}/__reset`, { method: "POST" }); },
    async requests() { return (await fetch(`${url}/__requests`)).json(); },
    stop() { proc.kill("SIGTERM"); },
  };
}

// Environments that point sepp (OpenAI chat API) and pi (models.json with
// an openai-completions provider) at the same fake, in their own homes.
export function seppEnv(root, url) {
  return {
    PATH: process.env.PATH, HOME: join(root, "home"), SEPP_HOME: join(root, "home", ".sepp"),
    SEPP_PROVIDER: "openai", SEPP_MODEL: "fake-model",
    OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: "test-key-not-secret",
  };
}

export function piEnv(root, url) {
  const agent = join(root, "pi-agent");
  mkdirSync(agent, { recursive: true });
  writeFileSync(join(agent, "models.json"), JSON.stringify({
    providers: { fake: { baseUrl: `${url}/v1`, api: "openai-completions", apiKey: "x",
                         models: [{ id: "fake-model" }] } },
  }));
  writeFileSync(join(agent, "settings.json"),
                JSON.stringify({ defaultProvider: "fake", defaultModel: "fake-model" }));
  return { PATH: process.env.PATH, HOME: join(root, "home"), PI_CODING_AGENT_DIR: agent, PI_OFFLINE: "1" };
}

// A JSONL client over a child's stdin/stdout, splitting on LF only.
export class RpcClient {
  constructor(cmd, args, { cwd, env }) {
    this.proc = spawn(cmd, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    this.records = [];
    this.waiters = new Set();
    this.stderr = "";
    this.proc.stderr.on("data", (d) => { this.stderr += d; });
    let buf = "";
    this.proc.stdout.setEncoding("utf8");
    this.proc.stdout.on("data", (chunk) => {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let rec;
        try { rec = JSON.parse(line); } catch { rec = { unparsable: line }; }
        this.records.push(rec);
        for (const w of this.waiters) w();
      }
    });
    this.exited = once(this.proc, "exit");
  }
  send(obj) { this.proc.stdin.write(typeof obj === "string" ? obj + "\n" : JSON.stringify(obj) + "\n"); }
  // Resolves with the index of the first record from `from` on that matches.
  async waitFor(pred, from = 0, timeoutMs = 30000) {
    const find = () => { for (let i = from; i < this.records.length; i++) if (pred(this.records[i])) return i; return -1; };
    let i = find();
    if (i >= 0) return i;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { this.waiters.delete(w); reject(new Error(`timed out; stderr: ${this.stderr.slice(-2000)}`)); }, timeoutMs);
      const w = () => { const j = find(); if (j >= 0) { clearTimeout(timer); this.waiters.delete(w); resolve(j); } };
      this.waiters.add(w);
    });
  }
  async request(obj) {
    const from = this.records.length;
    this.send(obj);
    const i = await this.waitFor((r) => r.type === "response" && r.id === obj.id, from);
    return this.records[i];
  }
  async close() {
    this.proc.stdin.end();
    const [code] = await this.exited;
    return code;
  }
}

// The differential test's view of an event stream: what a client can rely
// on, without ids, timestamps, usage numbers or chunking. Each record
// becomes a short tag; runs of the same tag collapse into one (pi and sepp
// cut streamed text and tool-call arguments into different numbers of
// deltas). pi's leading "system" message (its system prompt as a message)
// has no counterpart in sepp, which keeps the prompt out of the stream.
export function normalise(records) {
  const tags = [];
  for (const r of records) {
    let tag = r.type;
    if (r.type === "response") tag += `:${r.command}:${r.success}`;
    if (r.type === "message_update") tag += `:${r.assistantMessageEvent?.type}`;
    if (r.type === "message_start" || r.type === "message_end") {
      if (r.message?.role === "system") continue;
      tag += `:${r.message?.role}`;
      if (r.type === "message_end" && r.message?.role === "assistant") tag += `:${r.message.stopReason}`;
    }
    if (r.type.startsWith("tool_execution_")) tag += `:${r.toolName}`;
    if (r.type === "tool_execution_end") tag += `:${r.isError}`;
    if (r.type === "turn_end") tag += `:${(r.toolResults ?? []).length}`;
    if (r.type === "agent_settled") tag += `:${r.aborted}`;
    if (tags[tags.length - 1] !== tag) tags.push(tag);
  }
  return tags;
}
