// pnpm --filter @toolwire/server test:soak [seed] [seconds]
// The differential test for as long as asked, from the given seed (default: a random one, printed).
import { spawnSync } from 'node:child_process';

const seed = process.argv[2] ?? String(Math.floor(Math.random() * 2 ** 31));
const seconds = process.argv[3] ?? '300';
console.log(`soak: seed ${seed}, ${seconds} s per protocol revision`);
const result = spawnSync('vitest', ['run', 'test/differential.test.ts'], {
  stdio: 'inherit',
  env: { ...process.env, TOOLWIRE_SOAK_SEED: seed, TOOLWIRE_SOAK_SECONDS: seconds },
  shell: process.platform === 'win32',
});
if (result.error) {
  console.error(
    `soak: could not start vitest: ${result.error.message} (run it as \`pnpm test:soak\`)`,
  );
}
process.exit(result.status ?? 1);
