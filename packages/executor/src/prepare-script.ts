import { parse } from 'acorn';
import type { ExecutionErrorInfo } from './types.js';

/**
 * The user's script turned into one expression both engines evaluate: a function
 * `(onReturn, onThrow, onEnd) => main`, where `main` runs the script. Every way the script's body
 * can end goes through the three: each `return value` of the body becomes
 * `return onReturn((value))`, a throw out of the body reaches `onThrow`, and `onEnd()` runs in a
 * `finally` around the whole body, after the script's own `finally` blocks. So the harness learns
 * that the script ended, and with what, in the very job in which it ended (see guest-harness.ts).
 */
export interface PreparedScript {
  code: string;
  /** Text added to the script, so positions the engines report map back to the script as given. */
  insertions: Insertion[];
}

/** `length` characters inserted before column `column` (0-based) of line `line` (1-based). */
interface Insertion {
  line: number;
  column: number;
  length: number;
}

/**
 * The `source-too-large` error for a script over `maxSourceBytes` (UTF-8), or undefined. Checked
 * before anything parses the script (here, and in code mode before type checking).
 */
export function sourceTooLarge(
  source: string,
  maxSourceBytes: number,
): ExecutionErrorInfo | undefined {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes <= maxSourceBytes) return undefined;
  return {
    kind: 'source-too-large',
    message: `The script is ${bytes} bytes; the limit is ${maxSourceBytes} bytes (maxSourceBytes). Write a shorter script.`,
  };
}

/**
 * Accepts a function body (top-level `await`, `return` gives the result) or a single function
 * expression such as `async () => { … }`. Syntax is checked here so the model gets the position
 * in its own source, not in a wrapper.
 */
export function prepareScript(
  source: string,
  maxSourceBytes: number,
): { ok: true; script: PreparedScript } | { ok: false; error: ExecutionErrorInfo } {
  const tooLarge = sourceTooLarge(source, maxSourceBytes);
  if (tooLarge) return { ok: false, error: tooLarge };
  const text = stripMarkdownFence(source);
  let program: ReturnType<typeof parse>;
  try {
    program = parse(text, {
      ecmaVersion: 'latest',
      sourceType: 'script',
      allowReturnOutsideFunction: true,
      allowAwaitOutsideFunction: true,
      locations: true,
    });
  } catch (error) {
    const located = error as { message?: string; loc?: { line: number; column: number } };
    const message = String(located.message ?? error).replace(/\s*\(\d+:\d+\)$/, '');
    return {
      ok: false,
      error: {
        kind: 'syntax',
        name: 'SyntaxError',
        message: located.loc
          ? `SyntaxError: ${message} at line ${located.loc.line}, column ${located.loc.column + 1}`
          : `SyntaxError: ${message}`,
        ...(located.loc ? { line: located.loc.line, column: located.loc.column + 1 } : {}),
      },
    };
  }
  return { ok: true, script: wrap(text, program) };
}

type Node = { type: string; start: number; end: number; [key: string]: unknown };
const functionTypes = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
]);

/** The hook names: identifiers that occur nowhere in the script, so it cannot shadow them. */
function hookNames(text: string): { ret: string; thrown: string; end: string; error: string } {
  let prefix = '__tw_';
  for (let n = 0; text.includes(prefix); n++) prefix = `__tw${n}_`;
  return { ret: `${prefix}r`, thrown: `${prefix}t`, end: `${prefix}e`, error: `${prefix}x` };
}

/**
 * Builds the prepared script: a function body, or a single function expression whose own body
 * (a block, not a generator) gets the same treatment; any other function expression is called
 * and its result treated as the value the script returned.
 */
function wrap(text: string, program: ReturnType<typeof parse>): PreparedScript {
  const hooks = hookNames(text);
  const edits: Array<{ at: number; text: string }> = [];
  const factory = `((${hooks.ret}, ${hooks.thrown}, ${hooks.end}) => `;
  const tail = `\n;return ${hooks.ret}(void 0);} catch (${hooks.error}) { ${hooks.thrown}(${hooks.error}); } finally { ${hooks.end}(); }`;
  const only = program.body.length === 1 ? (program.body[0] as unknown as Node) : undefined;
  const expression =
    only?.type === 'ExpressionStatement' ? (only['expression'] as Node | undefined) : undefined;
  if (
    expression &&
    (expression.type === 'ArrowFunctionExpression' || expression.type === 'FunctionExpression')
  ) {
    const body = expression['body'] as Node;
    // The prefix is whitespace and comments only: keep its lines.
    const prefix = text.slice(0, expression.start).replace(/[^\n]/g, ' ');
    const source = text.slice(expression.start, expression.end);
    if (body.type !== 'BlockStatement' || expression['generator'] === true) {
      const call = `() => { try { return ${hooks.ret}((`;
      const close = `)()); } catch (${hooks.error}) { ${hooks.thrown}(${hooks.error}); } finally { ${hooks.end}(); }})`;
      return finishWrap(text, `${prefix}${factory}${call}`, expression.start, source, close, []);
    }
    const statements = body['body'] as Node[];
    edits.push(openTry(statements, body.start + 1));
    collectReturns(body, hooks.ret, edits);
    edits.push({ at: body.end - 1, text: tail });
    const shifted = edits.map((edit) => ({ at: edit.at - expression.start, text: edit.text }));
    return finishWrap(text, `${prefix}${factory}(`, expression.start, source, '))', shifted);
  }
  edits.push(openTry(program.body as unknown as Node[], 0));
  for (const statement of program.body)
    collectReturns(statement as unknown as Node, hooks.ret, edits);
  return finishWrap(text, `${factory}async () => {`, 0, text, `${tail}})`, edits);
}

/** Applies the edits to `source` (which starts at `sourceStart` of `text`) and records them. */
function finishWrap(
  text: string,
  head: string,
  sourceStart: number,
  source: string,
  close: string,
  edits: Array<{ at: number; text: string }>,
): PreparedScript {
  const insertions: Insertion[] = [];
  const record = (offset: number, length: number): void => {
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    insertions.push({ line, column: offset - (before.lastIndexOf('\n') + 1), length });
  };
  // The head replaces nothing on its last line but adds characters before the source's start.
  const headLastLine = head.slice(head.lastIndexOf('\n') + 1);
  const prefixOnLine = text.slice(text.lastIndexOf('\n', sourceStart - 1) + 1, sourceStart).length;
  record(sourceStart, headLastLine.length - prefixOnLine);
  const sorted = [...edits].sort((a, b) => a.at - b.at);
  let code = head;
  let cursor = 0;
  for (const edit of sorted) {
    code += source.slice(cursor, edit.at) + edit.text;
    cursor = edit.at;
    if (!edit.text.includes('\n')) record(sourceStart + edit.at, edit.text.length);
  }
  code += source.slice(cursor) + close;
  return { code, insertions };
}

/**
 * The `try {` that opens the body: after its directive prologue ('use strict'), which must stay
 * first, with a `;` in case the last directive has none.
 */
function openTry(statements: Node[], start: number): { at: number; text: string } {
  let at = start;
  for (const statement of statements) {
    if (statement.type !== 'ExpressionStatement' || typeof statement['directive'] !== 'string')
      break;
    at = statement.end;
  }
  return { at, text: at === start ? 'try {' : ';try {' };
}

/** The `return`s of the function whose body `node` is in, not of the functions nested in it. */
function collectReturns(node: Node, ret: string, edits: Array<{ at: number; text: string }>): void {
  if (functionTypes.has(node.type)) return;
  if (node.type === 'ReturnStatement') {
    const argument = node['argument'] as Node | null;
    if (argument) {
      edits.push({ at: argument.start, text: `${ret}((` }, { at: argument.end, text: '))' });
    } else edits.push({ at: node.start + 'return'.length, text: ` ${ret}(void 0)` });
    return;
  }
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (Array.isArray(value)) {
      for (const child of value) if (isNode(child)) collectReturns(child, ret, edits);
    } else if (isNode(value)) collectReturns(value, ret, edits);
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
}

/** Maps a 1-based column the engine reported on `line` back to the script as given. */
export function originalColumn(script: PreparedScript, line: number, column: number): number {
  const generated = column - 1;
  let shift = 0;
  const onLine = script.insertions
    .filter((insertion) => insertion.line === line)
    .sort((a, b) => a.column - b.column);
  for (const insertion of onLine) {
    const start = insertion.column + shift;
    if (generated < start) break;
    if (generated < start + insertion.length) return insertion.column + 1;
    shift += insertion.length;
  }
  return Math.max(1, generated - shift + 1);
}

/**
 * Models often wrap code in a markdown fence: the code inside it, with the fence line and any blank
 * lines before it kept as empty lines, so line numbers stay those of the text as sent.
 */
export function stripMarkdownFence(source: string): string {
  const match = /^(\s*)```[\w-]*[^\n]*\n([\s\S]*?)\n?```\s*$/.exec(source);
  if (!match) return source;
  return `${match[1]!.replace(/[^\n]/g, '')}\n${match[2]}`;
}
