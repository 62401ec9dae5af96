import ts from 'typescript';
import { blankSourceFile } from 'ts-blank-space';
import { scriptWrapperEnd, scriptWrapperStart } from './type-checker.js';

/** The model's code as a function body, ready to type-check and to strip. */
export interface NormalizedScript {
  /** A function body (top-level `await`, `return` gives the result), same line numbers as the input. */
  body: string;
  /** True when the input was a single `async () => { … }` (or `function`) expression. */
  wasFunctionExpression: boolean;
}

/**
 * Accepts a function body or a single function expression (`async () => { … }`), optionally inside
 * a markdown fence, and returns a function body. Line numbers are kept: a fence line becomes an
 * empty line, and a function expression is called on its own line numbers.
 */
export function normalizeScript(source: string): NormalizedScript {
  const text = stripMarkdownFence(source);
  const file = ts.createSourceFile(
    'script.ts',
    text,
    ts.ScriptTarget.Latest,
    false,
    ts.ScriptKind.TS,
  );
  const only = file.statements.length === 1 ? file.statements[0] : undefined;
  if (only && ts.isExpressionStatement(only)) {
    let expression: ts.Expression = only.expression;
    while (ts.isParenthesizedExpression(expression)) expression = expression.expression;
    if (ts.isArrowFunction(expression) || ts.isFunctionExpression(expression)) {
      const start = only.getStart(file);
      const end = only.expression.getEnd();
      return {
        body: `${text.slice(0, start)}return await (${text.slice(start, end)})();${text.slice(end).replace(/^\s*;/, '')}`,
        wasFunctionExpression: true,
      };
    }
  }
  return { body: text, wasFunctionExpression: false };
}

/** Models often wrap code in a markdown fence; the fence lines become blank lines. */
export function stripMarkdownFence(source: string): string {
  const match = /^(\s*)```[\w-]*[^\n]*\n([\s\S]*?)\n?```\s*$/.exec(source);
  if (!match) return source;
  return `${match[1]!.replace(/[^\n]/g, '')}\n${match[2]}`;
}

export interface StripResult {
  ok: boolean;
  /** JavaScript with the same lines and columns as the TypeScript (types become spaces). */
  code: string;
  /** Syntax the stripper cannot erase (enums, namespaces, parameter properties), by line. */
  unsupported: Array<{ line: number; column: number; text: string }>;
}

/**
 * Erases TypeScript types from a function body with ts-blank-space, which keeps every line and
 * column, so errors the sandbox reports point at the model's own source.
 */
export function stripTypes(body: string): StripResult {
  const wrapped = `${scriptWrapperStart}${body}${scriptWrapperEnd}`;
  const unsupported: StripResult['unsupported'] = [];
  const file = ts.createSourceFile(
    'script.ts',
    wrapped,
    ts.ScriptTarget.Latest,
    false,
    ts.ScriptKind.TS,
  );
  const stripped = blankSourceFile(file, (node) => {
    const start = node.getStart(file);
    const position = file.getLineAndCharacterOfPosition(start);
    unsupported.push({
      // Line 0 is the wrapper's first line, so the 0-based line is the script's 1-based line.
      line: position.line,
      column: position.character + 1,
      text: wrapped.slice(start, node.getEnd()).split('\n')[0]!.slice(0, 80),
    });
  });
  const code = stripped.slice(scriptWrapperStart.length, stripped.length - scriptWrapperEnd.length);
  return { ok: unsupported.length === 0, code, unsupported };
}

/**
 * Whether a function body declares `name` at its top level (`const`, `let`, `var` with
 * destructuring, `function`, `class`): code mode then leaves that name to the code.
 */
export function declaresTopLevel(body: string, name: string): boolean {
  const file = ts.createSourceFile(
    'script.ts',
    body,
    ts.ScriptTarget.Latest,
    false,
    ts.ScriptKind.TS,
  );
  const binds = (node: ts.BindingName): boolean =>
    ts.isIdentifier(node)
      ? node.text === name
      : node.elements.some((element) => !ts.isOmittedExpression(element) && binds(element.name));
  return file.statements.some((statement) => {
    if (ts.isVariableStatement(statement))
      return statement.declarationList.declarations.some((declaration) => binds(declaration.name));
    if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement))
      return statement.name?.text === name;
    return false;
  });
}
