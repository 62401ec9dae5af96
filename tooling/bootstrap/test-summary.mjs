// Sums the JSON reports every package's Vitest run wrote into one closing line,
// "N passed, N failed, N skipped", and lists failing tests. `--clean` removes old reports first,
// so a summary never counts a run from before.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const reportPath = join('node_modules', '.cache', 'toolwire', 'vitest-results.json');
const projects = ['packages', 'apps'].flatMap((group) => {
  const dir = join(root, group);
  return existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : [];
});

if (process.argv.includes('--clean')) {
  for (const project of projects) rmSync(join(project, reportPath), { force: true });
  process.exit(0);
}

let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
const missing = [];
for (const project of projects) {
  if (!existsSync(join(project, 'package.json'))) continue;
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
  if (!manifest.scripts?.test) continue;
  const file = join(project, reportPath);
  if (!existsSync(file)) {
    missing.push(manifest.name);
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const suite of report.testResults ?? []) {
    for (const test of suite.assertionResults ?? []) {
      if (test.status === 'failed')
        failures.push(`${relative(root, suite.name)} > ${test.fullName}`);
    }
  }
}
for (const failure of failures) console.log(`FAILED ${failure}`);
if (missing.length > 0) console.log(`no test report from: ${missing.join(', ')}`);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing.length > 0 ? 1 : 0);
