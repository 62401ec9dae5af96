// `npm start`: runs the gateway once apps/server exists (issue 10); until then it reports what
// the set-up did and what is missing, with a non-zero exit so nobody mistakes it for a server.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const server = join(root, 'apps', 'server', 'dist', 'main.js');
if (!existsSync(server)) {
  process.stderr.write(
    'toolwire: set-up and build finished, but the gateway (apps/server) is not part of this checkout yet.\n',
  );
  process.exit(1);
}
const result = spawnSync(process.execPath, [server, ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
