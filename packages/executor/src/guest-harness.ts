// The JavaScript that runs inside the sandbox before the script: it builds `tools`, the plain
// tool globals, `console` and the read-only globals, then runs the script and reports its outcome.
// Both engines evaluate it to a factory `(call, log, done, configJson) => { start }`, so the bridge functions
// live only in this closure and never on the guest's global object.
//
// This file is loaded by the worker and child-process runners through Node's type stripping in
// development, so it uses erasable TypeScript only.

/** What the harness is told about the run (sent into the guest as JSON). */
export interface HarnessConfig {
  functions: string[];
  globals: Record<string, unknown>;
  maxResultBytes: number;
  /** A tool call's arguments as JSON: larger ones are refused in the guest, never copied out. */
  maxToolInputBytes: number;
  /** The console budget, applied in the guest as well so output past it is never copied out. */
  maxLogBytes: number;
  maxLogLines: number;
}

/** What a guest failure looks like when it leaves the sandbox. */
export interface GuestError {
  name: string;
  message: string;
  stack?: string;
  /** The guest threw something that is not an Error object (a string, null, …). */
  thrown?: 'null' | 'undefined' | 'primitive' | 'object';
  tool?: string;
  category?: string;
  /** The result was not JSON-serialisable, or too large. */
  resultProblem?: 'not-json' | 'too-large';
  resultBytes?: number;
}

export const harnessSource = String.raw`(function (call, log, done, configJson) {
  'use strict';
  const g = globalThis;
  const parse = JSON.parse;
  const config = parse(configJson);
  const stringify = JSON.stringify;
  const StringCtor = String;
  const ErrorCtor = Error;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const create = Object.create;
  const toolErrors = new WeakSet();
  const weakAdd = WeakSet.prototype.add;
  const weakHas = WeakSet.prototype.has;
  const apply = Reflect.apply;
  const join = Array.prototype.join;
  const map = Array.prototype.map;
  const promisePrototype = Promise.prototype;
  const promiseThen = promisePrototype.then;
  const getPrototypeOf = Object.getPrototypeOf;
  // Shared memory and WebAssembly are ways around the engine's memory limit and into timing
  // attacks; tool orchestration needs neither.
  for (const name of ['SharedArrayBuffer', 'Atomics', 'WebAssembly']) {
    try {
      delete g[name];
    } catch (_) {
      // not configurable in this engine: leave it
    }
  }

  function safeString(value) {
    try {
      return StringCtor(value);
    } catch (_) {
      return '[unprintable]';
    }
  }
  function format(value) {
    if (typeof value === 'string') return value;
    if (value instanceof ErrorCtor) return safeString(value.name) + ': ' + safeString(value.message);
    if (typeof value === 'object' && value !== null) {
      try {
        const text = stringify(value);
        if (text !== undefined) return text;
      } catch (_) {
        // fall through to String()
      }
    }
    return safeString(value);
  }
  // Output past the budget is cut here, inside the sandbox, so it is never copied out to the
  // runner. The runner and the host count in UTF-8 bytes; a string's length is at most that, so the
  // guest never stops early. The first entry over budget still goes out (cut to one character
  // past the budget) so the host can say the output was truncated.
  const slice = String.prototype.slice;
  let logChars = 0;
  let logLines = 0;
  let logOver = false;
  function makeLogger(level) {
    return function () {
      if (logOver) return;
      const parts = apply(map, arguments, [format]);
      let text = apply(join, parts, [' ']);
      logLines += 1;
      logChars += text.length;
      if (logLines > config.maxLogLines || logChars > config.maxLogBytes) {
        logOver = true;
        text = apply(slice, text, [0, config.maxLogBytes + 1]);
      }
      log(level, text);
    };
  }
  const consoleObject = create(null);
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    defineProperty(consoleObject, level, { value: makeLogger(level), enumerable: true });
  }
  defineProperty(g, 'console', { value: freeze(consoleObject), writable: true, configurable: true });

  const tools = create(null);
  for (const name of config.functions) {
    const fn = async function (args) {
      const argsJson = args === undefined ? undefined : stringify(args);
      // A string's length is at most its UTF-8 size: one over the limit is refused here, and only
      // its length leaves the sandbox (the host records the refusal and answers as for any call).
      const envelope = parse(
        await (argsJson !== undefined && argsJson.length > config.maxToolInputBytes
          ? call(name, undefined, argsJson.length)
          : call(name, argsJson)),
      );
      if (envelope.ok) return envelope.value;
      const error = new ErrorCtor(envelope.message);
      defineProperty(error, 'name', { value: 'ToolError', configurable: true, writable: true });
      defineProperty(error, 'tool', { value: name, enumerable: true });
      defineProperty(error, 'category', { value: envelope.category, enumerable: true });
      apply(weakAdd, toolErrors, [error]);
      throw error;
    };
    defineProperty(tools, name, { value: fn, enumerable: true });
    if (/^[A-Za-z_$][\w$]*$/.test(name) && !(name in g)) {
      try {
        defineProperty(g, name, { value: fn, writable: true, configurable: true });
      } catch (_) {
        // a reserved word or a non-configurable global: reachable through tools only
      }
    }
  }
  defineProperty(g, 'tools', { value: freeze(tools), writable: true, configurable: true });
  for (const key of Object.keys(config.globals)) {
    defineProperty(g, key, { value: config.globals[key], writable: false, configurable: false });
  }

  function describe(error) {
    try {
      if (error === null) return { name: 'Error', message: 'null', thrown: 'null' };
      if (error === undefined) return { name: 'Error', message: 'undefined', thrown: 'undefined' };
      if (typeof error !== 'object' && typeof error !== 'function') {
        return { name: 'Error', message: safeString(error), thrown: 'primitive' };
      }
      const out = {
        name: safeString(error.name),
        message: safeString(error.message),
        stack: typeof error.stack === 'string' ? error.stack : undefined,
      };
      if (!(error instanceof ErrorCtor) && !apply(weakHas, toolErrors, [error])) out.thrown = 'object';
      if (apply(weakHas, toolErrors, [error])) {
        out.tool = error.tool;
        out.category = error.category;
      }
      return out;
    } catch (_) {
      return { name: 'Error', message: 'an error that could not be read', thrown: 'object' };
    }
  }

  /** The outcome string of a settled script: its value, or what it threw. */
  function outcome(fulfilled, value) {
    if (!fulfilled) return '0' + stringify(describe(value));
    if (value === undefined) return '1';
    let json;
    try {
      json = stringify(value);
    } catch (error) {
      const described = describe(error);
      described.resultProblem = 'not-json';
      return '0' + stringify(described);
    }
    if (json === undefined) return '1';
    if (json.length > config.maxResultBytes) {
      return '0' + stringify({ name: 'Error', message: 'result too large', resultProblem: 'too-large', resultBytes: json.length });
    }
    return '1' + json;
  }

  // The end of the script. The prepared script (prepare-script.ts) calls onReturn(value) for each
  // of its body's returns, onThrow(error) when an error leaves the body, and onEnd() in a finally
  // around the body: onEnd runs in the job in which the body completes, after its own finally
  // blocks, and reports the last of the two. A returned thenable is followed: the run ends in the
  // job in which it settles. done() is called at most once, synchronously, so an engine can stop
  // the script there (isolated-vm disposes the isolate inside it; QuickJS runs no further job).
  let reported = false;
  function report(text) {
    if (reported) return;
    reported = true;
    done(text);
  }
  function settleValue(value) {
    if ((typeof value === 'object' && value !== null) || typeof value === 'function') {
      let followed = false;
      const onFulfilled = function (next) {
        if (followed) return;
        followed = true;
        settleValue(next);
      };
      const onRejected = function (error) {
        if (followed) return;
        followed = true;
        report(outcome(false, error));
      };
      // A promise of this realm is followed through the real then, whatever the script did to
      // Promise.prototype.then; any other thenable as the language would.
      if (getPrototypeOf(value) === promisePrototype) {
        try {
          apply(promiseThen, value, [onFulfilled, onRejected]);
          return;
        } catch (_) {
          // not a promise after all (an object made with Promise.prototype as its prototype)
        }
      }
      let then;
      try {
        then = value.then;
      } catch (error) {
        return report(outcome(false, error));
      }
      if (typeof then === 'function') {
        try {
          apply(then, value, [onFulfilled, onRejected]);
        } catch (error) {
          onRejected(error);
        }
        return;
      }
    }
    report(outcome(true, value));
  }
  let endKind = 0;
  let endValue;
  function onReturn(value) {
    endKind = 1;
    endValue = value;
  }
  function onThrow(error) {
    endKind = 2;
    endValue = error;
  }
  function onEnd() {
    const kind = endKind;
    const value = endValue;
    endKind = 0;
    endValue = undefined;
    if (kind === 2) report(outcome(false, value));
    else settleValue(value);
  }

  // start(prepared) runs the script and returns its promise, which rejects only if reporting
  // itself failed (out of memory inside onEnd): then that rejection is the outcome. The outcome
  // reaches the host through done(), never through a promise the host would have to subscribe to
  // with then() (which the script can replace).
  return {
    __proto__: null,
    start(prepared) {
      let running;
      try {
        running = prepared(onReturn, onThrow, onEnd)();
      } catch (error) {
        report(outcome(false, error));
        return undefined;
      }
      try {
        apply(promiseThen, running, [
          undefined,
          function (error) {
            report(outcome(false, error));
          },
        ]);
      } catch (_) {
        // a function expression that is not async: it has reported already, or follows a thenable
      }
      return running;
    },
  };
})`;
