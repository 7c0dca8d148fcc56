// A small MCP server (newline-delimited JSON-RPC on stdio, no SDK) with one
// tool, "ask", that puts an elicitation/create to the client (the schema of
// the conformance suite's SEP-1034 scenario) and answers with the client's
// result as JSON text (tests/mcp/elicitation_test.cc).
import readline from 'node:readline';

const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
  },
  required: [],
};
const waiting = new Map();  // our request id -> the tools/call id to answer
let next = 1000;

const rl = readline.createInterface({ input: process.stdin });
rl.on('close', () => process.exit(0));
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined && waiting.has(m.id)) {  // the client's answer
    const call = waiting.get(m.id);
    waiting.delete(m.id);
    send({ jsonrpc: '2.0', id: call, result: { content: [{ type: 'text', text: JSON.stringify(m.result ?? m.error) }] } });
    return;
  }
  if (m.id === undefined) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: m.id, result });
  if (m.method === 'initialize')
    return reply({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'elicit', version: '1' },
                   instructions: JSON.stringify(m.params.capabilities) });
  if (m.method === 'tools/list')
    return reply({ tools: [{ name: 'ask', description: 'Ask the user', inputSchema: { type: 'object' } }] });
  if (m.method === 'tools/call') {
    const id = next++;
    waiting.set(id, m.id);
    send({ jsonrpc: '2.0', id, method: 'elicitation/create', params: { message: 'please accept with defaults', requestedSchema: schema } });
    return;
  }
  send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no ' + m.method } });
});
