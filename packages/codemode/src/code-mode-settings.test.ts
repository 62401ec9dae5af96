import { loadConfig } from '@toolwire/mcp/node';
import { describe, expect, it } from 'vitest';
import { codeModeLimits, resolveCodeModeSettings } from './code-mode-settings.js';

// Seed 002's shape: defaults for every model, and per-model overrides.
const config = loadConfig({
  codeMode: {
    defaults: { enabled: true, excludedTools: ['fs__read_media_file'], pinnedTools: ['hash'] },
    models: [
      { match: 'qwen*:3b', enabled: false },
      { match: 'claude-*', excludedTools: ['fs__read_media_file', 'everything__get_image'] },
      { match: '*', pinnedTools: [] },
    ],
  },
});

describe('resolveCodeModeSettings', () => {
  it('gives a small local model direct tools while a large one uses code mode', () => {
    expect(resolveCodeModeSettings(config.codeMode, 'qwen2.5:3b')).toEqual({
      enabled: false,
      excludedTools: ['fs__read_media_file'],
      pinnedTools: ['hash'],
      matched: 'qwen*:3b',
    });
    expect(resolveCodeModeSettings(config.codeMode, 'Claude-Sonnet-4-5')).toEqual({
      enabled: true,
      excludedTools: ['fs__read_media_file', 'everything__get_image'],
      pinnedTools: ['hash'],
      matched: 'claude-*',
    });
  });

  it('applies the first matching entry only, and the defaults without a model', () => {
    expect(resolveCodeModeSettings(config.codeMode, 'gpt-5-mini')).toMatchObject({
      enabled: true,
      pinnedTools: [],
      matched: '*',
    });
    expect(resolveCodeModeSettings(config.codeMode)).toEqual({
      enabled: true,
      excludedTools: ['fs__read_media_file'],
      pinnedTools: ['hash'],
    });
  });

  it('reads the top-level keys as defaults (the older form), with defaults over them', () => {
    expect(resolveCodeModeSettings({ enabled: true, excludedTools: ['x'] }, 'any')).toEqual({
      enabled: true,
      excludedTools: ['x'],
      pinnedTools: [],
    });
    expect(
      resolveCodeModeSettings({ enabled: true, defaults: { enabled: false } }, 'any').enabled,
    ).toBe(false);
    expect(resolveCodeModeSettings(undefined, 'any')).toEqual({
      enabled: false,
      excludedTools: [],
      pinnedTools: [],
    });
  });

  it('is rejected by the config loader with the path when malformed', () => {
    expect(() => loadConfig({ codeMode: { models: [{ enabled: true }] } })).toThrow(
      /codeMode\.models\[0\]/,
    );
    expect(() => loadConfig({ codeMode: { defaults: { enabled: 'yes' } } })).toThrow(
      /codeMode\.defaults\.enabled/,
    );
    expect(() => loadConfig({ codeMode: { models: [{ match: 'x', excluded: [] }] } })).toThrow(
      /codeMode\.models\[0\]\.excluded/,
    );
  });
});

describe('codeModeLimits', () => {
  it('reads codeMode.limits (the config file, validated) as sandbox limits', () => {
    const limited = loadConfig({
      codeMode: { limits: { timeoutMs: 5000, memoryMb: 32, maxOutputKb: 8, maxToolCalls: 0 } },
    });
    expect(codeModeLimits(limited.codeMode?.limits)).toEqual({
      timeoutMs: 5000,
      memoryBytes: 32 * 1024 * 1024,
      maxLogBytes: 8 * 1024,
      maxResultBytes: 8 * 1024,
      maxToolCalls: 0,
    });
    expect(codeModeLimits(undefined)).toEqual({});
    expect(() => loadConfig({ codeMode: { limits: { timeoutMs: 0 } } })).toThrow(
      /codeMode\.limits\.timeoutMs/,
    );
    expect(() => loadConfig({ codeMode: { limits: { seconds: 5 } } })).toThrow(/codeMode\.limits/);
  });
});
