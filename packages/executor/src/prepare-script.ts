import { parse } from 'acorn';
import type { ExecutionErrorInfo } from './types.js';

/** The user's script turned into one function expression both engines evaluate. */
export interface PreparedScript {
  /** Evaluates to a zero-argument function whose (awaited) return value is the result. */
  code: string;
  /** Characters added before the user's first line, to map columns on line 1 back. */
  firstLineOffset: number;
}

const bodyPrefix = '(async () => {';

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
  const only = program.body.length === 1 ? program.body[0] : undefined;
  if (
    only?.type === 'ExpressionStatement' &&
    (only.expression.type === 'ArrowFunctionExpression' ||
      only.expression.type === 'FunctionExpression')
  ) {
    const expression = text.slice(only.expression.start, only.expression.end);
    const prefix = text.slice(0, only.expression.start);
    // Keep the lines of the original: the prefix is only whitespace and comments.
    return {
      ok: true,
      script: { code: `${prefix.replace(/[^\n]/g, ' ')}(${expression}\n)`, firstLineOffset: 1 },
    };
  }
  return {
    ok: true,
    script: { code: `${bodyPrefix}${text}\n})`, firstLineOffset: bodyPrefix.length },
  };
}

/** Models often wrap code in a markdown fence; the fence lines become blank lines. */
function stripMarkdownFence(source: string): string {
  const match = /^\s*```[\w-]*[^\n]*\n([\s\S]*?)\n?```\s*$/.exec(source);
  if (!match) return source;
  const leading = source.slice(0, source.indexOf('\n') + 1).replace(/[^\n]/g, '');
  return `${leading}${match[1]}`;
}
