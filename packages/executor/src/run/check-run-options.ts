import { errorMessage } from '@toolwire/schema';
import { InvalidRunOptionsError } from '../errors.js';
import type { HostFunction, RunOptions } from '../types.js';

/** Names that would turn `tools` into something else (a thenable, a prototype) if they were tools. */
const forbiddenToolNames = new Set(['__proto__', 'constructor', 'prototype', 'then']);
const reservedGlobalNames = new Set([
  'tools',
  'console',
  'globalThis',
  'undefined',
  'NaN',
  'Infinity',
  'eval',
]);
const identifier = /^[A-Za-z_$][\w$]*$/;

/** The parts of `run(script, options)` that must be right before anything runs. */
export interface CheckedRunOptions {
  functions: Record<string, HostFunction>;
  globals: Record<string, unknown>;
  owner: string;
}

/** Checks the script and options of one run; throws `InvalidRunOptionsError` naming the field. */
export function checkRunOptions(script: unknown, options: RunOptions): CheckedRunOptions {
  if (typeof script !== 'string') {
    throw new InvalidRunOptionsError({
      path: 'script',
      message: `expected a string, got ${typeof script}`,
    });
  }
  const functions = checkFunctions(options.functions);
  const globals = checkGlobals(options.globals, functions);
  const owner = options.owner ?? '';
  if (typeof owner !== 'string' || owner.length > 256) {
    throw new InvalidRunOptionsError({
      path: 'owner',
      message: 'expected a string of at most 256 characters',
    });
  }
  return { functions, globals, owner };
}

function checkFunctions(functions: RunOptions['functions']): Record<string, HostFunction> {
  if (functions === undefined) return {};
  if (typeof functions !== 'object' || functions === null || Array.isArray(functions)) {
    throw new InvalidRunOptionsError({
      path: 'functions',
      message: 'expected an object of named functions',
    });
  }
  const out: Record<string, HostFunction> = Object.create(null) as Record<string, HostFunction>;
  for (const [name, fn] of Object.entries(functions)) {
    const path = `functions[${JSON.stringify(name)}]`;
    if (typeof fn !== 'function')
      throw new InvalidRunOptionsError({ path, message: `expected a function, got ${typeof fn}` });
    if (name.length === 0 || name.length > 256) {
      throw new InvalidRunOptionsError({
        path,
        message: 'a tool name must be 1-256 characters long',
      });
    }
    if (forbiddenToolNames.has(name)) {
      throw new InvalidRunOptionsError({
        path,
        message: `"${name}" cannot be a tool name in the sandbox (it would change how the tools object behaves); rename it`,
      });
    }
    out[name] = fn;
  }
  return out;
}

function checkGlobals(
  globals: RunOptions['globals'],
  functions: Record<string, HostFunction>,
): Record<string, unknown> {
  if (globals === undefined) return {};
  if (typeof globals !== 'object' || globals === null || Array.isArray(globals)) {
    throw new InvalidRunOptionsError({
      path: 'globals',
      message: 'expected an object of JSON values',
    });
  }
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(globals)) {
    const path = `globals.${name}`;
    if (!identifier.test(name) || reservedGlobalNames.has(name) || name in functions) {
      throw new InvalidRunOptionsError({
        path,
        message:
          'a global name must be a JavaScript identifier other than tools, console and the tool names',
      });
    }
    try {
      out[name] = JSON.parse(JSON.stringify(value ?? null)) as unknown;
    } catch (error) {
      throw new InvalidRunOptionsError({
        path,
        message: `expected a JSON value (${safeMessage(error)})`,
        cause: error,
      });
    }
  }
  return out;
}

/** An error's message, or a placeholder when even reading it throws (hostile tool errors). */
export function safeMessage(error: unknown): string {
  try {
    return errorMessage(error);
  } catch {
    return 'unreadable error';
  }
}
