// The TypeScript compiler over model code, in memory. The only module of this package that loads
// `typescript` (an optional peer dependency): the type-check worker loads it, the host never does.
// Erasable TypeScript with `.ts` imports: the worker loads this file by path from source too.
import { createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { scriptWrapperEnd, scriptWrapperStart } from './code-diagnostic.ts';
import type { CodeDiagnostic, TypeCheckerOptions } from './code-diagnostic.ts';

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
      // JSDoc in lib files says nothing the checker needs: not parsing it saves about a fifth of
      // the first check's CPU time.
      const options = typeof languageVersion === 'object' ? languageVersion : { languageVersion };
      const file = ts.createSourceFile(
        fileName,
        text,
        { ...options, jsDocParsingMode: ts.JSDocParsingMode.ParseNone },
        false,
      );
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
