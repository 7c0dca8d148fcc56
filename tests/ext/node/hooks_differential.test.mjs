// The differential test for hooks.json: Claude Code 2.1.197 (the reference,
// pinned in package.json) and `sepp -p` run the same project hooks
// (.claude/settings.json) against the same scripted fake provider, and must
// produce the same tool calls, the same tool results and the same injected
// context. The hooks: PreToolUse denies `rm -rf` with exit 2 and rewrites
// `echo hi` (updatedInput, additionalContext); PostToolUse adds context;
// UserPromptSubmit adds context.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import readline from "node:readline";

const seppBin = process.env.SEPP_BIN;
const fakeBin = process.env.FAKE_PROVIDER_BIN;
if (!seppBin || !fakeBin) throw new Error("set SEPP_BIN and FAKE_PROVIDER_BIN (ctest does)");
const claudeBin = join(dirname(fileURLToPath(import.meta.url)), "node_modules/.bin/claude");

const PRE = `input=$(cat); case "$input" in *'rm -rf'*) echo 'blocked: destructive' >&2; exit 2;; ` +
  `*'echo hi'*) printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow",` +
  `"updatedInput":{"command":"echo rewritten-by-hook"},"additionalContext":"PRE-CTX"}}';; esac; exit 0`;
const POST = `cat >/dev/null; printf '%s' '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"POST-CTX"}}'`;
const PROMPT = `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"PROMPT-CTX"}}'`;
const SETTINGS = {
  hooks: {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: PRE }] }],
    PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: POST }] }],
    UserPromptSubmit: [{ hooks: [{ type: "command", command: PROMPT }] }],
  },
};

async function startFake() {
  const proc = spawn(fakeBin, ["--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const [first] = await once(readline.createInterface({ input: proc.stdout }), "line");
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

function run(bin, args, cwd, env) {
  return new Promise((resolve) => {
    const p = spawn(bin, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => p.kill("SIGKILL"), 120_000);
    p.on("close", (code) => { clearTimeout(timer); resolve({ code, out, err }); });
  });
}

// One agent's run: the project, the script (its own name for the bash
// tool), the requests the fake saw.
async function drive(kind, fake) {
  const root = mkdtempSync(join(tmpdir(), `sepp-hookdiff-${kind}-`));
  const ws = join(root, "ws");
  mkdirSync(join(ws, ".claude"), { recursive: true });
  mkdirSync(join(root, "home"), { recursive: true });
  writeFileSync(join(ws, ".claude", "settings.json"), JSON.stringify(SETTINGS, null, 2));
  writeFileSync(join(ws, "keep.txt"), "precious\n");
  const bash = kind === "claude" ? "Bash" : "bash";
  await fake.reset();
  await fake.setScript([
    { tool_calls: [
      { id: "toolu_a", name: bash, arguments: { command: "rm -rf keep.txt" } },
      { id: "toolu_b", name: bash, arguments: { command: "echo hi" } },
    ] },
    { text: "finished" },
  ]);
  const env = { PATH: process.env.PATH, HOME: join(root, "home"), ANTHROPIC_BASE_URL: fake.url,
                ANTHROPIC_API_KEY: "test-key-not-secret" };
  const r = kind === "claude"
    ? await run(claudeBin, ["-p", "do it", "--dangerously-skip-permissions"], ws,
                { ...env, IS_SANDBOX: "1", DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1",
                  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" })
    : await run(seppBin, ["-p", "do it", "--trust"], ws, { ...env, SEPP_HOME: join(root, "home", ".sepp") });
  return { ...r, requests: await fake.requests(), kept: existsSync(join(ws, "keep.txt")) };
}

// Every text the model was sent, block by block.
function texts(requests) {
  const out = [];
  const walk = (c) => {
    if (typeof c === "string") out.push(c);
    else if (Array.isArray(c)) c.forEach(walk);
    else if (c && typeof c === "object") {
      if (typeof c.text === "string") out.push(c.text);
      if (c.content !== undefined) walk(c.content);
    }
  };
  for (const r of requests) for (const m of r.body?.messages ?? []) walk(m.content);
  return out;
}

// What the comparison looks at: the calls, each result (without injected
// reminders), and the set of injected context lines.
function observe(run) {
  const calls = [], results = {};
  for (const r of run.requests)
    for (const m of r.body?.messages ?? []) {
      if (!Array.isArray(m.content)) continue;
      for (const b of m.content) {
        if (b.type === "tool_use" && !calls.some((c) => c.id === b.id))
          calls.push({ id: b.id, name: b.name.toLowerCase(), input: b.input });
        if (b.type === "tool_result") {
          let t = typeof b.content === "string" ? b.content : (b.content ?? []).map((x) => x.text ?? "").join("");
          t = t.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, "").trim();
          // sepp's bash always ends with the exit status, Claude's Bash only when it
          // is not 0: the tools' own formats, not the hooks', so not compared.
          t = t.replace(/\nexit code 0$/, "");
          results[b.tool_use_id] = { is_error: !!b.is_error, text: t };
        }
      }
    }
  const context = new Set();
  for (const t of texts(run.requests))
    for (const m of t.matchAll(/([A-Za-z]+(?::[A-Za-z]+)?) hook additional context: ([^\n<]*)/g))
      context.add(`${m[1]}: ${m[2].trim()}`);
  return { calls, results, context: [...context].sort() };
}

test("Claude Code and sepp run the same hooks.json to the same effect", async (t) => {
  const fake = await startFake();
  try {
    const claude = await drive("claude", fake);
    const sepp = await drive("sepp", fake);
    assert.equal(claude.code, 0, `claude failed: ${claude.err}`);
    assert.equal(sepp.code, 0, `sepp failed: ${sepp.err}`);
    const c = observe(claude), s = observe(sepp);
    t.diagnostic(`claude: ${JSON.stringify(c)}`);
    t.diagnostic(`sepp:   ${JSON.stringify(s)}`);

    // The same calls reached both (the script's), and the denied one ran in neither.
    assert.deepEqual(s.calls, c.calls);
    assert.ok(claude.kept && sepp.kept, "rm -rf was blocked in both");
    // The denied call: an error carrying the hook's stderr, in both.
    for (const o of [c, s]) {
      assert.equal(o.results.toolu_a.is_error, true);
      assert.match(o.results.toolu_a.text, /blocked: destructive/);
    }
    // The rewritten call ran the hook's command, with the same result.
    assert.deepEqual(s.results.toolu_b, c.results.toolu_b);
    assert.equal(c.results.toolu_b.text, "rewritten-by-hook");
    // The same context, in the same words.
    assert.deepEqual(s.context, c.context);
    assert.deepEqual(c.context, ["PostToolUse:Bash: POST-CTX", "PreToolUse:Bash: PRE-CTX",
                                 "UserPromptSubmit: PROMPT-CTX"]);
  } finally {
    fake.stop();
  }
});
