// Builds the dashboard's browser files into `outDir`: the page, its styles and its script (the
// TypeScript of src/dashboard bundled for the browser). The server serves them from `dashboard/`
// beside its own code (`dist/dashboard` once built).
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'dashboard');

export async function buildDashboard(outDir: string): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  await build({
    entry: { dashboard: join(SOURCE, 'dashboard.ts') },
    format: ['esm'],
    platform: 'browser',
    target: 'es2022',
    outDir,
    clean: false,
    silent: true,
    config: false,
    dts: false,
    sourcemap: false,
    // One file: nothing is split off, so the page loads exactly /dashboard.js.
    splitting: false,
  });
  for (const file of ['index.html', 'dashboard.css', 'favicon.svg'])
    copyFileSync(join(SOURCE, file), join(outDir, file));
}
