// Builds the `toolwire-server` binary for the tests that drive it, into a private folder (so a
// concurrent `build` of dist cannot race them). Workspace dependencies resolve to their own dist,
// which turbo builds before any test (`test` depends on `^build`).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { buildDashboard } from '../scripts/build-dashboard.js';

export const SERVER_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// Under node_modules: ignored by git, eslint and prettier, and the app's dependencies resolve from it.
export const BIN_DIR = join(SERVER_ROOT, 'node_modules', '.cache', 'toolwire-server-test-bin');

export default async function setup(): Promise<void> {
  await build({
    entry: [join(SERVER_ROOT, 'src', 'main.ts')],
    format: ['esm'],
    outDir: BIN_DIR,
    target: 'node22',
    clean: true,
    silent: true,
    config: false,
    dts: false,
  });
  // The dashboard's files beside the binary, where it looks for them; gateways started from the
  // source in the tests read the same ones.
  await buildDashboard(join(BIN_DIR, 'dashboard'));
  process.env.TOOLWIRE_DASHBOARD_DIR = join(BIN_DIR, 'dashboard');
}
