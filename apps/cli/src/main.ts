import { enableCompileCache } from 'node:module';

// Compiled code of this CLI and its dependencies is cached on disk (Node's compile cache, in the
// system temp directory or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a start
// after the first parses almost nothing. Enabled before anything else is loaded.
enableCompileCache?.();

const [{ createContext }, { exitQuietlyWhenReaderLeaves }, { runCli }] = await Promise.all([
  import('./context.js'),
  import('./output.js'),
  import('./program.js'),
]);

// `toolwire tools list | head -1`: once the reader is gone there is nobody to tell; stop quietly.
exitQuietlyWhenReaderLeaves(process.stdout);
exitQuietlyWhenReaderLeaves(process.stderr);
const ctx = createContext();
const code = await runCli(ctx, process.argv.slice(2));
// Child processes, sockets or a prompt may still hold the event loop; the command is done.
process.stdout.write('', () => process.exit(code));
