import type { ToolSource } from '@toolwire/schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

export interface ToolSourceContractSubject {
  source: ToolSource;
  /** A listed tool that succeeds with these arguments, and text its answer contains. */
  call: { name: string; args: Record<string, unknown>; text: string };
  /** Changes the source's tool list; needed when `announcesChanges` is set. */
  changeTools?: () => Promise<void>;
  close?: () => Promise<void>;
}

export interface ToolSourceContractOptions {
  /** Shown in the describe block, e.g. '@toolwire/mcp registry'. */
  name: string;
  /** Makes a fresh, started source for each test. */
  setup: () => Promise<ToolSourceContractSubject>;
  /** The source has `onToolsChanged` and the subject a `changeTools` that triggers it. */
  announcesChanges: boolean;
}

/**
 * The `ToolSource` contract (`@toolwire/schema`): every source — the registry, the forwarder's
 * sources, the server's gateway source, code mode's `toolSource` — runs these same cases.
 */
export function runToolSourceContract(options: ToolSourceContractOptions): void {
  describe(`ToolSource contract: ${options.name}`, () => {
    let subject: ToolSourceContractSubject;
    beforeEach(async () => {
      subject = await options.setup();
    });
    afterEach(async () => {
      await subject.close?.();
    });

    it('lists tools with unique names and object input schemas', () => {
      const tools = subject.source.listTools();
      expect(tools.length).toBeGreaterThan(0);
      expect(new Set(tools.map((tool) => tool.name)).size).toBe(tools.length);
      for (const tool of tools) {
        expect(tool.name).toMatch(/^\S+$/);
        expect(tool.inputSchema.type ?? 'object').toBe('object');
      }
      expect(tools.map((tool) => tool.name)).toContain(subject.call.name);
    });

    it('calls a listed tool and answers with an MCP CallToolResult', async () => {
      const result = await subject.source.callTool(subject.call.name, subject.call.args);
      expect(result.isError ?? false).toBe(false);
      expect(Array.isArray(result.content)).toBe(true);
      const text = (result.content ?? [])
        .map((block) => (block.type === 'text' ? String(block.text) : ''))
        .join('\n');
      expect(text).toContain(subject.call.text);
    });

    it('never succeeds for a name it does not list', async () => {
      let outcome: { isError?: boolean } | undefined;
      try {
        outcome = await subject.source.callTool('no_such_tool_in_this_source', {});
      } catch (error) {
        expect(error).toBeInstanceOf(Error);
        return;
      }
      expect(outcome?.isError).toBe(true);
    });

    if (options.announcesChanges) {
      it('stops telling a listener about changes once it unsubscribed', async () => {
        const { source, changeTools } = subject;
        if (!source.onToolsChanged || !changeTools)
          throw new Error('announcesChanges needs onToolsChanged and changeTools');
        let kept = 0;
        let dropped = 0;
        const keep = source.onToolsChanged(() => kept++);
        const drop = source.onToolsChanged(() => dropped++);
        drop();
        await changeTools();
        await expect.poll(() => kept, { timeout: 5000 }).toBeGreaterThan(0);
        expect(dropped).toBe(0);
        keep();
      });
    } else {
      it.skip('is skipped for change announcements: this source does not announce tool changes', () =>
        undefined);
    }
  });
}
