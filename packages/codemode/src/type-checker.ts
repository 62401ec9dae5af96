import { createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

/**
 * What a script body is wrapped in to be checked (and stripped, see script.ts). Defined here so
 * this file has no relative imports: the type-check worker loads it by path from source too.
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

const defaultIgnoredCodes = [18046, 2571];
/** "Cannot find module …", whose hints (moduleResolution, paths, @types) do not apply here. */
const moduleNotFoundCodes = new Set([2307, 2792, 7016]);

const compilerOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  module: ts.ModuleKind.ESNext,
  moduleDetection: ts.ModuleDetectionKind.Force,
  strict: true,
  // Scripts are small and written in one go: untyped callback parameters are fine.
  noImplicitAny: false,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  noLib: false,
  // Module specifiers, `import()` types and triple-slash references resolve to nothing: the
  // checker's file system holds only TypeScript's lib files and our own three files.
  noResolve: true,
};

const libDirectory = path.dirname(
  createRequire(import.meta.url).resolve('typescript/lib/lib.d.ts'),
);
/** Parsed lib files, shared by every checker in the process: parsing them is most of a cold check. */
const libFiles = new Map<string, ts.SourceFile>();
const libFileName = /^lib(\.[\w-]+)*\.d\.ts$/;

/**
 * The only host files the checker may read: the lib files TypeScript ships (`lib.es2022.d.ts`,
 * …), by their exact path. Anything else a script names (a module specifier, an `import()`
 * type, a reference) does not exist, whether or not it exists on the host.
 */
function isShippedLibFile(fileName: string): boolean {
  return path.dirname(fileName) === libDirectory && libFileName.test(path.basename(fileName));
}

function readLibFile(fileName: string): string | undefined {
  return isShippedLibFile(fileName) ? ts.sys.readFile(fileName) : undefined;
}

const declarationsFileName = '/toolwire/declarations.d.ts';
const preludeFileName = '/toolwire/prelude.d.ts';
const scriptFileName = '/toolwire/script.ts';

/**
 * Type-checks model code against generated declarations with the TypeScript compiler, in memory.
 * Lib files are parsed once per process, the declarations once per change, and each check reuses
 * the previous program, so a warm check costs tens of milliseconds.
 */
export class CodeTypeChecker {
  private readonly ignoreCodes: ReadonlySet<number>;
  private readonly maxDiagnostics: number;
  private program: ts.Program | undefined;
  private declarations: ts.SourceFile | undefined;
  private prelude: ts.SourceFile | undefined;

  constructor(options: TypeCheckerOptions = {}) {
    this.ignoreCodes = new Set(options.ignoreCodes ?? defaultIgnoredCodes);
    this.maxDiagnostics = options.maxDiagnostics ?? 20;
  }

  /**
   * Checks a function body (see `normalizeScript`) against `declarations` (ambient declarations,
   * e.g. `generateDeclarations(...).text`) plus `prelude` (`checkPrelude`).
   */
  check(body: string, declarations: string, prelude = ''): CodeDiagnostic[] {
    return this.run(body, declarations, prelude, false);
  }

  /**
   * Every problem TypeScript finds in the declarations themselves (syntax and types), each as
   * `in the declarations: …` with its line in `declarations`. Empty for declarations that are sound.
   */
  checkDeclarations(declarations: string, prelude = ''): CodeDiagnostic[] {
    return this.run('', declarations, prelude, true);
  }

  private run(
    body: string,
    declarations: string,
    prelude: string,
    declarationsOnly: boolean,
  ): CodeDiagnostic[] {
    if (this.declarations?.text !== declarations) {
      this.declarations = ts.createSourceFile(
        declarationsFileName,
        declarations,
        ts.ScriptTarget.ES2022,
        true,
      );
    }
    if (this.prelude?.text !== prelude) {
      this.prelude = ts.createSourceFile(preludeFileName, prelude, ts.ScriptTarget.ES2022, true);
    }
    const script = ts.createSourceFile(
      scriptFileName,
      `${scriptWrapperStart}${body}${scriptWrapperEnd}`,
      ts.ScriptTarget.ES2022,
      true,
    );
    const files = new Map<string, ts.SourceFile>([
      [declarationsFileName, this.declarations],
      [preludeFileName, this.prelude],
      [scriptFileName, script],
    ]);
    const host = createHost(files);
    const rootNames = [declarationsFileName, preludeFileName, scriptFileName];
    if (declarationsOnly) {
      // Declaration files are only checked with skipLibCheck off: a one-off program for that.
      const program = ts.createProgram({
        rootNames,
        options: { ...compilerOptions, skipLibCheck: false, skipDefaultLibCheck: true },
        host,
      });
      return this.toCodeDiagnostics(
        [this.declarations, this.prelude].flatMap((file) => [
          ...program.getSyntacticDiagnostics(file),
          ...program.getSemanticDiagnostics(file),
        ]),
        script,
      );
    }
    this.program = ts.createProgram({
      rootNames,
      options: compilerOptions,
      host,
      ...(this.program ? { oldProgram: this.program } : {}),
    });
    return this.toCodeDiagnostics(
      [
        ...this.program.getSyntacticDiagnostics(script),
        ...this.program.getSemanticDiagnostics(script),
        // Broken declarations would make every script fail; say so instead of blaming the script.
        ...this.program.getSyntacticDiagnostics(this.declarations),
      ],
      script,
    );
  }

  private toCodeDiagnostics(
    diagnostics: readonly ts.Diagnostic[],
    script: ts.SourceFile,
  ): CodeDiagnostic[] {
    const result: CodeDiagnostic[] = [];
    for (const diagnostic of diagnostics) {
      if (this.ignoreCodes.has(diagnostic.code)) continue;
      const message = moduleNotFoundCodes.has(diagnostic.code)
        ? `${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n').replace(/\.\s.*$/s, '')}: scripts have no modules to import; use the declared tools and the JavaScript built-ins.`
        : ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      if (diagnostic.file !== script || diagnostic.start === undefined) {
        const where =
          diagnostic.file && diagnostic.start !== undefined
            ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
            : undefined;
        result.push({
          line: where ? where.line + 1 : 0,
          column: where ? where.character + 1 : 0,
          code: diagnostic.code,
          origin: 'declarations',
          message: `in the declarations: ${message}`,
        });
        continue;
      }
      const position = script.getLineAndCharacterOfPosition(diagnostic.start);
      // Line 0 of the checked file is the wrapper's `async function … {` line.
      result.push({
        line: Math.max(1, position.line),
        column: position.character + 1,
        code: diagnostic.code,
        origin: 'script',
        message,
      });
      if (result.length >= this.maxDiagnostics) break;
    }
    return result;
  }
}

function createHost(files: ReadonlyMap<string, ts.SourceFile>): ts.CompilerHost {
  return {
    getSourceFile(fileName, languageVersion) {
      const own = files.get(fileName);
      if (own) return own;
      const cached = libFiles.get(fileName);
      if (cached) return cached;
      const text = readLibFile(fileName);
      if (text === undefined) return undefined;
      const file = ts.createSourceFile(fileName, text, languageVersion, false);
      libFiles.set(fileName, file);
      return file;
    },
    getDefaultLibFileName: (options) => path.join(libDirectory, ts.getDefaultLibFileName(options)),
    getDefaultLibLocation: () => libDirectory,
    writeFile: () => {},
    getCurrentDirectory: () => '/toolwire',
    getDirectories: () => [],
    directoryExists: (directory) => directory === '/toolwire' || directory === libDirectory,
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (fileName) => files.has(fileName) || isShippedLibFile(fileName),
    readFile: (fileName) => files.get(fileName)?.text ?? readLibFile(fileName),
    realpath: (fileName) => fileName,
    // Nothing resolves: no lookup ever reaches the host's file system.
    resolveModuleNameLiterals: (literals) => literals.map(() => ({ resolvedModule: undefined })),
    resolveTypeReferenceDirectiveReferences: (references) =>
      references.map(() => ({ resolvedTypeReferenceDirective: undefined })),
  };
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
