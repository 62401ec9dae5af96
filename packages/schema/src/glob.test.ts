import { describe, expect, it } from 'vitest';
import { compileGlobs, matchesGlob } from './glob.js';

describe('compileGlobs', () => {
  it('matches braces, classes, wildcards and single characters', () => {
    const braces = compileGlobs(['{read,write}_*'])!;
    expect(braces('read_file')).toBe(true);
    expect(braces('write_file')).toBe(true);
    expect(braces('delete_file')).toBe(false);
    const classes = compileGlobs(['read_[ab]*'])!;
    expect(classes('read_all')).toBe(true);
    expect(classes('read_bytes')).toBe(true);
    expect(classes('read_config')).toBe(false);
    expect(matchesGlob(['fs__?ead*'], 'fs__read_text_file')).toBe(true);
    expect(matchesGlob(['*'], '.hidden')).toBe(true);
  });

  it('is case-sensitive and anchored, and undefined without patterns', () => {
    expect(matchesGlob(['read_*'], 'READ_x')).toBe(false);
    expect(matchesGlob(['read'], 'read_file')).toBe(false);
    expect(compileGlobs([])).toBeUndefined();
    expect(matchesGlob([], 'x')).toBe(false);
  });
});
