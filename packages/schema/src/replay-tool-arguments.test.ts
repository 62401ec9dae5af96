import { describe, expect, it } from 'vitest';
import { replayToolArguments } from './replay-tool-arguments.js';

describe('replayToolArguments', () => {
  it('passes an object through', () => {
    const args = { city: 'Oslo' };
    expect(replayToolArguments('weather', args)).toBe(args);
  });

  it('parses JSON text from another provider', () => {
    expect(replayToolArguments('weather', '{"city":"Oslo"}')).toEqual({ city: 'Oslo' });
  });

  it('treats empty text and null as no arguments', () => {
    expect(replayToolArguments('weather', '')).toEqual({});
    expect(replayToolArguments('weather', null)).toEqual({});
  });

  it('repairs slightly broken JSON text', () => {
    expect(replayToolArguments('weather', '{"city": "Oslo"')).toEqual({ city: 'Oslo' });
  });

  it('replays text that cannot be made into an object as {}', () => {
    expect(replayToolArguments('weather', '[1, 2]')).toEqual({});
    expect(replayToolArguments('weather', 42)).toEqual({});
  });
});
