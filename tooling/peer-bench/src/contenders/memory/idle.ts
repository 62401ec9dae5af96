// Contender: toolwire-server on its embedded default, idle: its RSS a while after it is ready
// (code mode, the agent and the provider SDKs are not loaded until first used).
import { envNumber, report } from '../../harness.js';
import { rssMb, startDefaultServer } from './server.js';

const server = await startDefaultServer();
await new Promise((resolve) => setTimeout(resolve, envNumber('MEMORY_IDLE_MS', 5000)));
report(rssMb(server.child.pid!));
process.exit(0);
