import { createContext } from './context.js';
import { runCli } from './program.js';

const ctx = createContext();
const code = await runCli(ctx, process.argv.slice(2));
// Child processes, sockets or a prompt may still hold the event loop; the command is done.
process.stdout.write('', () => process.exit(code));
