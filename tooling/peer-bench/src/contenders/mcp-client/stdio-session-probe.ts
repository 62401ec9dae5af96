// A diagnostic, not a client: the same fixture server, driven with hand-written JSON-RPC lines
// over its stdio, spawned in the caller's session or in a session of its own (--detached, what
// `spawn({ detached: true })` does on POSIX: setsid). On Linux with `sched_autogroup_enabled`, a
// new session is a new scheduling group, and under CPU contention every round trip then waits
// for the other group to be scheduled. Toolwire spawns stdio servers detached (it needs their
// process group to kill the whole tree); the SDKs do not.
import { spawn } from 'node:child_process';
import { iterationsFromEnv, msPerOp, report } from '../../harness.js';
import {
  checkEcho,
  ECHO_ARGUMENTS,
  ECHO_TOOL,
  echoServer,
  firstText,
} from '../../fixtures/mcp-echo-server.js';

const { command, args, env } = echoServer();
const child = spawn(command, args, {
  env,
  stdio: ['pipe', 'pipe', 'ignore'],
  detached: process.argv.includes('--detached'),
});
let buffered = '';
const pending = new Map<number, (message: { result?: unknown }) => void>();
child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
  buffered += chunk;
  for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
    const message = JSON.parse(buffered.slice(0, end)) as { id?: number; result?: unknown };
    buffered = buffered.slice(end + 1);
    if (message.id !== undefined) pending.get(message.id)?.(message);
    pending.delete(message.id!);
  }
});
let nextId = 0;
function request(method: string, params: unknown): Promise<{ result?: unknown }> {
  const id = ++nextId;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  });
}

await request('initialize', {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'peer-bench-probe', version: '1.0.0' },
});
child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);

report(
  await msPerOp(
    async () =>
      checkEcho(
        firstText(
          (await request('tools/call', { name: ECHO_TOOL, arguments: ECHO_ARGUMENTS })).result,
        ),
      ),
    iterationsFromEnv({ warmup: 300, iterations: 2000 }),
  ),
);
child.stdin.end();
child.kill();
