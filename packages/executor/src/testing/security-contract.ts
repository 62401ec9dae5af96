// Escape attempts every sandboxed Executor must contain. The payloads follow the public record the
// code-mode reference cites: the node:vm constructor-chain escapes (OneUptime GHSA-v264-xqh4-9xmm,
// open-mercato#1127), Deno's `Error.prepareStackTrace` → `getThis()` (deno#30351), vm2's attack
// taxonomy (host-object leaks, prototype pollution, Symbol/stack tricks, Proxy traps) and the
// isolated-vm pitfalls (WebAssembly memory, SharedArrayBuffer), plus resource exhaustion.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InvalidRunOptionsError } from '../errors.js';
import type { Executor, HostFunction } from '../types.js';
import type { ContractOptions, ExecutorFactory } from './executor-contract.js';
import { describeHostMemory } from './security-memory.js';
import { describeRunEnd } from './security-run-end.js';

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

    describeRunEnd(() => executor);
    describeHostMemory(() => executor);

    it('still runs normal scripts after every attack', async () => {
      const result = await executor.run('return await tools.echo({ fine: true });', {
        functions: { echo },
      });
      expect(result).toMatchObject({ ok: true, value: { fine: true } });
    });
  });
}
