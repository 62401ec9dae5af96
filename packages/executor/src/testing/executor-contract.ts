// The behaviour every Executor must have. Each backend's test file calls `runExecutorContract`
// (and `runExecutorSecuritySuite`) with a factory; see quickjs-executor.test.ts.
import { ToolExecutionError } from '@toolwire/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecutorClosedError, InvalidRunOptionsError } from '../errors.js';
import type { Executor, HostFunction } from '../types.js';
import { describeLimits } from './executor-limits.js';

export type ExecutorFactory = () => Executor | Promise<Executor>;

export interface ContractOptions {
  /** When set, every test is skipped and the reason is part of the suite's name. */
  skipReason?: string | undefined;
  /**
   * The engine's memory limit is soft (isolated-vm: V8 may overshoot it and GC-thrash), so a
   * single huge allocation may end at the deadline (`timeout`) rather than as `memory`.
   */
  softMemoryLimit?: boolean;
}

/** A barrier: `wait()` resolves once `count` callers are waiting (proves calls overlap). */
function barrier(count: number): { wait: () => Promise<number> } {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((resolve) => (release = resolve));
  return {
    wait: async () => {
      arrived++;
      if (arrived === count) release();
      await all;
      return arrived;
    },
  };
}

export function runExecutorContract(
  name: string,
  factory: ExecutorFactory,
  options: ContractOptions = {},
): void {
  const title = options.skipReason
    ? `${name} executor contract (skipped: ${options.skipReason})`
    : `${name} executor contract`;
  describe.skipIf(options.skipReason !== undefined)(title, () => {
    let executor: Executor;
    beforeAll(async () => {
      executor = await factory();
    });
    afterAll(async () => {
      await executor?.close();
    });

    describe('run', () => {
      it('returns the value of a function body', async () => {
        const result = await executor.run('const a = 20; return a + 22;');
        expect(result).toMatchObject({ ok: true, value: 42, logs: [], toolCalls: [] });
        expect(result.error).toBeUndefined();
        expect(result.durationMs).toBeGreaterThanOrEqual(0);
      });

      it('accepts an async arrow function expression', async () => {
        const result = await executor.run(
          'async () => {\n  const x = await tools.double({ n: 4 });\n  return x;\n}',
          {
            functions: { double: async (args) => (args as { n: number }).n * 2 },
          },
        );
        expect(result).toMatchObject({ ok: true, value: 8 });
      });

      it('accepts a script wrapped in a markdown fence', async () => {
        const result = await executor.run('```js\nreturn "fenced";\n```');
        expect(result).toMatchObject({ ok: true, value: 'fenced' });
      });

      it('gives no value when the script returns nothing', async () => {
        const result = await executor.run('const x = 1;');
        expect(result.ok).toBe(true);
        expect('value' in result).toBe(false);
      });

      it('returns structured JSON values', async () => {
        const result = await executor.run(
          'return { list: [1, "two", null, true], nested: { ok: 1.5 } };',
        );
        expect(result.value).toEqual({ list: [1, 'two', null, true], nested: { ok: 1.5 } });
      });

      it('captures console output in order with levels', async () => {
        const result = await executor.run(
          'console.log("a", 1, { x: [1] }); console.warn("careful"); console.error(new Error("bad")); console.info(null, undefined); return 0;',
        );
        expect(result.logs.map((entry) => entry.level)).toEqual(['log', 'warn', 'error', 'info']);
        expect(result.logs[0]!.message).toBe('a 1 {"x":[1]}');
        expect(result.logs[1]!.message).toBe('careful');
        expect(result.logs[2]!.message).toContain('bad');
        expect(result.logs[3]!.message).toBe('null undefined');
        expect(result.logsTruncated).toBe(false);
      });

      it('exposes tools on the tools object and as plain globals', async () => {
        const seen: unknown[] = [];
        const echo: HostFunction = async (args) => {
          seen.push(args);
          return args;
        };
        const result = await executor.run(
          'const a = await tools.fs__read_file({ path: "/a" });\nconst b = await fs__read_file({ path: "/b" });\nconst c = await tools["search.web-query"]({ q: "x" });\nreturn [a, b, c, typeof globalThis["search.web-query"]];',
          { functions: { fs__read_file: echo, 'search.web-query': echo } },
        );
        expect(result.value).toEqual([{ path: '/a' }, { path: '/b' }, { q: 'x' }, 'undefined']);
        expect(seen).toEqual([{ path: '/a' }, { path: '/b' }, { q: 'x' }]);
      });

      it('does not let a tool name shadow a built-in global', async () => {
        const result = await executor.run(
          'return [JSON.stringify({ a: 1 }), await tools.JSON()];',
          {
            functions: { JSON: async () => 'tool' },
          },
        );
        expect(result.value).toEqual(['{"a":1}', 'tool']);
      });

      it('passes no arguments as undefined and turns an undefined tool result into null', async () => {
        let received: unknown = 'unset';
        const result = await executor.run('return await tools.ping();', {
          functions: {
            ping: async (args) => {
              received = args;
              return undefined;
            },
          },
        });
        expect(received).toBeUndefined();
        expect(result).toMatchObject({ ok: true, value: null });
      });

      it('runs Promise.all over tools in parallel', async () => {
        const gate = barrier(10);
        const result = await executor.run(
          'const ids = Array.from({ length: 10 }, (_, i) => i);\nreturn await Promise.all(ids.map((i) => tools.wait({ i })));',
          {
            functions: {
              wait: async (args) => ((await gate.wait()) === 10 ? (args as { i: number }).i : -1),
            },
          },
        );
        // Each call resolves only once all ten are in flight: serialised calls would time out.
        expect(result).toMatchObject({ ok: true, value: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] });
        expect(result.toolCalls).toHaveLength(10);
      });

      it('records every tool call with arguments, outcome and duration', async () => {
        const result = await executor.run(
          'await tools.good({ n: 1 });\ntry { await tools.bad({ n: 2 }); } catch (e) { console.log(e.name, e.tool, e.category, e.message); }\nreturn 1;',
          {
            functions: {
              good: async () => 'fine',
              bad: async () => {
                throw new ToolExecutionError({ category: 'rateLimited', message: 'slow down' });
              },
            },
          },
        );
        expect(result.ok).toBe(true);
        expect(result.toolCalls).toEqual([
          {
            id: 1,
            name: 'good',
            arguments: { n: 1 },
            outcome: 'ok',
            durationMs: expect.any(Number),
          },
          {
            id: 2,
            name: 'bad',
            arguments: { n: 2 },
            outcome: 'error',
            error: { message: 'slow down', category: 'rateLimited' },
            durationMs: expect.any(Number),
          },
        ]);
        expect(result.logs[0]!.message).toBe('ToolError bad rateLimited slow down');
        expect(result.stats.toolCalls).toBe(2);
      });

      it('reports an uncaught tool error as tool-failed with the tool and category', async () => {
        const result = await executor.run(
          'const x = 1;\nawait tools.lookup({ id: 7 });\nreturn x;',
          {
            functions: {
              lookup: async () => {
                throw new ToolExecutionError({
                  category: 'resourceNotFound',
                  message: 'no record 7',
                });
              },
            },
          },
        );
        expect(result.ok).toBe(false);
        expect(result.error).toMatchObject({
          kind: 'tool-failed',
          tool: 'lookup',
          category: 'resourceNotFound',
        });
        expect(result.error!.message).toContain('no record 7');
      });

      it('exposes read-only JSON globals', async () => {
        const result = await executor.run(
          '"use strict";\ntry { config = 1 } catch (e) { console.log("read-only") }\nreturn config.user;',
          {
            globals: { config: { user: 'ada' } },
          },
        );
        expect(result).toMatchObject({ ok: true, value: 'ada' });
      });

      it('gives every run a fresh global scope', async () => {
        await executor.run('globalThis.leaked = 1; Object.prototype.leakedProto = 2; return 0;');
        const result = await executor.run('return [typeof leaked, typeof ({}).leakedProto];');
        expect(result.value).toEqual(['undefined', 'undefined']);
      });

      it('runs several scripts at once', async () => {
        const results = await Promise.all(
          [1, 2, 3, 4].map((n) =>
            executor.run(`return await tools.id(${n});`, {
              functions: { id: async (args) => args },
            }),
          ),
        );
        expect(results.map((result) => result.value)).toEqual([1, 2, 3, 4]);
      });
    });

    describe('errors', () => {
      it('reports a syntax error with its position in the script as given', async () => {
        const result = await executor.run('const a = 1;\nconst b = ;\nreturn a;');
        expect(result.ok).toBe(false);
        expect(result.error).toMatchObject({ kind: 'syntax', line: 2 });
        expect(result.error!.message).toMatch(/SyntaxError/);
      });

      it('reports a runtime error with its line', async () => {
        const result = await executor.run('const a = 1;\n\nnotDefined.call();\nreturn a;');
        expect(result.error).toMatchObject({ kind: 'runtime', name: 'ReferenceError', line: 3 });
        expect(result.error!.message).toMatch(/notDefined/);
        expect(result.error!.stack ?? '').not.toMatch(/harness|node:|quickjs|isolated/);
      });

      it('follows a returned promise or thenable to its value or error', async () => {
        const functions = { quick: async () => 'quick' };
        const run = (script: string) => executor.run(script, { functions });
        expect((await run('return tools.quick();')).value).toBe('quick');
        expect(
          (await run('return { then(resolve) { resolve({ then(r) { r(5); } }); } };')).value,
        ).toBe(5);
        expect((await run(`return Promise.reject(new Error('refused'));`)).error).toMatchObject({
          kind: 'runtime',
          message: expect.stringMatching(/refused/),
        });
        expect(
          (await run(`return { then() { throw new Error('bad then'); } };`)).error,
        ).toMatchObject({
          kind: 'runtime',
          message: expect.stringMatching(/bad then/),
        });
        // A replaced Promise.prototype.then does not stop the script's own promise from counting.
        expect(
          (
            await run(
              `Promise.prototype.then = function () { return 'forged'; }; return tools.quick();`,
            )
          ).value,
        ).toBe('quick');
      });

      it('reports the column of a runtime error in a returned expression, in the script as given', async () => {
        const result = await executor.run('const a = 1;\nreturn a + notDefined.x;');
        expect(result.error).toMatchObject({ kind: 'runtime', line: 2, column: 12 });
      });

      it('lets a rejected promise the script never handles pass, as an engine without a host does', async () => {
        // A stray rejection (here the AsyncFunction a caller-chain probe builds) is the script's
        // own business: the run goes on and ends with the script's value on every engine.
        const result = await executor.run(
          `await tools.quick();
           Promise.reject(new Error('never handled'));
           (function f() { return f.caller && f.caller.constructor('return process')(); })();
           await tools.quick();
           return 'finished';`,
          { functions: { quick: async () => 'quick' } },
        );
        expect(result.error).toBeUndefined();
        expect(result.value).toBe('finished');
      });

      it('reports a thrown non-Error value', async () => {
        const result = await executor.run('throw "plain string";');
        expect(result.error).toMatchObject({ kind: 'runtime' });
        expect(result.error!.message).toContain('plain string');
      });

      it('reports a result that is not JSON', async () => {
        const result = await executor.run('return { big: 10n };');
        expect(result.error).toMatchObject({ kind: 'runtime' });
        expect(result.error!.message).toMatch(/JSON/);
      });

      it('rejects bad options with an error naming the field', async () => {
        await expect(executor.run('return 1', { limits: { timeoutMs: -5 } })).rejects.toThrow(
          InvalidRunOptionsError,
        );
        await expect(executor.run('return 1', { limits: { timeoutMs: -5 } })).rejects.toThrow(
          /limits\.timeoutMs/,
        );
        await expect(executor.run('return 1', { limits: { nope: 1 } as never })).rejects.toThrow(
          /limits\.nope/,
        );
        await expect(
          executor.run('return 1', { functions: { then: async () => 1 } }),
        ).rejects.toThrow(/functions\["then"\]/);
        await expect(executor.run('return 1', { functions: { x: 'no' as never } })).rejects.toThrow(
          /functions\["x"\]/,
        );
        await expect(executor.run('return 1', { globals: { 'not valid': 1 } })).rejects.toThrow(
          /globals\.not valid/,
        );
        await expect(executor.run('return 1', { globals: { big: 1n } })).rejects.toThrow(
          /globals\.big/,
        );
      });
    });

    describe('cancellation', () => {
      it('does not run a script whose signal is already aborted', async () => {
        let called = false;
        const result = await executor.run('await tools.mark(); return 1;', {
          functions: { mark: async () => (called = true) },
          signal: AbortSignal.abort(),
        });
        expect(result.error).toMatchObject({ kind: 'cancelled' });
        expect(called).toBe(false);
      });

      it('cancels a running script and aborts the tool it awaits', async () => {
        const controller = new AbortController();
        let toolSignal: AbortSignal | undefined;
        const result = await executor.run('await tools.hang(); return 1;', {
          signal: controller.signal,
          functions: {
            hang: (_args, { signal }) => {
              toolSignal = signal;
              queueMicrotask(() => controller.abort());
              return new Promise(() => {});
            },
          },
        });
        expect(result.error).toMatchObject({ kind: 'cancelled' });
        expect(toolSignal?.aborted).toBe(true);
        expect(result.toolCalls).toMatchObject([{ name: 'hang', outcome: 'cancelled' }]);
      });

      it('cancels a script spinning in a loop', async () => {
        const controller = new AbortController();
        const result = await executor.run('await tools.spin(); while (true) {}', {
          // Aborted once the script is past its last await, spinning.
          functions: { spin: async () => void setImmediate(() => controller.abort()) },
          signal: controller.signal,
          limits: { timeoutMs: 20_000 },
        });
        expect(result.error).toMatchObject({ kind: 'cancelled' });
        expect((await executor.run('return "still works"')).value).toBe('still works');
      });
    });

    describeLimits(() => executor, options);

    describe('close', () => {
      it('refuses runs after close', async () => {
        const own = await factory();
        expect((await own.run('return 1')).value).toBe(1);
        await own.close();
        await expect(own.run('return 1')).rejects.toThrow(ExecutorClosedError);
      });

      it('cancels runs still going when it closes', async () => {
        const own = await factory();
        let started!: () => void;
        const running = new Promise<void>((resolve) => (started = resolve));
        const pending = own.run('await tools.hang();', {
          functions: {
            hang: () => {
              started();
              return new Promise(() => {});
            },
          },
        });
        await running;
        await own.close();
        expect((await pending).error).toMatchObject({ kind: 'cancelled' });
      });
    });
  });
}
