// The client the MCP conformance suite drives: `sepp mcp probe` against the
// scenario's server URL (the suite appends it), with what each scenario
// needs from a real client's configuration (or a user): a tool to call, a pre-registered
// OAuth client, a client ID metadata document URL. The sign-in's browser is
// curl following the authorization server's redirect to sepp's loopback
// port (BROWSER), and SEPP_HOME is a fresh folder, so no token of one
// scenario or of the user reaches another.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
const sepp = process.env.SEPP_BIN;
if (!sepp) {
  console.error("sepp_client.mjs: set SEPP_BIN to the sepp binary");
  process.exit(2);
}

const args = ["mcp", "probe"];
const env = { ...process.env, BROWSER: "curl -fsS -L -o /dev/null" };
if (scenario === "tools_call") args.push("--call", "add_numbers", "--args", '{"a":5,"b":3}');
if (scenario === "elicitation-sep1034-client-defaults")
  args.push("--call", "test_client_elicitation_defaults", "--elicitation", "defaults");
if (scenario === "auth/scope-step-up" || scenario === "auth/scope-retry-limit") args.push("--call", "test-tool");
// The tool whose answer comes on a resumed stream (GET with Last-Event-ID).
if (scenario === "sse-retry") args.push("--call", "test_reconnection");
if (scenario === "auth/basic-cimd")
  args.push("--oauth-client-metadata-url", "https://conformance-test.local/client-metadata.json");
if (scenario === "auth/pre-registration") {
  args.push("--oauth-client-id", context.client_id, "--oauth-client-secret-env", "CONFORMANCE_CLIENT_SECRET");
  env.CONFORMANCE_CLIENT_SECRET = context.client_secret;
}
args.push(url);

const home = mkdtempSync(join(tmpdir(), "sepp-conformance-"));
env.SEPP_HOME = home;
const r = spawnSync(sepp, args, { env, stdio: "inherit" });
rmSync(home, { recursive: true, force: true });
process.exit(r.status ?? 1);
