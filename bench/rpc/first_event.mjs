// prompt -> response and prompt -> first event (agent_start) of `sepp --rpc`
// after an idle gap (the threads asleep, as between a user's prompts):
// medians of RUNS prompts, GAP ms apart. Usage: node bench/rpc/first_event.mjs
// (SEPP_BIN, FAKE_PROVIDER_BIN as for turns.mjs; RUNS=20, GAP=50)
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startFake, tempDir, seppEnv, RpcClient, seppBin } from "../../tests/rpc/node/harness.mjs";

const runs = Number(process.env.RUNS ?? 20), gap = Number(process.env.GAP ?? 50);
const fake = await startFake();
const root = tempDir("first");
const cwd = join(root, "work");
mkdirSync(cwd, { recursive: true });
const client = new RpcClient(seppBin, ["--rpc", "--no-session"], { cwd, env: seppEnv(root, fake.url) });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const resp = [], first = [];
try {
  await client.request({ id: "warm", type: "get_state" });
  for (let i = 0; i < runs; i++) {
    await fake.setScript([{ text: "ok" }]);
    await new Promise((r) => setTimeout(r, gap));
    const from = client.records.length;
    const t0 = process.hrtime.bigint();
    client.send({ id: `p${i}`, type: "prompt", message: `turn ${i}` });
    await client.waitFor((r) => r.type === "response", from);
    const t1 = process.hrtime.bigint();
    await client.waitFor((r) => r.type !== "response", from);
    const t2 = process.hrtime.bigint();
    await client.waitFor((r) => r.type === "agent_settled", from);
    resp.push(Number(t1 - t0) / 1e6);
    first.push(Number(t2 - t0) / 1e6);
  }
  console.log(`prompt -> response ${median(resp).toFixed(2)} ms, -> first event ${median(first).toFixed(2)} ms (median of ${runs}, ${gap} ms idle before each)`);
  await client.close();
} finally {
  fake.stop();
}
