import { describe, expect, it } from 'vitest';
import { createExecutor } from './create-executor.js';
import { ExecutionError } from './errors.js';
import { isIsolatedVMAvailable } from './isolated-vm-executor.js';
import { defaultLimits, resolveLimits } from './limits.js';

const availability = await isIsolatedVMAvailable();

describe('createExecutor', () => {
  it('creates the QuickJS executor by default', async () => {
    const executor = await createExecutor();
    try {
      expect(executor.name).toBe('quickjs');
      expect((await executor.run('return 6 * 7')).value).toBe(42);
    } finally {
      await executor.close();
    }
  });

  it('picks isolated-vm when it loads and QuickJS otherwise with backend auto', async () => {
    const executor = await createExecutor({ backend: 'auto', poolSize: 1 });
    try {
      expect(executor.name).toBe(availability.available ? 'isolated-vm' : 'quickjs');
    } finally {
      await executor.close();
    }
  });

  it('applies executor-level limits below per-run limits', async () => {
    const executor = await createExecutor({ limits: { maxResultBytes: 10 } });
    try {
      expect((await executor.run('return "x".repeat(50)')).error?.kind).toBe('output-too-large');
      expect(
        (await executor.run('return "x".repeat(50)', { limits: { maxResultBytes: 100 } })).ok,
      ).toBe(true);
    } finally {
      await executor.close();
    }
  });

  it('rejects an unknown backend naming the option', async () => {
    await expect(createExecutor({ backend: 'deno' as never })).rejects.toThrow(/backend/);
  });
});

describe('resolveLimits', () => {
  it('fills in the defaults of the reference table', () => {
    expect(resolveLimits()).toEqual(defaultLimits);
    expect(defaultLimits).toMatchObject({
      timeoutMs: 30_000,
      memoryBytes: 64 * 1024 * 1024,
      maxToolCalls: 256,
      maxInFlight: 32,
    });
  });

  it('names the bad field', () => {
    expect(() => resolveLimits({ memoryBytes: 1.5 })).toThrow(
      /limits\.memoryBytes: expected an integer/,
    );
  });
});

describe('ExecutionError', () => {
  it('turns a result error into a ToolwireError with a stable code', () => {
    const error = ExecutionError.fromInfo({ kind: 'too-many-tool-calls', message: 'too many' });
    expect(error.code).toBe('execution_too_many_tool_calls');
    expect(error.kind).toBe('too-many-tool-calls');
    expect(ExecutionError.isInstance(error)).toBe(true);
    expect(error.toJSON()).toMatchObject({ kind: 'too-many-tool-calls', message: 'too many' });
  });
});
