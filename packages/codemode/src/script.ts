// The model's code on its way to the sandbox, without the TypeScript compiler: fences dropped, a
// single function expression turned into a body, types erased. Types are erased by amaro (Node's
// own type stripper, SWC compiled to WebAssembly), which keeps every line and column, so what the
// sandbox and the checker report points at the model's own source; the JavaScript that remains is
// read with acorn.
import { createRequire } from 'node:module';
import { parse } from 'acorn';
import type * as AmaroModule from 'amaro';
import { stripMarkdownFence } from '@toolwire/executor';
import { scriptWrapperEnd, scriptWrapperStart } from './code-diagnostic.js';

/** The model's code as a function body, ready to type-check and to strip. */
export interface NormalizedScript {
  /** A function body (top-level `await`, `return` gives the result), same line numbers as the input. */
  body: string;
  /** True when the input was a single `async () => { … }` (or `function`) expression. */
  wasFunctionExpression: boolean;
}

export interface StripResult {
  ok: boolean;
  /** JavaScript with the same lines and columns as the TypeScript (types become spaces). */
  code: string;
  /** Syntax the stripper cannot erase (enums, namespaces, parameter properties, `<T>x`), by line. */
  unsupported: Array<{ line: number; column: number; text: string }>;
  /** The code is not valid TypeScript at all: the first error, in the script's lines. */
  syntaxError?: { message: string; line: number; column: number };
}

interface AmaroError {
  code?: string;
  message?: string;
  startLine?: number;
  startColumn?: number;
}
type Amaro = Pick<typeof AmaroModule, 'transformSync'>;
let amaro: Amaro | undefined;

/** Loaded on the first script, not when the package is imported. */
function stripper(): Amaro {
  return (amaro ??= createRequire(import.meta.url)('amaro') as Amaro);
}

/**
 * Erases TypeScript types from a function body, keeping every line and column, so errors the
 * sandbox reports point at the model's own source.
 */
export function stripTypes(body: string): StripResult {
  const wrapped = `${scriptWrapperStart}${body}${scriptWrapperEnd}`;
  try {
    const { code } = stripper().transformSync(wrapped, { mode: 'strip-only' });
    return {
      ok: true,
      code: code.slice(scriptWrapperStart.length, code.length - scriptWrapperEnd.length),
      unsupported: [],
    };
  } catch (error) {
    const failure = error as AmaroError;
    // Line 1 of the wrapped text is the wrapper's, so its line N is the script's line N - 1.
    const line = Math.max(1, (failure.startLine ?? 2) - 1);
    const column = (failure.startColumn ?? 0) + 1;
    if (failure.code === 'UnsupportedSyntax') {
      const text = (body.split('\n')[line - 1] ?? '').slice(column - 1, column - 1 + 80);
      return { ok: false, code: '', unsupported: [{ line, column, text }] };
    }
    return {
      ok: false,
      code: '',
      unsupported: [],
      syntaxError: { message: failure.message ?? String(error), line, column },
    };
  }
}

/**
 * Accepts a function body or a single function expression (`async () => { … }`), optionally inside
 * a markdown fence, and returns a function body. Line numbers are kept: a fence line becomes an
 * empty line, and a function expression is called on its own line numbers.
 */
export function normalizeScript(source: string): NormalizedScript {
  const text = stripMarkdownFence(source);
  const stripped = stripTypes(text);
  // Code that does not strip or parse is passed on as it is: the checker and the sandbox say why.
  const program = stripped.ok ? parseBody(stripped.code) : undefined;
  const only = program?.body.length === 1 ? program.body[0] : undefined;
  if (only?.type === 'ExpressionStatement') {
    let expression = only.expression;
    while (expression.type === 'ParenthesizedExpression') expression = expression.expression;
    if (expression.type === 'ArrowFunctionExpression' || expression.type === 'FunctionExpression') {
      // Stripping keeps positions, so offsets in the JavaScript are offsets in the TypeScript.
      const start = only.start;
      const end = only.expression.end;
      return {
        body: `${text.slice(0, start)}return await (${text.slice(start, end)})();${text.slice(end).replace(/^\s*;/, '')}`,
        wasFunctionExpression: true,
      };
    }
  }
  return { body: text, wasFunctionExpression: false };
}

/**
 * Whether a function body, already stripped of types, declares `name` at its top level (`const`,
 * `let`, `var` with destructuring, `function`, `class`): code mode then leaves that name to the code.
 */
export function declaresTopLevel(code: string, name: string): boolean {
  const program = parseBody(code);
  if (!program) return false;
  type Pattern = Parameters<typeof bindsName>[0];
  function bindsName(node: {
    type: string;
    name?: string;
    elements?: unknown[];
    properties?: unknown[];
    value?: unknown;
    argument?: unknown;
    left?: unknown;
  }): boolean {
    switch (node.type) {
      case 'Identifier':
        return node.name === name;
      case 'ArrayPattern':
        return (node.elements ?? []).some(
          (element) => element !== null && bindsName(element as Pattern),
        );
      case 'ObjectPattern':
        return (node.properties ?? []).some((property) =>
          bindsName(
            ((property as { type: string }).type === 'RestElement'
              ? property
              : (property as { value: unknown }).value) as Pattern,
          ),
        );
      case 'RestElement':
        return bindsName(node.argument as Pattern);
      case 'AssignmentPattern':
        return bindsName(node.left as Pattern);
      default:
        return false;
    }
  }
  return program.body.some((statement) => {
    if (statement.type === 'VariableDeclaration')
      return statement.declarations.some((declaration) => bindsName(declaration.id));
    if (statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration')
      return statement.id?.name === name;
    return false;
  });
}

function parseBody(code: string): ReturnType<typeof parse> | undefined {
  try {
    return parse(code, {
      ecmaVersion: 'latest',
      sourceType: 'script',
      allowReturnOutsideFunction: true,
      allowAwaitOutsideFunction: true,
      preserveParens: true,
    });
  } catch {
    return undefined;
  }
}
