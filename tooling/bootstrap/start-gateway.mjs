// `npm start`: runs the gateway (apps/server, `toolwire-server`) after the build, passing the
// command line through (e.g. `npm start -- --port 9000 --config ./toolwire.config.json`).
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const server = join(root, 'apps', 'server', 'dist', 'main.js');
if (!existsSync(server)) {
  process.stderr.write(
    `toolwire: the build finished but ${server} is missing; run "pnpm --filter @toolwire/server build".\n`,
  );
  process.exit(1);
}
const child = spawn(process.execPath, [server, ...process.argv.slice(2)], { stdio: 'inherit' });
// Ctrl-C reaches the gateway directly (same process group): wait for its graceful exit. SIGTERM and
// SIGHUP sent to this wrapper are passed on (stop gracefully, reload the config).
process.on('SIGINT', () => {});
for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
