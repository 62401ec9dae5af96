// Sums the JSON reports every package's Vitest run wrote into one closing line,
// "N passed, N failed, N skipped", and lists failing tests. `--clean` removes old reports first,
// so a summary never counts a run from before.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const reportDir = join('node_modules', '.cache', 'toolwire');
// `vitest-results.json` from a package's own run, plus `vitest-results-<name>.json` from extra runs
// such as the server's `test:repo`.
const reportsOf = (project) => {
  const dir = join(project, reportDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /^vitest-results(-[\w-]+)?\.json$/.test(name))
    .map((name) => join(dir, name));
};
const projects = ['packages', 'apps', 'tooling'].flatMap((group) => {
  const dir = join(root, group);
  return existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : [];
});

if (process.argv.includes('--clean')) {
  for (const project of projects)
    for (const file of reportsOf(project)) rmSync(file, { force: true });
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
  const files = reportsOf(project);
  if (!files.some((file) => file.endsWith('vitest-results.json'))) {
    missing.push(manifest.name);
    continue;
  }
  for (const file of files) {
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
}
for (const failure of failures) console.log(`FAILED ${failure}`);
if (missing.length > 0) console.log(`no test report from: ${missing.join(', ')}`);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing.length > 0 ? 1 : 0);
