// The floor: the clients straight to the upstream, no gateway. Over HTTP, one SDK client
// (session) per caller; over stdio there is one pipe, so all callers share one SDK client, which
// is what a gateway in front of a stdio server does too.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { report } from '../../harness.js';
import { benchGateway, clientCount, echoCall, measure, upstream } from './load.js';

const up = await upstream();
if (up.kind === 'http') {
  await benchGateway(up.url);
} else {
  const client = new Client({ name: 'peer-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: up.command, args: up.args }));
  const call = echoCall(client, 'echo');
  report(await measure(Array.from({ length: clientCount }, () => call)));
  await client.close();
  process.exit(0);
}
