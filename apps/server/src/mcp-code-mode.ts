import type { CodeMode, CodeModeOptions } from '@toolwire/codemode';
import { resolveCodeModeSettings } from '@toolwire/codemode/settings';
import type {
  AuthToken,
  CallerTools,
  CallerToolsProvider,
  CallerToolSource,
} from '@toolwire/forwarder';
import type { ToolwireConfig } from '@toolwire/mcp';
import type { AnyTool, ToolSource } from '@toolwire/schema';

/** `execute_code` for models, as the chat endpoints give it: type errors are reported, the code still runs. */
const TYPECHECK = 'warn';

type CodeModeModule = typeof import('@toolwire/codemode');

/**
 * Code mode on `/mcp` (`codeMode.enabled`; an MCP client names no model, so the top-level keys and
 * `codeMode.defaults` apply): each caller lists `execute_code`, whose description declares the
 * tools its token may use, plus the tools code mode leaves direct (`excludedTools`); the others
 * stay callable by name. The script's tool calls go through the forwarder's pipeline with the
 * caller's token, so policy, rate limits, audit and the call log treat them as the caller's own.
 *
 * `@toolwire/codemode` (the TypeScript checker, the sandbox) is imported on the first `tools/list`
 * or call that needs it, never by an idle server or one with code mode off.
 */
export function mcpCodeMode(config: ToolwireConfig): CallerToolsProvider | undefined {
  const settings = resolveCodeModeSettings(config.codeMode);
  if (!settings.enabled) return undefined;
  let loaded: Promise<CodeModeModule> | undefined;
  const load = () => (loaded ??= import('@toolwire/codemode'));
  const options = (
    codemode: CodeModeModule,
    source: ToolSource,
  ): CodeModeOptions & { source: ToolSource } => ({
    source,
    excludedTools: settings.excludedTools,
    pinnedTools: settings.pinnedTools,
    typecheck: TYPECHECK,
    toolName: codemode.EXECUTE_CODE_TOOL_NAME,
  });
  // One code mode per token for the listing: it follows tool changes by itself.
  const listings = new Map<AuthToken | undefined, Promise<Listing>>();
  let closed = false;

  interface Listing {
    codeMode: CodeMode;
    /** The tools last handed out, and the `execute_code` they were made from. */
    made?: { from: AnyTool; tools: CallerTools };
  }

  function callerTools(codemode: CodeModeModule, listing: Listing): CallerTools {
    const listed = listing.codeMode.executeCodeTool;
    if (listing.made?.from === listed) return listing.made.tools;
    const executeCode: AnyTool = {
      ...listed,
      // Run against the tools of this call's caller (`context.tools`: its token, its address,
      // this call's span), checked against the same declarations the listing shows.
      execute: async (args: { code: string }, context) => {
        const source = context.tools;
        if (!source) throw new Error('execute_code on /mcp needs the caller (context.tools)');
        const run = codemode.createCodeMode(options(codemode, source));
        try {
          return await run.executeCodeTool.execute!(args, context);
        } finally {
          await run.close();
        }
      },
    };
    const direct = new Set(listing.codeMode.directTools.map((tool) => tool.name));
    const tools: CallerTools = { tools: [executeCode], lists: (name) => direct.has(name) };
    listing.made = { from: listed, tools };
    return tools;
  }

  async function open(tools: CallerToolSource): Promise<Listing> {
    const codemode = await load();
    return { codeMode: codemode.createCodeMode(options(codemode, tools)) };
  }

  return {
    async forCaller({ token, tools }) {
      if (closed) return undefined;
      let listing = listings.get(token);
      if (!listing) {
        listing = open(tools);
        listings.set(token, listing);
        listing.catch(() => listings.delete(token));
      }
      return callerTools(await load(), await listing);
    },
    async close() {
      closed = true;
      const all = [...listings.values()];
      listings.clear();
      await Promise.allSettled(all.map(async (listing) => (await listing).codeMode.close()));
    },
  };
}
