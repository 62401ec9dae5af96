import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';

/**
 * Whether the interactive tests run: where tmux is installed, and always in CI (`CI` set, where
 * .ci/run installs it), so a missing tmux fails them there instead of passing by skipping.
 */
export const hasTmux =
  spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0 || Boolean(process.env.CI);

let sessions = 0;

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A program running in a real terminal: a tmux server of its own (a private socket file, so the
 * environment is exactly the one given), driven with send-keys and read with capture-pane.
 */
export class TmuxSession {
  private readonly socket = join(tmpdir(), `toolwire-cli-tmux-${process.pid}-${++sessions}`);

  constructor(argv: string[], env: Record<string, string>, size = { columns: 120, rows: 40 }) {
    const assignments = Object.entries({ TERM: 'xterm-256color', ...env }).map(
      ([key, value]) => `${key}=${quote(value)}`,
    );
    // After the program ends, its exit code stays on screen for the test to read. The shell
    // survives a Ctrl-C the terminal turns into SIGINT for the whole foreground group (as a
    // user's interactive shell does, being outside that group); the program still gets it.
    const command = `trap : INT; env -i ${assignments.join(' ')} ${argv.map(quote).join(' ')}; echo "EXITED:$?"; sleep 600`;
    this.tmux(
      'new-session',
      '-d',
      '-s',
      'main',
      '-x',
      String(size.columns),
      '-y',
      String(size.rows),
      command,
    );
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-S', this.socket, ...args], { encoding: 'utf8' });
  }

  /** The screen and its scroll-back; with `escapes`, colour codes are kept. */
  capture(escapes = false): string {
    return this.tmux(
      'capture-pane',
      '-p',
      '-J',
      '-S',
      '-500',
      ...(escapes ? ['-e'] : []),
      '-t',
      'main',
    );
  }

  send(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'main', ...keys);
  }

  /** Types a line and presses Enter. */
  type(text: string): void {
    this.tmux('send-keys', '-t', 'main', '-l', text);
    this.tmux('send-keys', '-t', 'main', 'Enter');
  }

  /** Polls the screen until `test` passes (or fails with the screen in the message). */
  async waitFor(test: RegExp | ((screen: string) => boolean), timeoutMs = 20_000): Promise<string> {
    const check = typeof test === 'function' ? test : (screen: string) => test.test(screen);
    let screen = '';
    try {
      return await vi.waitFor(
        () => {
          screen = this.capture();
          if (!check(screen)) throw new Error('not shown yet');
          return screen;
        },
        { timeout: timeoutMs, interval: 100 },
      );
    } catch {
      throw new Error(`the terminal never showed ${String(test)}; it shows:\n${screen}`);
    }
  }

  close(): void {
    spawnSync('tmux', ['-S', this.socket, 'kill-server'], { stdio: 'ignore' });
    rmSync(this.socket, { force: true });
  }
}
