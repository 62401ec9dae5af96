import type { CodeModeConfig, CodeModeLimitsConfig } from '@toolwire/config';
import type { ExecutionLimits } from '@toolwire/executor';
import { matchesGlob } from '@toolwire/schema';

/** The `codeMode` section of `toolwire.config.json`, as its schema in `@toolwire/config` says. */
export type CodeModeConfigSection = CodeModeConfig;

/** Code mode settings for every model, or for one (the `codeMode` config keys, seed 002). */
export type CodeModeSettings = NonNullable<CodeModeConfig['defaults']>;

export interface ResolvedCodeModeSettings {
  enabled: boolean;
  excludedTools: string[];
  pinnedTools: string[];
  /** The `models[]` entry that applied (its `match`), if any. */
  matched?: string;
}

/**
 * What code mode means for one model: the top-level keys, then `defaults` over them, then the
 * first `models` entry whose `match` (a glob over the model name, case-insensitive:
 * `qwen*:3b`, `claude-*`) fits. So a small local model can get direct tools while a large one uses
 * `execute_code`. Without a model name only the defaults apply.
 */
export function resolveCodeModeSettings(
  config: CodeModeConfigSection | undefined,
  model?: string,
): ResolvedCodeModeSettings {
  const layers: CodeModeSettings[] = [config ?? {}, config?.defaults ?? {}];
  let matched: string | undefined;
  if (model !== undefined) {
    // Model names are matched case-insensitively: `claude-*` fits `Claude-Sonnet-4-5`.
    const entry = config?.models?.find((candidate) =>
      matchesGlob([candidate.match.toLowerCase()], model.toLowerCase()),
    );
    if (entry) {
      layers.push(entry);
      matched = entry.match;
    }
  }
  const pick = <K extends keyof CodeModeSettings>(key: K): CodeModeSettings[K] =>
    layers.reduce<CodeModeSettings[K]>((value, layer) => layer[key] ?? value, undefined);
  return {
    enabled: pick('enabled') ?? false,
    excludedTools: [...(pick('excludedTools') ?? [])],
    pinnedTools: [...(pick('pinnedTools') ?? [])],
    ...(matched !== undefined ? { matched } : {}),
  };
}

/**
 * `codeMode.limits` (or `toolwire code run`'s flags of the same names) as sandbox limits:
 * `memoryMb` → `memoryBytes`, `maxOutputKb` → `maxLogBytes` and `maxResultBytes`.
 */
export function codeModeLimits(limits: CodeModeLimitsConfig | undefined): Partial<ExecutionLimits> {
  if (!limits) return {};
  const KiB = 1024;
  return {
    ...(limits.timeoutMs !== undefined ? { timeoutMs: limits.timeoutMs } : {}),
    ...(limits.memoryMb !== undefined ? { memoryBytes: limits.memoryMb * KiB * KiB } : {}),
    ...(limits.maxOutputKb !== undefined
      ? { maxLogBytes: limits.maxOutputKb * KiB, maxResultBytes: limits.maxOutputKb * KiB }
      : {}),
    ...(limits.maxToolCalls !== undefined ? { maxToolCalls: limits.maxToolCalls } : {}),
  };
}
