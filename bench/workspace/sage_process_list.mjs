// sage's process_list as its study describes it (../shared/research/sage.md
// §3.1), written again for the benchmark: a Node script run through bash
// in the sandbox that reads /proc/<pid>/{status,cmdline,comm,cwd} of every
// process, sorts by pid, keeps maxResults and prints pretty JSON. The
// baseline bench/workspace/process_bench.cc times against process_list.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

const maxResults = Number(process.argv[2] ?? 100);
const read = (p) => { try { return readFileSync(p, "utf8"); } catch { return ""; } };
const results = [];
for (const entry of readdirSync("/proc")) {
  if (!/^\d+$/.test(entry)) continue;
  const dir = `/proc/${entry}`;
  const status = read(`${dir}/status`);
  if (!status) continue;
  const field = (k) => (status.match(new RegExp(`^${k}:\\s*(.*)$`, "m")) ?? [])[1] ?? "";
  const cmdline = read(`${dir}/cmdline`).split("\0").filter(Boolean);
  let cwd = "";
  try { cwd = readlinkSync(`${dir}/cwd`); } catch {}
  results.push({
    pid: Number(entry), ppid: Number(field("PPid")), state: field("State"),
    name: read(`${dir}/comm`).trim(), command: cmdline.join(" "), cmdline, cwd,
    userIds: field("Uid").split(/\s+/).filter(Boolean).map(Number),
    memoryKb: parseInt(field("VmRSS"), 10) || 0,
  });
}
results.sort((a, b) => a.pid - b.pid);
const shown = results.slice(0, maxResults);
console.log(JSON.stringify({ includeThreads: false, maxResults, totalMatches: results.length,
                             truncated: shown.length < results.length, results: shown }, null, 2));
