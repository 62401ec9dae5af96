// Contender: `supergateway` in its stdio → streamable HTTP mode, stateful (one stdio child per
// session; its default stateless mode spawns a child per request). It has no HTTP → HTTP mode
// (an HTTP upstream can only be exposed over stdio), so it runs on the stdio layers only. It has
// no host option: a preload pins its listener to 127.0.0.1.
import { loopbackPreloadPath } from '@toolwire/testing/mcp';
import { benchGateway, freePort, peerBin, startProcess, upstream } from './load.js';

const up = await upstream();
if (up.kind !== 'stdio') throw new Error('supergateway cannot front a streamable HTTP upstream');
const port = await freePort();
startProcess(process.execPath, [
  '--import',
  loopbackPreloadPath(),
  peerBin('supergateway', 'dist/index.js'),
  '--stdio',
  [up.command, ...up.args].map((part) => JSON.stringify(part)).join(' '),
  '--outputTransport',
  'streamableHttp',
  '--stateful',
  '--port',
  String(port),
  '--logLevel',
  'none',
]);
await benchGateway(`http://127.0.0.1:${port}/mcp`);
