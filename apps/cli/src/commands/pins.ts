import type { ToolwireConfig } from '@toolwire/mcp';
import type { CliContext } from '../context.js';
import { writeLine } from '../context.js';
import { CommandFailedError, UsageError } from '../errors.js';
import { formatJson, oneLine } from '../output.js';
import { renderTable } from '../table.js';

/**
 * `toolwire tools pins`: every pinned tool definition and every change waiting for approval (the
 * gateway's `policy.pinning`), from the pins file beside the config or from Redis.
 */
export async function toolsPinsCommand(
  ctx: CliContext,
  config: ToolwireConfig,
  configFile: string | undefined,
  json: boolean,
): Promise<void> {
  const { readPins } = await import('@toolwire/server');
  const { file, entries } = await readPins(config, configFile);
  if (json) {
    ctx.stdout.write(formatJson({ ...(file ? { file } : { store: 'redis' }), pins: entries }));
    return;
  }
  if (entries.length === 0) {
    writeLine(
      ctx.stdout,
      `No pins yet (${file ?? 'redis'}): the gateway pins tools as it first lists them.`,
    );
    return;
  }
  const width = Math.max(40, (ctx.stdout.columns ?? 120) - 50);
  const rows = entries.map((entry) => [
    ctx.out.cyan(entry.name),
    entry.pending ? ctx.out.yellow('changed') : ctx.out.green('pinned'),
    oneLine(entry.pending?.description ?? entry.pinned?.description ?? '', width),
  ]);
  writeLine(ctx.stdout, renderTable(['NAME', 'PIN', 'DESCRIPTION'], rows, ctx.out));
  const pending = entries.filter((entry) => entry.pending).length;
  if (pending > 0)
    writeLine(ctx.stdout, `\n${pending} changed; approve with: toolwire tools approve <name>`);
}

/** `toolwire tools approve NAME... | --all`: pins the changed definitions, which are served again. */
export async function toolsApproveCommand(
  ctx: CliContext,
  config: ToolwireConfig,
  configFile: string | undefined,
  names: string[],
  options: { all?: boolean },
  json: boolean,
): Promise<void> {
  if (names.length === 0 && !options.all)
    throw new UsageError({
      message: 'name the tools to approve (see `toolwire tools pins`), or pass --all',
    });
  if (names.length > 0 && options.all)
    throw new UsageError({ message: 'give tool names or --all, not both' });
  const { approvePins } = await import('@toolwire/server');
  const { approved, notPending } = await approvePins(config, configFile, names, {
    ...(options.all ? { all: true } : {}),
    by: `cli:${process.env.USER ?? 'unknown'}`,
  });
  if (json) ctx.stdout.write(formatJson({ approved, notPending }));
  else {
    for (const name of approved) writeLine(ctx.stdout, `approved ${name}`);
    if (approved.length === 0 && options.all) writeLine(ctx.stdout, 'nothing waits for approval');
  }
  if (notPending.length > 0)
    throw new CommandFailedError(
      `nothing to approve for ${notPending.join(', ')} (no changed definition is pending; see \`toolwire tools pins\`)`,
    );
}
