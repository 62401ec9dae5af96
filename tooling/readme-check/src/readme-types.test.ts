// Type-checks every TypeScript example of every README that imports something — the not-runnable
// ones too — against the built packages (their published `types`, not their sources), so a README
// that shows an API the packages do not have (or no longer have) fails here.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { readmeExamples } from './readme-examples.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

const options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2023,
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  types: ['node'],
  typeRoots: [join(packageDir, 'node_modules/@types')],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  allowImportingTsExtensions: false,
  resolveJsonModule: true,
};

describe('README TypeScript examples type-check against the built packages', () => {
  const examples = readmeExamples().map((example) => ({
    ...example,
    file: join(example.dir, '.readme-types', `${example.where.replace(/[^\w]+/g, '-')}.mts`),
  }));
  for (const example of examples) {
    mkdirSync(dirname(example.file), { recursive: true });
    writeFileSync(example.file, example.code);
  }
  const program = ts.createProgram(
    examples.map((example) => example.file),
    options,
  );

  afterAll(() => {
    for (const dir of new Set(examples.map((example) => dirname(example.file))))
      rmSync(dir, { recursive: true, force: true });
  });

  it('finds the examples of the READMEs', () => {
    expect(examples.length).toBeGreaterThanOrEqual(25);
  });

  for (const example of examples) {
    it(`${example.where}${example.notRunnable ? ' (not runnable, still type-checked)' : ''}`, () => {
      const source = program.getSourceFile(example.file)!;
      const problems = [
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ].map((diagnostic) => {
        const line =
          diagnostic.start === undefined
            ? 0
            : source.getLineAndCharacterOfPosition(diagnostic.start).line + 1;
        return `line ${line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      });
      expect(problems).toEqual([]);
    });
  }
});
