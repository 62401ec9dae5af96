import { typeLevelBomb } from '@toolwire/testing/memory';
import { SandboxBusyError } from '@toolwire/executor';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { generateDeclarations } from './declarations.js';
import { IsolatedTypeChecker } from './isolated-type-checker.js';
import { runCode } from './code-mode.js';
import { normalizeScript } from './script.js';
import { CodeTypeChecker } from './type-checker.js';
import type { CodeDiagnostic } from './code-diagnostic.js';

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

describe('IsolatedTypeChecker with many owners', () => {
  const check = (checker: IsolatedTypeChecker, code: string, owner: string) => {
    let settled = false;
    const outcome = checker
      .checkTimed(body(code), declarations.text, declarations.checkPrelude, { owner })
      .then(
        (result) => ((settled = true), result),
        (error: unknown) => ((settled = true), error),
      );
    return { settled: () => settled, outcome };
  };
  const waitLimit = { timeout: 60_000, interval: 20 };

  it("checks another owner's script while one owner's type bombs hold a checker", async () => {
    // Bombs stop only at the heap limit (many seconds); an ordinary warm check takes milliseconds.
    const checker = new IsolatedTypeChecker({ timeoutMs: 120_000 });
    try {
      checker.warmUp(2);
      await checker.ready();
      const bombs = [0, 1, 2].map(() => check(checker, typeLevelBomb, 'hostile'));
      await vi.waitFor(() => expect(checker.usage().active).toEqual({ hostile: 1 }), waitLimit);
      const polite = check(checker, 'return (await get_city({})).city;', 'polite');
      // Today's one checker, first come first served: the polite check waits for every bomb.
      await vi.waitFor(() => expect(polite.settled()).toBe(true), waitLimit);
      expect(bombs.map((bomb) => bomb.settled())).toEqual([false, false, false]);
      expect(await polite.outcome).toMatchObject({ diagnostics: [] });
      expect(checker.usage()).toEqual({ active: { hostile: 1 }, queued: { hostile: 2 } });
    } finally {
      await checker.close();
    }
  });

  it("refuses an owner's check past its queue with a rate-limit error", async () => {
    const checker = new IsolatedTypeChecker({ timeoutMs: 120_000, fairShare: { maxQueued: 1 } });
    try {
      const bombs = [0, 1].map(() => check(checker, typeLevelBomb, 'hostile'));
      await vi.waitFor(() => expect(checker.usage().queued).toEqual({ hostile: 1 }), waitLimit);
      const refused = check(checker, 'return 1;', 'hostile');
      await vi.waitFor(() => expect(refused.settled()).toBe(true), waitLimit);
      const error = await refused.outcome;
      expect(error).toBeInstanceOf(SandboxBusyError);
      expect(error).toMatchObject({ code: 'rate_limited', resource: 'type checks' });
      expect((error as SandboxBusyError).retryAfterMs).toBeGreaterThan(0);
      expect(bombs.map((bomb) => bomb.settled())).toEqual([false, false]);
    } finally {
      await checker.close();
    }
  });

  it('times a check from its start and reports the wait apart', async () => {
    // One worker: the ordinary check waits behind a bomb that runs into the time limit.
    const checker = new IsolatedTypeChecker({ timeoutMs: 1500, workers: 1 });
    try {
      checker.warmUp();
      await checker.ready();
      const bomb = check(checker, typeLevelBomb, 'hostile');
      await vi.waitFor(() => expect(checker.usage().active).toEqual({ hostile: 1 }), waitLimit);
      const queued = check(checker, 'return (await get_city({})).city;', 'polite');
      const bombed = (await bomb.outcome) as { diagnostics: CodeDiagnostic[] };
      expect(bombed.diagnostics[0]?.message).toMatch(/took longer than 1500 ms/);
      const outcome = (await queued.outcome) as { diagnostics: []; queuedMs: number };
      expect(outcome.diagnostics).toEqual([]);
      expect(outcome.queuedMs).toBeGreaterThan(0);
    } finally {
      await checker.close();
    }
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
