// Drives one ACP connection of a running `sepp serve` (or sandbox-agent):
// initialize, session/new, one SSE subscriber on the stream, then PROMPTS
// session/prompt requests one after another on a kept-alive connection.
// Prints one JSON line: the round trips' p50/p90/fastest (ms) and the SSE
// frames seen. For trace.sh, which runs the server under strace or perf.
// Usage: node prompt_driver.mjs PORT PROMPTS [AGENT]   (AGENT: sepp | mock)
import http from "node:http";

const [port, prompts, agent = "sepp"] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]];
const id = "trace";
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
await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } }, `?agent=${agent}`);
const created = JSON.parse((await post({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: process.cwd(), mcpServers: [] } })).body);
const sid = created.result?.sessionId ?? "mock";
let frames = 0;
const sub = http.request({ host: "127.0.0.1", port, path: `/v1/acp/${id}`, agent: false, headers: { Accept: "text/event-stream" } }, (res) => {
  let rest = "";
  res.on("data", (d) => {
    rest += d;
    const parts = rest.split("\n\n");
    rest = parts.pop();
    for (const p of parts) if (p.startsWith("event: message")) frames++;
  });
});
sub.on("error", () => {});
sub.end();
await new Promise((r) => setTimeout(r, 200));
const times = [];
for (let i = 0; i < prompts; ++i) {
  const t0 = process.hrtime.bigint();
  const res = await post({ jsonrpc: "2.0", id: 10 + i, method: "session/prompt", params: { sessionId: sid, prompt: [{ type: "text", text: "hi" }] } });
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (res.status !== 200) throw new Error(`prompt ${res.status} ${res.body}`);
}
await new Promise((r) => setTimeout(r, 200));
sub.destroy();
const sorted = [...times].sort((a, b) => a - b);
const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
console.log(JSON.stringify({ prompts, p50: at(0.5), p90: at(0.9), fastest: sorted[0], frames }));
process.exit(0);
