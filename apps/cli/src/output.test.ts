import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { colorEnabled, oneLine } from './output.js';
import { renderTable } from './table.js';
import { describeError, exitCodeFor, UsageError } from './errors.js';
import { ToolwireError } from '@toolwire/schema';

describe('colorEnabled', () => {
  it('colours a terminal only, and honours NO_COLOR, TERM=dumb and FORCE_COLOR', () => {
    expect(colorEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled({}, { CI: 'true' })).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
  });
});

describe('renderTable', () => {
  it('aligns columns whatever the colour codes in the cells', () => {
    const colors = pc.createColors(true);
    const text = renderTable(
      ['NAME', 'STATUS'],
      [
        [colors.cyan('a'), colors.green('ok')],
        ['longer_name', colors.red('down')],
      ],
      colors,
    );
    // eslint-disable-next-line no-control-regex
    const plain = text.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
    expect(plain).toEqual(['NAME         STATUS', 'a            ok', 'longer_name  down']);
  });
});

describe('oneLine', () => {
  it('keeps the first line and cuts it with an ellipsis', () => {
    expect(oneLine('first\nsecond', 20)).toBe('first');
    expect(oneLine('abcdefghij', 5)).toBe('abcd…');
    expect(oneLine(undefined, 5)).toBe('');
  });
});

describe('exitCodeFor', () => {
  it('maps bad input to 2 and failures to 1', () => {
    expect(exitCodeFor(new UsageError({ message: 'bad' }))).toBe(2);
    expect(exitCodeFor(new ToolwireError('invalid_config', { message: 'x' }))).toBe(2);
    expect(exitCodeFor(new ToolwireError('no_such_tool', { message: 'x' }))).toBe(2);
    expect(exitCodeFor(new ToolwireError('connection', { message: 'x' }))).toBe(1);
    expect(exitCodeFor(new Error('plain'))).toBe(1);
  });

  it('prints one line without the stack', () => {
    expect(describeError(new Error('first\n  second  '))).toBe('first — second');
  });
});
