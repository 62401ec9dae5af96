import type { CodeMode } from '@toolwire/codemode';
import { codeModeLimits, resolveCodeModeSettings } from '@toolwire/codemode/settings';
import type { AuthToken, CallerToolsProvider, CallerToolSource } from '@toolwire/forwarder';
import type { ToolwireConfig } from '@toolwire/mcp';
import { loadCodeMode } from './code-mode-loader.js';

/** `execute_code` for models, as the chat endpoints give it: type errors are reported, the code still runs. */
const TYPECHECK = 'warn';

/**
 * Code mode on `/mcp` (`codeMode.enabled`; an MCP client names no model, so the top-level keys and
 * `codeMode.defaults` apply): each caller lists `execute_code`, whose description declares the
 * tools its token may use, plus the tools code mode leaves direct (`excludedTools`); the others
 * stay callable by name. The script's tool calls go through the forwarder's pipeline with the
 * caller's token, so policy, rate limits, audit and the call log treat them as the caller's own.
 *
 * `@toolwire/codemode` (the TypeScript checker, the sandbox) is imported on the first `tools/list`
 * or call of `/mcp` that needs it, or when the gateway warms it up after `listening`; never with
 * code mode off. Scripts run within `codeMode.limits`.
 */
export function mcpCodeMode(config: ToolwireConfig): CallerToolsProvider | undefined {
  const settings = resolveCodeModeSettings(config.codeMode);
  if (!settings.enabled) return undefined;
  const load = () => loadCodeMode(config);
  // One code mode per token: it follows tool changes by itself. Its `execute_code` runs each
  // script against `context.tools`, the tools of the call's caller (its token, its address, the
  // call's span), checked against the same declarations its description shows.
  const modes = new Map<AuthToken | undefined, Promise<CodeMode>>();
  let closed = false;

  const limits = codeModeLimits(config.codeMode?.limits);

  async function open(tools: CallerToolSource, token: AuthToken | undefined): Promise<CodeMode> {
    const { createCodeMode } = await load();
    const codeMode = createCodeMode({
      source: tools,
      // Each token's scripts and type checks get their fair share of the shared sandbox.
      ...(token ? { owner: token.client } : {}),
      excludedTools: settings.excludedTools,
      pinnedTools: settings.pinnedTools,
      typecheck: TYPECHECK,
      limits,
    });
    // This caller's declarations checked once now: its first execute_code does not parse them.
    codeMode.warmUp();
    return codeMode;
  }

  return {
    async forCaller({ token, tools, allows }) {
      // A token not granted execute_code is offered none (and no code mode is made for it).
      if (closed || !allows('execute_code')) return undefined;
      let made = modes.get(token);
      if (!made) {
        made = open(tools, token);
        modes.set(token, made);
        made.catch(() => modes.delete(token));
      }
      const codeMode = await made;
      const direct = new Set(codeMode.directTools.map((tool) => tool.name));
      return { tools: [codeMode.executeCodeTool], lists: (name) => direct.has(name) };
    },
    async close() {
      closed = true;
      const all = [...modes.values()];
      modes.clear();
      await Promise.allSettled(all.map(async (made) => (await made).close()));
    },
  };
}
