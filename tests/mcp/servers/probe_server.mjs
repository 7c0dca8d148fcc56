// A small MCP server (newline-delimited JSON-RPC on stdio, no SDK) whose
// tools try what a confined server must or must not be able to do, and
// whose modes misbehave on purpose (tests/mcp/mcp_client_test.cc).
//
//   node probe_server.mjs [MODE]
//   MODE: normal (default) | huge | junk | out-of-order | old-version | bad-version | crash
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import readline from 'node:readline';

const mode = process.argv[2] || 'normal';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const text = (t, isError = false) => ({ content: [{ type: 'text', text: String(t) }], isError });

const tools = [
  { name: 'read', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'write', description: 'Write a file', inputSchema: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } } } },
  { name: 'run', description: 'Run a program', inputSchema: { type: 'object', properties: { program: { type: 'string' }, args: { type: 'array' } } } },
  { name: 'connect', description: 'Open a TCP connection', inputSchema: { type: 'object', properties: { host: { type: 'string' }, port: { type: 'number' } } } },
  { name: 'env', description: 'Read an environment variable', inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
  { name: 'slow', description: 'Answer after progress notifications', inputSchema: { type: 'object', properties: { steps: { type: 'number' } } } },
  { name: 'hang', description: 'Never answer', inputSchema: { type: 'object' } },
  { name: 'structured', description: 'Structured content only', inputSchema: { type: 'object' } },
  { name: 'change_tools', description: 'Remove "hang" and say so', inputSchema: { type: 'object' } },
  { name: 'add_late', description: 'Add the tool "late" and the prompt "late", and say so', inputSchema: { type: 'object' } },
];
const late = { name: 'late', description: 'A tool added while running', inputSchema: { type: 'object' } };
let offered = tools;
let prompts = [
  { name: 'greet', description: 'Greet someone', arguments: [{ name: 'who', description: 'whom to greet', required: true }, { name: 'how' }] },
];
const cancelled = [];

function tryIt(f) {
  try { return text(f()); } catch (e) { return text(`${e.code || ''} ${e.message}`, true); }
}

async function call(name, a) {
  switch (name) {
    case 'read': return tryIt(() => fs.readFileSync(a.path, 'utf8'));
    case 'write': return tryIt(() => { fs.writeFileSync(a.path, a.text ?? 'x'); return 'wrote ' + a.path; });
    case 'run': return tryIt(() => execFileSync(a.program, a.args || [], { encoding: 'utf8' }));
    case 'env': return text(process.env[a.name] ?? '(unset)');
    case 'connect': return await new Promise((resolve) => {
      const s = net.connect({ host: a.host, port: a.port }, () => { s.destroy(); resolve(text('connected')); });
      s.on('error', (e) => resolve(text(`${e.code} ${e.message}`, true)));
      s.setTimeout(3000, () => { s.destroy(); resolve(text('ETIMEDOUT', true)); });
    });
    case 'structured': return { content: [], structuredContent: { answer: 42 } };
    case 'change_tools':
      offered = tools.filter((t) => t.name !== 'hang');
      send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      return text('changed');
    case 'add_late':
      offered = [...offered, late];
      prompts = [...prompts, { name: 'late', description: 'A prompt added while running' }];
      send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      send({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
      return text('added');
    case 'late': return text('late tool ran');
    default: return text('no such tool ' + name, true);
  }
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('close', () => process.exit(0));  // the spec's stdio shutdown: stdin closed
rl.on('line', async (line) => {
  const m = JSON.parse(line);
  if (m.method === 'notifications/cancelled') { cancelled.push(m.params.requestId); return; }
  if (m.id === undefined) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: m.id, result });
  if (m.method === 'initialize') {
    if (mode === 'huge') { process.stdout.write('{"jsonrpc":"2.0","id":' + m.id + ',"result":{"x":"' + 'a'.repeat(20 << 20) + '"}}\n'); return; }
    if (mode === 'junk') { process.stdout.write('this is not json\n{"half": \n[1,2,3]\n'); }
    if (mode === 'crash') { process.stderr.write('probe: crashing on purpose\n'); process.exit(3); }
    if (mode === 'out-of-order') {
      // A response to an id never sent, a duplicate id, then the real one.
      send({ jsonrpc: '2.0', id: 9999, result: {} });
      send({ jsonrpc: '2.0', id: 'x', result: {} });
    }
    const version = mode === 'old-version' ? '2025-03-26' : mode === 'bad-version' ? '1999-01-01' : '2025-11-25';
    reply({ protocolVersion: version, capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } }, serverInfo: { name: 'probe', version: '1' } });
    if (mode === 'out-of-order') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '1999-01-01' } });
    return;
  }
  if (m.method === 'tools/list') return reply({ tools: offered });
  if (m.method === 'prompts/list') return reply({ prompts });
  if (m.method === 'prompts/get') {
    const { name, arguments: a = {} } = m.params;
    if (name === 'greet') return reply({ messages: [
      { role: 'user', content: { type: 'text', text: `Greet ${a.who} ${a.how ?? 'warmly'}.` } },
      { role: 'assistant', content: { type: 'text', text: 'How should I sign?' } },
      { role: 'user', content: { type: 'text', text: 'As the probe.' } }] });
    if (name === 'late' && prompts.some((p) => p.name === 'late'))
      return reply({ messages: [{ role: 'user', content: { type: 'text', text: 'the late prompt' } }] });
    return send({ jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'no prompt ' + name } });
  }
  if (m.method === 'tools/call') {
    const { name, arguments: a = {} } = m.params;
    if (name === 'hang') return;
    if (name === 'slow') {
      const token = m.params._meta?.progressToken;
      for (let i = 1; i <= (a.steps || 3); i++) {
        if (token !== undefined) send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: i, total: a.steps || 3 } });
        await new Promise((r) => setTimeout(r, 5));
      }
      return reply(text('done; cancelled so far: ' + JSON.stringify(cancelled)));
    }
    return reply(await call(name, a));
  }
  if (m.method === 'ping') return reply({});
  send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no ' + m.method } });
});
