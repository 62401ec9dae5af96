// Runs every TypeScript example of every README (root, packages/*, apps/*) that imports something,
// from the repository, against fake provider servers: a newcomer can paste them and they work.
// It lives in its own package, which depends on every package: turbo builds them all (types
// included) before it runs.
// A block that cannot run here is marked in its README, on the line before it, with
// `<!-- not-runnable: reason -->`; it is reported as skipped with that reason. A block marked
// `<!-- continues the example above -->` runs after the README's last unmarked example (it uses
// what that one defined). When a README shows a `toolwire.config.json` (a ```json block after a line
// "`toolwire.config.json`:"), its later examples run in a directory holding that file.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeExamples as examples } from './readme-examples.js';

const run = promisify(execFile);
const tsx = import.meta.resolve('tsx');
const FAKE_ANSWER = 'Hello from the fake provider.';
const RUN_TIMEOUT_MS = 30_000;

// Concurrent (Vitest's maxConcurrency, 5): each example is a Node process waiting on I/O.
describe.concurrent('README TypeScript examples run from the repository', () => {
  const all = examples();
  const fakes: FakeProvider[] = [];
  let env: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    const [openai, anthropic, ollama, google] = await Promise.all(
      (['openai', 'anthropic', 'ollama', 'google'] as const).map((provider) =>
        startFakeProvider({ provider }),
      ),
    );
    fakes.push(openai!, anthropic!, ollama!, google!);
    // The examples run concurrently against the same servers: enough answers for all of them.
    for (const fake of fakes)
      for (let i = 0; i < 200; i++)
        fake.push({ text: FAKE_ANSWER, usage: { inputTokens: 10, outputTokens: 5 } });
    env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      OPENAI_BASE_URL: `${openai!.url}/v1`,
      OPENAI_API_KEY: 'sk-fake',
      XAI_API_KEY: 'xai-fake',
      ANTHROPIC_BASE_URL: anthropic!.url,
      ANTHROPIC_API_KEY: 'sk-ant-fake',
      OLLAMA_HOST: ollama!.url,
      GOOGLE_GEMINI_BASE_URL: google!.url,
      GEMINI_API_KEY: 'gemini-fake',
    };
  });

  afterAll(async () => {
    await Promise.all(fakes.map((fake) => fake.close()));
    for (const dir of new Set(all.map((example) => join(example.dir, '.readme-examples'))))
      rmSync(dir, { recursive: true, force: true });
  });

  it('finds the examples of the READMEs', () => {
    expect(all.length).toBeGreaterThanOrEqual(25);
  });

  for (const example of all) {
    if (example.notRunnable) {
      it.skip(`${example.where} (not runnable: ${example.notRunnable})`, () => {});
      continue;
    }
    it(`${example.where} runs`, { timeout: RUN_TIMEOUT_MS + 5_000 }, async () => {
      const dir = join(example.dir, '.readme-examples');
      mkdirSync(dir, { recursive: true });
      const name = example.where.replace(/[^\w]+/g, '-');
      const file = join(dir, `${name}.mts`);
      writeFileSync(file, example.code);
      let cwd = example.dir;
      if (example.config !== undefined) {
        cwd = join(dir, name);
        mkdirSync(cwd, { recursive: true });
        writeFileSync(join(cwd, 'toolwire.config.json'), example.config);
      }
      try {
        await run(process.execPath, ['--conditions=@toolwire/source', '--import', tsx, file], {
          cwd,
          env,
          timeout: RUN_TIMEOUT_MS,
          killSignal: 'SIGKILL',
        });
      } catch (error) {
        const failure = error as {
          code?: unknown;
          signal?: unknown;
          stdout?: string;
          stderr?: string;
        };
        throw new Error(
          `${example.where} failed (exit ${String(failure.code)}, signal ${String(failure.signal)}):\n${failure.stderr ?? ''}${failure.stdout ?? ''}`.slice(
            0,
            4000,
          ),
        );
      } finally {
        rmSync(file, { force: true });
        if (cwd !== example.dir) rmSync(cwd, { recursive: true, force: true });
      }
    });
  }
});
