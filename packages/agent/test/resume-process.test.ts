// A run paused for approval in one process and resumed in another after the first was killed:
// the same transcript, every tool call run once.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentResult } from '../src/index.js';

const script = fileURLToPath(new URL('./fixtures/resumable-agent.ts', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));

function start(env: Record<string, string>): { child: ChildProcess; output: Promise<string> } {
  const child = spawn(
    process.execPath,
    ['--conditions=@toolwire/source', '--import', 'tsx', script],
    { cwd: packageDir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const output = new Promise<string>((resolve, reject) => {
    child.on('exit', (code, signal) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`exited with ${code ?? signal}: ${stderr}`));
    });
  });
  output.catch(() => undefined);
  return { child, output };
}

describe('agent.resume across processes', () => {
  let fake: FakeProvider;
  let dir: string;
  beforeAll(async () => {
    fake = await startFakeProvider({ provider: 'openai' });
    dir = mkdtempSync(join(tmpdir(), 'toolwire-resume-'));
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('continues in a new process after the first was killed, with the same transcript and no repeated call', async () => {
    const env = {
      FAKE_URL: fake.url,
      STATE_FILE: join(dir, 'state.json'),
      EFFECTS_FILE: join(dir, 'effects.txt'),
    };
    fake.push(
      { toolCalls: [{ id: 'call_note', name: 'append_note', arguments: { text: 'start' } }] },
      { toolCalls: [{ id: 'call_delete', name: 'delete_file', arguments: { path: 'old.log' } }] },
      { text: 'Noted, and old.log is gone.' },
    );

    const first = start({ ...env, STEP: 'start' });
    await vi.waitFor(() => expect(existsSync(env.STATE_FILE)).toBe(true), {
      timeout: 60_000,
      interval: 50,
    });
    first.child.kill('SIGKILL');
    await expect(first.output).rejects.toThrow(/SIGKILL/);
    // Paused before the delete ran; the note of the step before ran once.
    expect(readFileSync(env.EFFECTS_FILE, 'utf8')).toBe('note:start\n');
    expect(fake.requests).toHaveLength(2);

    const second = start({ ...env, STEP: 'resume' });
    const result = JSON.parse(await second.output) as AgentResult;
    expect(result.text).toBe('Noted, and old.log is gone.');
    expect(result.finishReason).toBe('stop');
    expect(readFileSync(env.EFFECTS_FILE, 'utf8')).toBe('note:start\ndelete:old.log\n');
    expect(fake.requests).toHaveLength(3);

    // One transcript: the steps of the first process, then those of the second.
    expect(result.transcript.input).toEqual([
      { role: 'user', content: 'Note that we start, then delete old.log' },
    ]);
    expect(result.steps.map((step) => step.toolCalls.map((call) => call.name))).toEqual([
      ['append_note'],
      ['delete_file'],
      [],
    ]);
    expect(result.steps[1]!.approvals).toEqual([
      { toolCallId: 'call_delete', toolName: 'delete_file', approved: true, reason: null },
    ]);
    // The request the second process sent is the conversation the first built, and its results.
    const messages = fake.requests[2]!.body.messages as Array<Record<string, unknown>>;
    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
    expect(
      messages.filter((message) => message.role === 'tool').map((m) => m.tool_call_id),
    ).toEqual(['call_note', 'call_delete']);
    expect(fake.requests[1]!.body.messages).toEqual(messages.slice(0, 3));
  }, 120_000);
});
