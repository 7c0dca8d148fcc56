// Shared by the Node ACP tests: the fake provider as a child process, and
// `sepp --acp` behind an @agentclientprotocol/sdk client that records every
// session/update per session and answers the agent's requests.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Readable, Writable } from "node:stream";
import readline from "node:readline";
import * as acp from "@agentclientprotocol/sdk";

const seppBin = process.env.SEPP_BIN;
const fakeBin = process.env.FAKE_PROVIDER_BIN;
if (!seppBin || !fakeBin) throw new Error("set SEPP_BIN and FAKE_PROVIDER_BIN (ctest does)");

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
    async requests() {
      return (await fetch(`${url}/__requests`)).json();
    },
    stop() { proc.kill("SIGTERM"); },
  };
}

export function agentEnv({ home, baseUrl }) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    SEPP_HOME: home,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: "test-key-not-secret",
  };
}

// permission(params) answers session/request_permission (default: allow once).
// clientFs {readTextFile, writeTextFile} (each optional) answers the fs/*
// requests and offers them in initialize's clientCapabilities.fs.
export async function startAgent({ home, cwd, baseUrl, permission, clientFs = {}, args = [] }) {
  const child = spawn(seppBin, ["--acp", ...args], {
    cwd, env: agentEnv({ home, baseUrl }), stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => { stderr += d; });
  const exited = once(child, "exit");
  const updates = new Map();
  const waiters = new Set();
  const permissionRequests = [];
  const app = acp.client({ name: "sepp-acp-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (!updates.has(params.sessionId)) updates.set(params.sessionId, []);
      updates.get(params.sessionId).push(params.update);
      for (const w of waiters) w();
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      permissionRequests.push(params);
      if (permission) return permission(params);
      const allow = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
      return { outcome: { outcome: "selected", optionId: allow.optionId } };
    });
  const fsRequests = [];
  if (clientFs.readTextFile)
    app.onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      fsRequests.push({ method: "fs/read_text_file", ...params });
      return clientFs.readTextFile(params);
    });
  if (clientFs.writeTextFile)
    app.onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      fsRequests.push({ method: "fs/write_text_file", ...params });
      return clientFs.writeTextFile(params);
    });
  const connection = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
  const ctx = connection.agent;
  const list = (sid) => updates.get(sid) ?? [];
  return {
    child,
    permissionRequests,
    fsRequests,
    get stderr() { return stderr; },
    initialize: () => ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: !!clientFs.readTextFile, writeTextFile: !!clientFs.writeTextFile },
        terminal: false,
      },
      clientInfo: { name: "sepp-acp-test", version: "0" },
    }),
    request: (method, params) => ctx.request(method, params),
    notify: (method, params) => ctx.notify(method, params),
    updates: list,
    text: (sid, kind) => list(sid).filter((u) => u.sessionUpdate === kind).map((u) => u.content.text).join(""),
    // Resolves once an update of sid satisfies pred(update, index).
    waitFor(sid, pred, timeoutMs = 30000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const i = list(sid).findIndex((u, k) => pred(u, k));
          if (i < 0) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(list(sid)[i]);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching update for ${sid}; got ${JSON.stringify(list(sid).map((u) => u.sessionUpdate))}\nstderr: ${stderr}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    // Ends stdin (the agent's cue to finish) and waits for the exit code.
    async close() {
      child.stdin.end();
      const [code, signal] = await exited;
      if (code !== 0) throw new Error(`sepp --acp exited with ${code ?? signal}\nstderr: ${stderr}`);
      return code;
    },
  };
}

// The model writes `target` (outside the workspace), is refused by the
// sandbox, asks to retry with write access to it, then finishes.
export function permissionScript(target, callId = "w1") {
  return [
    { tool_calls: [{ id: callId, name: "write", arguments: { path: target, content: "written\n" } }] },
    { tool_calls: [{ id: `${callId}-retry`, name: "retry_with_access",
      arguments: { call_id: callId, write_paths: [target], justification: "the user asked for the report there" } }] },
    { text: "finished" },
  ];
}
