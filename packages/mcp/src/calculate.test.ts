import { describe, expect, it } from 'vitest';
import { evaluateExpression, ExpressionError } from './calculate.js';

describe('evaluateExpression', () => {
  it.each([
    ['2+2', 4],
    ['2 + 3 * 4', 14],
    ['(2 + 3) * 4', 20],
    ['2 ^ 3 ^ 2', 512],
    ['2 ** 10', 1024],
    ['-2 ^ 2', -4],
    ['--3', 3],
    ['10 % 4', 2],
    ['7 / 2', 3.5],
    ['5!', 120],
    ['sqrt(16) + abs(-3)', 7],
    ['max(1, 5, 3) - min(4, 2)', 3],
    ['round(pi * 100) / 100', 3.14],
    ['1.5e3 + .5', 1500.5],
    ['0x1f + 0b101', 36],
    ['log(1000) + ln(e) + log2(8)', 7],
    ['2 × 3 ÷ 4 − 1', 0.5],
  ])('evaluates %s', (expression, expected) => {
    expect(evaluateExpression(expression)).toBeCloseTo(expected, 10);
  });

  it.each([
    ['2 +', 'expected a number'],
    ['(1 + 2', 'expected ")"'],
    ['1 / 0', 'division by zero'],
    ['sqrt(-1)', 'not a number'],
    ['foo(2)', 'unknown name "foo"'],
    ['process.exit(1)', 'unexpected character "."'],
    ['constructor', 'unknown name'],
    ['2 3', 'unexpected the number 3'],
    ['pow(2)', 'pow() takes 2 arguments'],
    ['1.5!', 'factorial needs a non-negative integer'],
    ['10^400', 'infinite'],
  ])('rejects %s with a clear error', (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrow(ExpressionError);
    expect(() => evaluateExpression(expression)).toThrow(message);
  });

  it('reports the position of the problem', () => {
    try {
      evaluateExpression('1 + $');
    } catch (error) {
      expect((error as ExpressionError).position).toBe(4);
      expect((error as Error).message).toContain('position 5');
    }
  });

  it('refuses absurd nesting instead of overflowing the stack', () => {
    expect(() => evaluateExpression(`${'('.repeat(500)}1${')'.repeat(500)}`)).toThrow(
      'nests deeper',
    );
  });
});
