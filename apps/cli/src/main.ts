import { createContext } from './context.js';
import { exitQuietlyWhenReaderLeaves } from './output.js';
import { runCli } from './program.js';

// `toolwire tools list | head -1`: once the reader is gone there is nobody to tell; stop quietly.
exitQuietlyWhenReaderLeaves(process.stdout);
exitQuietlyWhenReaderLeaves(process.stderr);
const ctx = createContext();
const code = await runCli(ctx, process.argv.slice(2));
// Child processes, sockets or a prompt may still hold the event loop; the command is done.
process.stdout.write('', () => process.exit(code));
