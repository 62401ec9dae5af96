import { dirname, join, resolve } from 'node:path';
import {
  createFilePinStore,
  ToolPins,
  type PinEntry,
  type PinEvent,
  type PinStore,
} from '@toolwire/forwarder';
import type { ToolwireConfig } from '@toolwire/mcp';
import { toolwireCacheDir } from './default-config.js';
import type { Logger } from './logger.js';

/** The pins file's name beside the config (or in the cache directory for the embedded default). */
export const PINS_FILE = 'toolwire.pins.json';

/**
 * Where the pins of a config are kept: `policy.pinning.file` (relative to the config file's
 * directory), else `toolwire.pins.json` beside the config file, else in the cache directory.
 */
export function pinsFileOf(config: ToolwireConfig, configFile: string | undefined): string {
  const base = configFile ? dirname(configFile) : toolwireCacheDir();
  const file = config.policy?.pinning?.file;
  return file ? resolve(base, file) : join(base, PINS_FILE);
}

/** The store of a config's pins: Redis with `redis` (a fleet shares them), else the file. */
async function openPinStore(
  config: ToolwireConfig,
  configFile: string | undefined,
): Promise<PinStore> {
  if (config.redis) {
    const { createRedisPinStore } = await import('@toolwire/forwarder/redis');
    return createRedisPinStore(config.redis);
  }
  return createFilePinStore(pinsFileOf(config, configFile));
}

function logPinEvent(logger: Logger, event: PinEvent): void {
  switch (event.kind) {
    case 'first-seen':
      if (event.findings.length > 0)
        logger.warn('a new tool description reads like instructions to the model', {
          tool: event.name,
          findings: event.findings,
        });
      else logger.debug('tool definition pinned', { tool: event.name, hash: event.hash });
      return;
    case 'changed':
      logger.warn(
        event.held
          ? 'tool definition changed since it was approved: held until approved (toolwire tools approve)'
          : 'tool definition changed since it was approved: served with a warning',
        { tool: event.name, hash: event.hash, approved: event.pinned, findings: event.findings },
      );
      return;
    case 'approved':
      logger.info('tool definition approved', { tool: event.name, hash: event.hash, by: event.by });
      return;
    case 'store-failed':
      logger.error('tool pins could not be read or written', { error: event.error });
  }
}

/**
 * The pins of the running config, kept across reloads while `policy.pinning` and `redis` stay
 * the same (a reload must not forget a pending change or re-read the store for nothing).
 */
export function pinsKeeper(logger: Logger, configFile: string | undefined) {
  let kept: { key: string; pins: ToolPins } | undefined;
  return {
    async pinsFor(config: ToolwireConfig): Promise<ToolPins | undefined> {
      const mode = config.policy?.pinning?.mode ?? 'warn';
      const key = JSON.stringify([mode, pinsFileOf(config, configFile), config.redis ?? null]);
      if (kept?.key === key) return kept.pins;
      const previous = kept;
      kept = undefined;
      if (previous) await previous.pins.close();
      if (mode === 'off') return undefined;
      const pins = new ToolPins({
        mode,
        store: await openPinStore(config, configFile),
        onEvent: (event) => logPinEvent(logger, event),
      });
      await pins.ready();
      kept = { key, pins };
      return pins;
    },
    async close(): Promise<void> {
      await kept?.pins.close();
      kept = undefined;
    },
  };
}

/**
 * The CLI's `toolwire tools approve`: pins the pending definition of each name (every pending one
 * with `all`). Resolves with the names approved and those with nothing pending.
 */
export async function approvePins(
  config: ToolwireConfig,
  configFile: string | undefined,
  names: readonly string[],
  options: { all?: boolean; by?: string } = {},
): Promise<{ approved: string[]; notPending: string[] }> {
  // Approving works whatever the mode (a pin approved while pinning is off is kept for later).
  const pins = new ToolPins({ mode: 'hold', store: await openPinStore(config, configFile) });
  try {
    await pins.ready();
    const wanted = options.all
      ? pins
          .entries()
          .filter((entry) => entry.pending)
          .map((entry) => entry.name)
      : names;
    const approved: string[] = [];
    const notPending: string[] = [];
    for (const name of wanted) {
      if (await pins.approve(name, options.by ?? 'cli')) approved.push(name);
      else notPending.push(name);
    }
    return { approved, notPending };
  } finally {
    await pins.close();
  }
}

/** The CLI's `toolwire tools pins`: every pin and pending change. */
export async function readPins(
  config: ToolwireConfig,
  configFile: string | undefined,
): Promise<{ file: string | undefined; entries: PinEntry[] }> {
  const pins = new ToolPins({ mode: 'hold', store: await openPinStore(config, configFile) });
  try {
    await pins.ready();
    return {
      file: config.redis ? undefined : pinsFileOf(config, configFile),
      entries: pins.entries(),
    };
  } finally {
    await pins.close();
  }
}
