// Escape attempts every sandboxed Executor must contain. The payloads follow the public record the
// code-mode reference cites: the node:vm constructor-chain escapes (OneUptime GHSA-v264-xqh4-9xmm,
// open-mercato#1127), Deno's `Error.prepareStackTrace` → `getThis()` (deno#30351), vm2's attack
// taxonomy (host-object leaks, prototype pollution, Symbol/stack tricks, Proxy traps) and the
// isolated-vm pitfalls (WebAssembly memory, SharedArrayBuffer), plus resource exhaustion.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { InvalidRunOptionsError } from '../errors.js';
import type { Executor, HostFunction } from '../types.js';
import type { ContractOptions, ExecutorFactory } from './executor-contract.js';
import {
  allocationPatterns,
  hostMemorySkipNote,
  runHostMemoryTests,
  measurePeak,
  mebibytes,
  residentBytes,
  runnerOverheadBytes,
} from '@toolwire/testing/memory';

const MiB = 1024 * 1024;

/** A script that reports whether it could reach the host: 'contained' or what it found. */
const reachHost = (expression: string): string => `
let found;
try {
  found = (${expression});
} catch (e) {
  return 'contained';
}
if (found === undefined || found === null) return 'contained';
if (typeof found === 'object' || typeof found === 'function') {
  if (typeof found.pid === 'number' || typeof found.exit === 'function' || typeof found.readFileSync === 'function') {
    return 'ESCAPED';
  }
}
return 'contained';`;

export function runExecutorSecuritySuite(
  name: string,
  factory: ExecutorFactory,
  options: ContractOptions = {},
): void {
  const title = options.skipReason
    ? `${name} security suite (skipped: ${options.skipReason})`
    : `${name} security suite`;
  describe.skipIf(options.skipReason !== undefined)(title, () => {
    let executor: Executor;
    const hostPrototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    const echo: HostFunction = async (args) => args;
    const hostObject: HostFunction = async () => ({
      nested: { list: [1, 2] },
      when: new Date(0).toISOString(),
    });

    beforeAll(async () => {
      executor = await factory();
    });
    afterAll(async () => {
      await executor?.close();
    });
    afterEach(() => {
      // The host is unharmed after every attempt.
      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(hostPrototypeKeys);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      expect(typeof process.exit).toBe('function');
    });

    describe('constructor chains to the host', () => {
      const payloads: Record<string, string> = {
        'this.constructor.constructor': `this.constructor.constructor('return process')()`,
        'globalThis Function': `Function('return this')().process`,
        'tool function constructor': `tools.echo.constructor.constructor('return process')()`,
        'AsyncFunction constructor': `await Object.getPrototypeOf(async function () {}).constructor('return process')()`,
        'Promise constructor': `Promise.resolve().constructor.constructor('return process')()`,
        'host result constructor': `(await tools.hostObject()).constructor.constructor('return process')()`,
        'host result nested constructor': `(await tools.hostObject()).nested.list.constructor.constructor('return process')()`,
        'error in catch': `(() => { try { null.f(); } catch (e) { return e.constructor.constructor('return process')(); } })()`,
        'console method constructor': `console.log.constructor('return process')()`,
        getBuiltinModule: `Function('return process')().getBuiltinModule('fs')`,
        'arguments.callee.caller': `(function f() { return f.caller && f.caller.constructor('return process')(); })()`,
        'stack overflow error constructor': `(() => { const r = () => r(); try { r(); } catch (e) { return e.constructor.constructor('return process')(); } })()`,
      };
      for (const [label, expression] of Object.entries(payloads)) {
        it(`contains ${label}`, async () => {
          const result = await executor.run(reachHost(expression), {
            functions: { echo, hostObject },
          });
          expect(result.error).toBeUndefined();
          expect(result.value).toBe('contained');
        });
      }

      it('contains Error.prepareStackTrace → getThis()', async () => {
        const result = await executor.run(
          reachHost(`(() => {
            Error.prepareStackTrace = (e, frames) => frames.map((f) => f.getThis && f.getThis());
            const frames = new Error().stack;
            if (!Array.isArray(frames)) return undefined;
            for (const self of frames) if (self && self.process) return self.process;
            return undefined;
          })()`),
        );
        expect(result.value).toBe('contained');
      });

      it('contains the Symbol-name stack trick', async () => {
        const result = await executor.run(
          reachHost(`(() => {
            const e = new Error('x');
            e.name = Symbol('s');
            try { return String(e.stack); } catch (err) { return err.constructor.constructor('return process')(); }
          })()`),
        );
        expect(result.value).toBe('contained');
      });
    });

    describe('ambient authority', () => {
      it('has no process, require, module, fetch, timers, Buffer or file system', async () => {
        const result = await executor.run(
          `return ['process', 'require', 'module', 'exports', 'fetch', 'XMLHttpRequest', 'WebSocket', 'setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask', 'Buffer', 'Deno', 'Bun', '__dirname', 'fs']
             .filter((name) => typeof globalThis[name] !== 'undefined');`,
        );
        expect(result.value).toEqual([]);
      });

      it('has no WebAssembly, SharedArrayBuffer or Atomics', async () => {
        const result = await executor.run(
          `return [typeof WebAssembly, typeof SharedArrayBuffer, typeof Atomics];`,
        );
        expect(result.value).toEqual(['undefined', 'undefined', 'undefined']);
      });

      it('cannot load modules with import()', async () => {
        const result = await executor.run(
          `const fs = await import('node:fs'); return typeof fs.readFileSync;`,
        );
        expect(result.ok).toBe(false);
        expect(result.error!.kind).toBe('runtime');
      });

      it('cannot load modules with import() even when the rejection is caught', async () => {
        const result = await executor.run(
          `try { const m = await import('fs'); return typeof m.readFileSync; } catch (e) { return 'no module'; }`,
        );
        expect(result.value).toBe('no module');
      });

      it('cannot use a timer to outlive the run', async () => {
        const result = await executor.run(`setTimeout(() => {}, 10); return 1;`);
        expect(result.error).toMatchObject({ kind: 'runtime', name: 'ReferenceError' });
      });

      it('cannot reach the bridge functions through globals', async () => {
        const result = await executor.run(
          `return Object.getOwnPropertyNames(globalThis).filter((n) => /call|log|bridge|host|__tw|ivm|\\$0/i.test(n) && n !== 'console');`,
        );
        expect(result.value).toEqual([]);
      });
    });

    describe('prototype pollution', () => {
      it('does not pollute the host through a returned __proto__ key', async () => {
        const result = await executor.run(
          `return JSON.parse('{"__proto__": {"polluted": "yes"}, "a": 1}');`,
        );
        expect(result.ok).toBe(true);
        const value = result.value as Record<string, unknown>;
        expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
        expect(value['polluted']).toBeUndefined();
      });

      it('does not pollute the host when the guest pollutes its own prototypes', async () => {
        const result = await executor.run(
          `Object.prototype.polluted = 'yes'; Array.prototype.polluted = 'yes'; return { list: [] };`,
        );
        expect(result.value).toEqual({ list: [] });
      });

      it('does not pollute the host through tool arguments', async () => {
        let received: unknown;
        const result = await executor.run(
          `return await tools.take(JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}'));`,
          {
            functions: {
              take: async (args) => {
                received = args;
                return 'ok';
              },
            },
          },
        );
        expect(result.value).toBe('ok');
        expect(Object.getPrototypeOf(received)).toBe(Object.prototype);
        expect((received as Record<string, unknown>)['polluted']).toBeUndefined();
      });

      it('keeps working when the guest replaces JSON, Promise and Array methods', async () => {
        const result = await executor.run(
          `JSON.parse = () => ({ ok: true, value: 'forged' });
           JSON.stringify = () => '"forged"';
           Array.prototype.map = () => ['forged'];
           Array.prototype.join = () => 'forged';
           Promise.prototype.then = function () { return 'forged'; };
           Object.defineProperty = () => { throw new Error('forged'); };
           console.log('still', 'logged');
           const value = await tools.echo({ real: true });
           return value;`,
          { functions: { echo } },
        );
        expect(result.logs[0]?.message).toBe('still logged');
        expect(result.toolCalls[0]?.arguments).toEqual({ real: true });
        // The script's own `return` goes through its replaced JSON.stringify only inside the
        // sandbox; the value that leaves is whatever the harness serialised with the real one.
        expect(result.ok).toBe(true);
        expect(result.value).toEqual({ real: true });
      });

      it('cannot forge a tool error to mislead the host', async () => {
        const result = await executor.run(
          `const e = new Error('forged'); e.name = 'ToolError'; e.tool = 'rm_rf'; e.category = 'permissionDenied'; throw e;`,
        );
        expect(result.error).toMatchObject({ kind: 'runtime', name: 'ToolError' });
        expect(result.error!.tool).toBeUndefined();
      });
    });

    describe('resource exhaustion', () => {
      it('contains an endless loop inside a catch/finally that swallows interrupts', async () => {
        const result = await executor.run(
          `for (;;) { try { for (;;) {} } catch (e) {} finally { continue; } }`,
          {
            limits: { timeoutMs: 300 },
          },
        );
        expect(result.error).toMatchObject({ kind: 'timeout' });
      });

      it('contains an endless chain of promise jobs', async () => {
        const result = await executor.run(
          `const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {});`,
          {
            limits: { timeoutMs: 300 },
          },
        );
        expect(result.ok).toBe(false);
        expect(['timeout', 'memory']).toContain(result.error!.kind);
      });

      it('contains a string-doubling bomb', async () => {
        const result = await executor.run(`let s = 'x'; for (;;) s += s;`, {
          limits: { memoryBytes: 16 * 1024 * 1024, timeoutMs: 5000 },
        });
        expect(result.ok).toBe(false);
        expect(['memory', 'timeout']).toContain(result.error!.kind);
      });

      it('contains a huge result built from a toJSON', async () => {
        const result = await executor.run(
          `return { toJSON() { return 'y'.repeat(2_000_000); } };`,
          {
            limits: { maxResultBytes: 10_000 },
          },
        );
        expect(result.error).toMatchObject({ kind: 'output-too-large' });
      });

      it('contains a result getter that throws', async () => {
        const result = await executor.run(`return { get boom() { throw new Error('getter'); } };`);
        expect(result.error).toMatchObject({ kind: 'runtime' });
        expect(result.error!.message).toMatch(/JSON/);
      });

      it('contains an endless stream of console output', async () => {
        const result = await executor.run(
          `for (let i = 0; i < 100000; i++) console.log('spam ' + i); return 'ok';`,
          {
            limits: { maxLogLines: 100 },
          },
        );
        expect(result.value).toBe('ok');
        expect(result.logs.length).toBe(101);
        expect(result.logsTruncated).toBe(true);
      });

      it('contains a flood of tool calls', async () => {
        let calls = 0;
        const result = await executor.run(
          `await Promise.all(Array.from({ length: 1000 }, () => tools.count()));`,
          {
            functions: { count: async () => ++calls },
            limits: { maxToolCalls: 50 },
          },
        );
        expect(result.error).toMatchObject({ kind: 'too-many-tool-calls' });
        expect(calls).toBeLessThanOrEqual(50);
      });

      it('ends cleanly when the script fires a call and returns without awaiting it', async () => {
        let toolSignal: AbortSignal | undefined;
        const result = await executor.run(`tools.slow(); return 'left early';`, {
          functions: {
            slow: (_args, { signal }) => {
              toolSignal = signal;
              return new Promise(() => {});
            },
          },
        });
        expect(result.value).toBe('left early');
        if (toolSignal) expect(toolSignal.aborted).toBe(true);
      });
    });

    describe('hostile tool names', () => {
      for (const forbidden of ['__proto__', 'constructor', 'prototype', 'then']) {
        it(`refuses a tool named ${forbidden}`, async () => {
          const functions = Object.defineProperty({}, forbidden, { value: echo, enumerable: true });
          await expect(executor.run('return 1', { functions })).rejects.toThrow(
            InvalidRunOptionsError,
          );
        });
      }

      it('treats names with quotes, newlines and code as plain data', async () => {
        const nasty = `x'); globalThis.hacked = true; ('\n"\\u2028\u2028`;
        const result = await executor.run(
          `return [await tools[${JSON.stringify(nasty)}]({ a: 1 }), typeof hacked];`,
          {
            functions: { [nasty]: echo },
          },
        );
        expect(result.value).toEqual([{ a: 1 }, 'undefined']);
      });

      it('keeps the tools object frozen and thenable-free', async () => {
        const result = await executor.run(
          `"use strict";
           let replaced = false;
           try { tools.echo = () => 'hijacked'; } catch (e) { replaced = 'threw'; }
           const awaited = await tools;
           return [replaced, awaited === tools, typeof tools.then, Object.getPrototypeOf(tools)];`,
          { functions: { echo } },
        );
        expect(result.value).toEqual(['threw', true, 'undefined', null]);
      });
    });

    describe('hostile tool results', () => {
      const hostile: Record<string, HostFunction> = {
        circular: async () => {
          const a: Record<string, unknown> = {};
          a['self'] = a;
          return a;
        },
        bigint: async () => 10n,
        throwingGetter: async () => ({
          get x() {
            throw new Error('getter on host');
          },
        }),
        throwsString: async () => {
          throw 'a plain string';
        },
        throwsHostileError: async () => {
          throw {
            get message() {
              throw new Error('hostile message');
            },
          };
        },
        protoKey: async () => JSON.parse('{"__proto__": {"polluted": "yes"}, "fine": 1}'),
        functionValue: async () => ({ fn: () => 1, keep: 2 }),
      };
      for (const name of [
        'circular',
        'bigint',
        'throwingGetter',
        'throwsString',
        'throwsHostileError',
      ]) {
        it(`turns a ${name} tool into a catchable ToolError`, async () => {
          const result = await executor.run(
            `try { await tools[${JSON.stringify(name)}](); return 'no error'; } catch (e) { return [e.name, typeof e.message]; }`,
            { functions: hostile },
          );
          expect(result.value).toEqual(['ToolError', 'string']);
          expect(result.toolCalls[0]).toMatchObject({ name, outcome: 'error' });
        });
      }

      it('passes a __proto__ key in a tool result as plain data', async () => {
        const result = await executor.run(
          `const r = await tools.protoKey(); return [r.fine, ({}).polluted === undefined, Object.keys(r).length];`,
          { functions: hostile },
        );
        expect(result.value).toEqual([1, true, 2]);
      });

      it('drops functions from tool results (JSON only crosses the boundary)', async () => {
        const result = await executor.run(
          `const r = await tools.functionValue(); return [typeof r.fn, r.keep];`,
          {
            functions: hostile,
          },
        );
        expect(result.value).toEqual(['undefined', 2]);
      });
    });

    describe('the end of the run', () => {
      const recorder = (): { calls: unknown[]; fn: HostFunction } => {
        const calls: unknown[] = [];
        return { calls, fn: async (args) => void calls.push(args) };
      };
      const settleHost = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 100));

      it('refuses a call made in the turn in which the script returns, and never runs it', async () => {
        const write = recorder();
        const result = await executor.run(`tools.write({ late: true }); return 'returned';`, {
          functions: { write: write.fn },
        });
        expect(result.value).toBe('returned');
        await settleHost();
        expect(write.calls).toEqual([]);
        expect(result.toolCalls).toMatchObject([
          {
            name: 'write',
            arguments: { late: true },
            outcome: 'cancelled',
            error: { category: 'cancelled', message: expect.stringMatching(/Not executed/) },
          },
        ]);
      });

      it('drops promise jobs queued before the return: their tool calls never run', async () => {
        const write = recorder();
        const result = await executor.run(
          `Promise.resolve().then(() => tools.write({ fromJob: true })); return 'returned';`,
          { functions: { write: write.fn } },
        );
        expect(result.value).toBe('returned');
        await settleHost();
        expect(write.calls).toEqual([]);
        // An engine that runs the queued job first records its call as refused; none ran.
        for (const call of result.toolCalls) expect(call.outcome).toBe('cancelled');
      });

      it('ends a script whose jobs keep running after the return, with its own result', async () => {
        const ping = recorder();
        const result = await executor.run(
          `const keep = [];
           const spin = () => { keep.push(new Array(10000).fill(0)); tools.ping(); return Promise.resolve().then(spin); };
           spin();
           return 'returned';`,
          { functions: { ping: ping.fn }, limits: { memoryBytes: 32 * MiB, timeoutMs: 10_000 } },
        );
        expect(result.value).toBe('returned');
        await settleHost();
        expect(ping.calls).toEqual([]);
        expect((await executor.run('return "next"')).value).toBe('next');
      });

      // A chain of promise jobs, each logging its step, started before the script ends. The run
      // ends in the job in which the script's body completes: no later job runs, so only the
      // step logged synchronously shows, on every engine (an engine that noticed the end a few
      // jobs late would show 'step 2', 'step 3', …; one that ran the whole queue, all 2000).
      const lateChain = `let step = 0;
           const tick = () => {
             step += 1;
             console.log('step ' + step);
             if (step < 2000) return Promise.resolve().then(tick);
           };`;
      const endings: Record<string, { code: string; value?: unknown; error?: string }> = {
        'it returns': { code: `tick(); return 'returned';`, value: 'returned' },
        'it returns after awaiting a tool': {
          code: `await tools.quick(); tick(); return 'returned';`,
          value: 'returned',
        },
        'it returns from a try with a finally': {
          code: `try { tick(); return 'returned'; } finally { console.log('finally'); }`,
          value: 'returned',
        },
        'it throws': { code: `tick(); throw new Error('thrown');`, error: 'runtime' },
        'it falls off the end': { code: `tick();`, value: undefined },
        'it is a function expression that returns': {
          code: `async () => {\n${lateChain}\ntick(); return 'returned'; }`,
          value: 'returned',
        },
      };
      for (const [ending, { code, value, error }] of Object.entries(endings)) {
        it(`runs no job of the script once ${ending}: a chain queued before the end stops`, async () => {
          const script = code.startsWith('async') ? code : `${lateChain}\n${code}`;
          const result = await executor.run(script, {
            functions: { quick: async () => 'quick' },
            limits: { maxLogLines: 10_000, timeoutMs: 10_000 },
          });
          if (error) expect(result.error?.kind).toBe(error);
          else {
            expect(result.error).toBeUndefined();
            expect(result.value).toBe(value);
          }
          const expected = ending.includes('finally') ? ['step 1', 'finally'] : ['step 1'];
          expect(result.logs.map((entry) => entry.message)).toEqual(expected);
        });
      }

      it('waits for a call that was already sent and reports how it really ended', async () => {
        let written = false;
        const result = await executor.run(
          `const pending = tools.slowWrite(); await tools.quick(); return 'returned';`,
          {
            functions: {
              slowWrite: async () => {
                await new Promise((resolve) => setTimeout(resolve, 200));
                written = true;
                return 'written';
              },
              quick: async () => 'quick',
            },
          },
        );
        expect(result.value).toBe('returned');
        expect(written).toBe(true);
        expect(result.toolCalls.find((call) => call.name === 'slowWrite')).toMatchObject({
          outcome: 'ok',
        });
      });

      it('waits for a call already sent no longer than the deadline, and says so', async () => {
        let signal: AbortSignal | undefined;
        const result = await executor.run(
          `const pending = tools.hang(); await tools.quick(); return 'returned';`,
          {
            functions: {
              hang: (_args, context) => {
                signal = context.signal;
                return new Promise(() => {});
              },
              quick: async () => 'quick',
            },
            limits: { timeoutMs: 500 },
          },
        );
        expect(result.value).toBe('returned');
        expect(signal?.aborted).toBe(true);
        expect(result.toolCalls.find((call) => call.name === 'hang')).toMatchObject({
          outcome: 'cancelled',
          error: { category: 'cancelled', message: expect.stringMatching(/Still running/) },
        });
      });
    });

    // Measured as the resident memory of this process and its runner processes (/proc), never as
    // the engine's own count: the limit is a promise about the host.
    describe.skipIf(!runHostMemoryTests)(`host memory${hostMemorySkipNote}`, () => {
      const memoryBytes = 16 * MiB;
      /** Left-over allocator slack a finished run may leave in a long-lived process. */
      const settleSlack = 32 * MiB;

      for (const [pattern, code] of Object.entries(allocationPatterns)) {
        it(`holds ${pattern} to memoryBytes in the host's resident memory, then gives it back`, async () => {
          expect((await executor.run('return "warm"')).value).toBe('warm');
          const baseline = residentBytes();
          const { value: result, peakBytes } = await measurePeak(() =>
            executor.run(code, { limits: { memoryBytes, timeoutMs: 15_000 } }),
          );
          expect(result.error?.kind).toBe('memory');
          expect(
            mebibytes(peakBytes - baseline),
            `peak ${mebibytes(peakBytes)} MiB over a baseline of ${mebibytes(baseline)} MiB`,
          ).toBeLessThanOrEqual(mebibytes(memoryBytes + runnerOverheadBytes));
          expect((await executor.run('return "next"')).value).toBe('next');
          await vi.waitFor(
            () =>
              expect(mebibytes(residentBytes())).toBeLessThanOrEqual(
                mebibytes(baseline + settleSlack),
              ),
            { timeout: 5000, interval: 50 },
          );
        });
      }

      it('holds concurrent runs to N × memoryBytes', async () => {
        await Promise.all([executor.run('return 1'), executor.run('return 2')]);
        const baseline = residentBytes();
        const { value: results, peakBytes } = await measurePeak(() =>
          Promise.all(
            [0, 1].map(() =>
              executor.run(allocationPatterns['ArrayBuffers']!, {
                limits: { memoryBytes, timeoutMs: 15_000 },
              }),
            ),
          ),
        );
        expect(results.map((result) => result.error?.kind)).toEqual(['memory', 'memory']);
        expect(mebibytes(peakBytes - baseline)).toBeLessThanOrEqual(
          mebibytes(2 * (memoryBytes + runnerOverheadBytes)),
        );
      });

      it('keeps tool arguments over maxToolInputBytes inside the sandbox: refused before they are copied out', async () => {
        let called = 0;
        const baseline = residentBytes();
        const { value: result, peakBytes } = await measurePeak(() =>
          executor.run(
            `const big = { data: 'x'.repeat(8 << 20) };
             const refused = [];
             for (let i = 0; i < 40; i++) {
               try { await tools.take(big); } catch (e) { refused.push(e.category); }
             }
             return [refused.length, refused[0]];`,
            {
              functions: { take: async () => ++called },
              limits: { memoryBytes: 32 * MiB, maxToolInputBytes: MiB, timeoutMs: 20_000 },
            },
          ),
        );
        expect(result.value).toEqual([40, 'invalidArguments']);
        expect(called).toBe(0);
        expect(result.toolCalls).toHaveLength(40);
        expect(result.toolCalls[0]).toMatchObject({
          name: 'take',
          outcome: 'error',
          error: {
            category: 'invalidArguments',
            message: expect.stringMatching(/maxToolInputBytes/),
          },
        });
        // 40 copies of 8 MiB would be 320 MiB in transit (copied out, they took the host 91-129 MiB
        // over its baseline on QuickJS and 332-509 MiB on isolated-vm); none may leave the
        // sandbox, so the host grows by the sandbox's own memory (27-35 MiB measured) and no more
        // than half the usual runner overhead on top of it.
        expect(
          mebibytes(peakBytes - baseline),
          `peak ${mebibytes(peakBytes)} MiB over a baseline of ${mebibytes(baseline)} MiB`,
        ).toBeLessThanOrEqual(mebibytes(32 * MiB + runnerOverheadBytes / 2));
      });

      it('keeps a logged string inside the sandbox once the log budget is spent', async () => {
        const baseline = residentBytes();
        const { value: result, peakBytes } = await measurePeak(() =>
          executor.run(
            `const line = 'x'.repeat(1 << 20); for (let i = 0; i < 20000; i++) console.log(line); return 'logged';`,
            { limits: { memoryBytes: 16 * MiB, timeoutMs: 15_000 } },
          ),
        );
        expect(result.value).toBe('logged');
        expect(result.logsTruncated).toBe(true);
        expect(mebibytes(peakBytes - baseline)).toBeLessThanOrEqual(
          mebibytes(memoryBytes + runnerOverheadBytes),
        );
      });
    });

    it('still runs normal scripts after every attack', async () => {
      const result = await executor.run('return await tools.echo({ fine: true });', {
        functions: { echo },
      });
      expect(result).toMatchObject({ ok: true, value: { fine: true } });
    });
  });
}
