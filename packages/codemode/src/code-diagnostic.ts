// What a type check reports, without the compiler: the host formats and passes diagnostics on
// without loading TypeScript. Erasable TypeScript only: the type-check worker loads this file by
// path from source too.

/**
 * What a script body is wrapped in to be checked and stripped, so a body with top-level `await`
 * and `return` is valid code; line 0 of the wrapped text is the wrapper's own line.
 */
export const scriptWrapperStart = 'async function __toolwire_script__() {\n';
export const scriptWrapperEnd = '\n}\n';

/** One type error in the model's code, positioned in the code as the model wrote it. */
export interface CodeDiagnostic {
  /** 1-based line and column in the script. */
  line: number;
  column: number;
  /** The TypeScript error code (2345, 2353, …); 0 when a limit of the checker stopped the check. */
  code: number;
  /** `script`: the model's code; `declarations`: the generated declarations (our problem, not the model's). */
  origin: 'script' | 'declarations';
  message: string;
}

export interface TypeCheckerOptions {
  /**
   * Diagnostic codes never reported. Default: 18046 and 2571 ("is of type 'unknown'"), since tools
   * without an output schema return `unknown` by design and the model may narrow it as it likes.
   */
  ignoreCodes?: readonly number[];
  /** At most this many diagnostics are returned (default 20). */
  maxDiagnostics?: number;
}

/** A diagnostic about the checker itself (a limit, a missing compiler), not a line of the script. */
export function limitDiagnostic(message: string): CodeDiagnostic {
  return { line: 1, column: 1, code: 0, origin: 'script', message };
}

/** Diagnostics as the text a model reads: `line 3, column 7: … (TS2345)`, one per line. */
export function formatDiagnostics(diagnostics: readonly CodeDiagnostic[]): string {
  return diagnostics
    .map((d) =>
      d.code === 0
        ? d.message
        : d.origin === 'script'
          ? `line ${d.line}, column ${d.column}: ${d.message} (TS${d.code})`
          : `${d.message} (TS${d.code}${d.line > 0 ? `, declarations line ${d.line}` : ''})`,
    )
    .join('\n');
}
