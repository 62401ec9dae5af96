// The bare forwarder's process: a registry of the config's servers and `createForwarder` with
// its own listener on 127.0.0.1, auditing one JSON line per call like the gateway (to a sink
// that discards it, so the bench measures the work and not the terminal).
import { PassThrough } from 'node:stream';
import { createForwarder } from '@toolwire/forwarder';
import { createRegistry, loadConfig } from '@toolwire/mcp/node';

const config = loadConfig(JSON.parse(process.argv[2]!));
const port = Number(process.argv[3]);
const quiet = new PassThrough();
quiet.resume();
const registry = createRegistry({ config });
await registry.start();
const forwarder = createForwarder({
  source: registry,
  config,
  audit: (entry) => quiet.write(`${JSON.stringify({ msg: 'tool call', ...entry })}\n`),
});
await forwarder.listen({ host: '127.0.0.1', port });
