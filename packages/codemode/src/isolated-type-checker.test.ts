import { typeLevelBomb } from '@toolwire/testing/memory';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDeclarations } from './declarations.js';
import { IsolatedTypeChecker } from './isolated-type-checker.js';
import { runCode } from './code-mode.js';
import { normalizeScript } from './script.js';
import { CodeTypeChecker } from './type-checker.js';

const declarations = generateDeclarations([
  {
    name: 'get_city',
    description: 'Current city',
    inputSchema: { type: 'object', properties: { country: { type: 'string' } } },
    outputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
]);
const body = (code: string): string => normalizeScript(code).body;

describe('IsolatedTypeChecker', () => {
  const checker = new IsolatedTypeChecker();
  // The bomb takes the compiler over 10 s and 384 MB; an ordinary check well under a second.
  const impatient = new IsolatedTypeChecker({ timeoutMs: 2000 });
  afterAll(() => Promise.all([checker.close(), impatient.close()]));

  it('finds what the in-process checker finds', async () => {
    const code = body(`const { city } = await get_city({ country: 1 });\nreturn city.toFixed();`);
    const expected = new CodeTypeChecker().check(
      code,
      declarations.text,
      declarations.checkPrelude,
    );
    expect(expected.length).toBe(2);
    expect(await checker.check(code, declarations.text, declarations.checkPrelude)).toEqual(
      expected,
    );
  });

  it('checks off the main thread and stops a type-level bomb at its time limit', async () => {
    let finished = false;
    const checking = impatient
      .check(body(typeLevelBomb), declarations.text, declarations.checkPrelude)
      .finally(() => (finished = true));
    // The host's event loop turns while the compiler works.
    await new Promise((resolve) => setImmediate(resolve));
    expect(finished).toBe(false);
    expect(await checking).toEqual([
      expect.objectContaining({
        code: 0,
        origin: 'script',
        message: expect.stringMatching(/took longer than 2000 ms/),
      }),
    ]);
    // A fresh worker takes the next check.
    expect(
      await impatient.check(
        body('return (await get_city({})).city;'),
        declarations.text,
        declarations.checkPrelude,
      ),
    ).toEqual([]);
  });

  it('stops a check at its memory limit', async () => {
    const small = new IsolatedTypeChecker({ timeoutMs: 60_000, memoryMb: 48 });
    try {
      const diagnostics = await small.check(
        body(typeLevelBomb),
        declarations.text,
        declarations.checkPrelude,
      );
      expect(diagnostics).toEqual([
        expect.objectContaining({ code: 0, message: expect.stringMatching(/more than 48 MB/) }),
      ]);
    } finally {
      await small.close();
    }
  });

  it('does not check a script over maxSourceBytes, before any parsing', async () => {
    const huge = `return ${JSON.stringify('x'.repeat(3_700_000))};`;
    expect(await checker.check(huge, declarations.text, declarations.checkPrelude)).toEqual([
      expect.objectContaining({
        code: 0,
        message: expect.stringMatching(/limit is 262144 bytes \(maxSourceBytes\)/),
      }),
    ]);
    expect(
      await checker.check(body('return 1;'), declarations.text, declarations.checkPrelude, {
        maxSourceBytes: 4,
      }),
    ).toEqual([
      expect.objectContaining({ code: 0, message: expect.stringMatching(/limit is 4 bytes/) }),
    ]);
  });
});

describe('runCode', () => {
  it('refuses a script over maxSourceBytes before parsing or type-checking it', async () => {
    const code = `return ${JSON.stringify('x'.repeat(3_700_000))};`;
    expect(await runCode(code, { source: [], typecheck: 'error' })).toMatchObject({
      ok: false,
      error: { kind: 'source-too-large', message: expect.stringMatching(/maxSourceBytes/) },
      typecheckMs: 0,
    });
  });
});
