import { UnsupportedFeatureError } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import { createIsolatedVMExecutor, isIsolatedVMAvailable } from './isolated-vm-executor.js';
import { runExecutorContract } from './testing/executor-contract.js';
import { runExecutorSecuritySuite } from './testing/security-contract.js';
import { runFairShareSuite } from './testing/fair-share-contract.js';

const availability = await isIsolatedVMAvailable();
const skipReason = availability.available
  ? undefined
  : `isolated-vm not loadable on Node ${process.versions.node}`;

runExecutorContract('isolated-vm', () => createIsolatedVMExecutor({ poolSize: 2 }), {
  skipReason,
  softMemoryLimit: true,
});
runExecutorSecuritySuite('isolated-vm', () => createIsolatedVMExecutor({ poolSize: 2 }), {
  skipReason,
});
runFairShareSuite('isolated-vm', (options) => createIsolatedVMExecutor(options), { skipReason });

describe('createIsolatedVMExecutor', () => {
  it.skipIf(availability.available)(
    `rejects with UnsupportedFeatureError when isolated-vm cannot load${availability.available ? ' (skipped: it loads here)' : ''}`,
    async () => {
      await expect(createIsolatedVMExecutor()).rejects.toThrow(UnsupportedFeatureError);
    },
  );

  it.skipIf(!availability.available)(
    `runs scripts in a child process, not in the host${skipReason ? ` (skipped: ${skipReason})` : ''}`,
    async () => {
      const executor = await createIsolatedVMExecutor({ poolSize: 1 });
      try {
        const result = await executor.run('return typeof process;');
        expect(result.value).toBe('undefined');
      } finally {
        await executor.close();
      }
    },
  );
});
