// Contender: toolwire-server on its embedded default under load: 32 keep-alive connections send
// 2026-07-28 tools/call requests (the native `calculate`, through policy, audit, metrics and the
// call log) until MEMORY_CALLS calls (default 1,000,000). Reports its RSS after a warm-up, after
// 100k calls and at the end: a leak shows as growth between the last two.
import { Pool } from 'undici';
import { envNumber, report } from '../../harness.js';
import { rssMb, startDefaultServer } from './server.js';

const total = envNumber('MEMORY_CALLS', 1_000_000);
const connections = 32;
const server = await startDefaultServer();
const pool = new Pool(server.url, { connections, pipelining: 1 });
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'peer-bench', version: '1' },
};
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'calculate',
};

let issued = 0;
/** Sends calls until `until` calls have been issued in all; every answer is checked. */
async function run(until: number): Promise<void> {
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (issued < until) {
        const n = ++issued;
        const response = await pool.request({
          path: '/mcp',
          method: 'POST',
          headers,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: n,
            method: 'tools/call',
            params: { name: 'calculate', arguments: { expression: `${n} + 1` }, _meta: META },
          }),
        });
        const text = await response.body.text();
        if (response.statusCode !== 200 || !text.includes(String(n + 1))) {
          throw new Error(`call ${n}: ${response.statusCode} ${text.slice(0, 300)}`);
        }
      }
    }),
  );
}

const pid = server.child.pid!;
const count = (n: number): string =>
  n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n);
const checkpoint = Math.min(100_000, total);
await run(Math.min(10_000, checkpoint / 10));
const atStart = rssMb(pid);
const started = performance.now();
await run(checkpoint);
const atCheckpoint = rssMb(pid);
await run(total);
const atEnd = rssMb(pid);
process.stderr.write(
  `${count(total)} calls in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
);
report(atStart, {
  [`after ${count(checkpoint)} calls`]: atCheckpoint,
  [`after ${count(total)} calls`]: atEnd,
});
await pool.close();
process.exit(0);
