import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('./index.ts', import.meta.url));

describe('createQuickJSExecutor', () => {
  it('lets the host process exit after a run even when the executor is never closed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-exit-'));
    const script = join(dir, 'host.mts');
    writeFileSync(
      script,
      `import { createQuickJSExecutor } from ${JSON.stringify(entry)};
const executor = createQuickJSExecutor();
const result = await executor.run('return await tools.add({ a: 1, b: 2 })', { functions: { add: async (args: any) => args.a + args.b } });
console.log(JSON.stringify({ ok: result.ok, value: result.value }));
`,
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      encoding: 'utf8',
      // The bug this guards against is a host that never exits; 60 s is far beyond a normal run.
      timeout: 60_000,
    });
    expect(child.error).toBeUndefined();
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout.trim())).toEqual({ ok: true, value: 3 });
  }, 90_000);
});
