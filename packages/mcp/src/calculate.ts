import { ToolwireError } from '@toolwire/schema';

/**
 * A small arithmetic language, parsed and evaluated without `eval`: numbers (`1.5`, `2e3`, `0x1f`),
 * `+ - * / %`, `^` and `**` (power, right-associative), unary `+`/`-`, postfix `!`, parentheses,
 * constants (`pi`, `e`, `tau`) and functions (`sqrt(x)`, `max(a, b, …)`, …).
 */
export class ExpressionError extends ToolwireError {
  readonly position: number;
  constructor(message: string, position: number) {
    super('invalid_expression', { message: `${message} at position ${position + 1}` });
    this.name = 'ExpressionError';
    this.position = position;
  }
}

type Token =
  | { kind: 'number'; value: number; at: number }
  | { kind: 'name'; value: string; at: number }
  | { kind: 'op'; value: string; at: number }
  | { kind: 'end'; at: number };

// Maps, not object literals: a name like `constructor` must not find Object.prototype members.
const constants = new Map<string, number>([
  ['pi', Math.PI],
  ['e', Math.E],
  ['tau', 2 * Math.PI],
]);

const functions = new Map<string, { arity: number | 'many'; fn: (...args: number[]) => number }>(
  Object.entries({
    sqrt: { arity: 1, fn: Math.sqrt },
    cbrt: { arity: 1, fn: Math.cbrt },
    abs: { arity: 1, fn: Math.abs },
    sin: { arity: 1, fn: Math.sin },
    cos: { arity: 1, fn: Math.cos },
    tan: { arity: 1, fn: Math.tan },
    asin: { arity: 1, fn: Math.asin },
    acos: { arity: 1, fn: Math.acos },
    atan: { arity: 1, fn: Math.atan },
    atan2: { arity: 2, fn: Math.atan2 },
    sinh: { arity: 1, fn: Math.sinh },
    cosh: { arity: 1, fn: Math.cosh },
    tanh: { arity: 1, fn: Math.tanh },
    exp: { arity: 1, fn: Math.exp },
    ln: { arity: 1, fn: Math.log },
    log: { arity: 1, fn: Math.log10 },
    log10: { arity: 1, fn: Math.log10 },
    log2: { arity: 1, fn: Math.log2 },
    floor: { arity: 1, fn: Math.floor },
    ceil: { arity: 1, fn: Math.ceil },
    round: { arity: 1, fn: Math.round },
    trunc: { arity: 1, fn: Math.trunc },
    sign: { arity: 1, fn: Math.sign },
    pow: { arity: 2, fn: Math.pow },
    hypot: { arity: 'many', fn: Math.hypot },
    min: { arity: 'many', fn: Math.min },
    max: { arity: 'many', fn: Math.max },
  } satisfies Record<string, { arity: number | 'many'; fn: (...args: number[]) => number }>),
);

const MAX_LENGTH = 10_000;
const MAX_DEPTH = 200;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (/\s/.test(char)) {
      i++;
      continue;
    }
    const number = /^(0x[0-9a-fA-F]+|0b[01]+|(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?)/.exec(
      text.slice(i),
    );
    if (number) {
      const literal = number[0].replace(/_/g, '');
      const value = /^0[xb]/.test(literal) ? Number(literal) : Number.parseFloat(literal);
      tokens.push({ kind: 'number', value, at: i });
      i += number[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (name) {
      tokens.push({ kind: 'name', value: name[0].toLowerCase(), at: i });
      i += name[0].length;
      continue;
    }
    if (text.startsWith('**', i)) {
      tokens.push({ kind: 'op', value: '^', at: i });
      i += 2;
      continue;
    }
    if ('+-*/%^(),!×÷−'.includes(char)) {
      const value = char === '×' ? '*' : char === '÷' ? '/' : char === '−' ? '-' : char;
      tokens.push({ kind: 'op', value, at: i });
      i++;
      continue;
    }
    throw new ExpressionError(`unexpected character "${char}"`, i);
  }
  tokens.push({ kind: 'end', at: text.length });
  return tokens;
}

/** Evaluates an arithmetic expression. Throws `ExpressionError` (with the position) when it is not one. */
export function evaluateExpression(expression: string): number {
  if (expression.length > MAX_LENGTH)
    throw new ExpressionError(`expression is longer than ${MAX_LENGTH} characters`, 0);
  const tokens = tokenize(expression);
  let index = 0;
  let depth = 0;
  const peek = (): Token => tokens[index]!;
  const next = (): Token => tokens[index++]!;
  const isOp = (token: Token, value: string): boolean =>
    token.kind === 'op' && token.value === value;
  const expect = (value: string): void => {
    const token = next();
    if (!isOp(token, value))
      throw new ExpressionError(`expected "${value}" but found ${describe(token)}`, token.at);
  };

  // Precedence climbing: + - (1) < * / % (2) < unary (3) < ^ (4, right) < postfix ! (5).
  const parseExpression = (): number => {
    let left = parseTerm();
    for (let token = peek(); isOp(token, '+') || isOp(token, '-'); token = peek()) {
      next();
      const right = parseTerm();
      left = (token as { value: string }).value === '+' ? left + right : left - right;
    }
    return left;
  };
  const parseTerm = (): number => {
    let left = parseUnary();
    for (
      let token = peek();
      isOp(token, '*') || isOp(token, '/') || isOp(token, '%');
      token = peek()
    ) {
      next();
      const right = parseUnary();
      const op = (token as { value: string }).value;
      if ((op === '/' || op === '%') && right === 0)
        throw new ExpressionError('division by zero', token.at);
      left = op === '*' ? left * right : op === '/' ? left / right : left % right;
    }
    return left;
  };
  const parseUnary = (): number => {
    const token = peek();
    if (isOp(token, '-') || isOp(token, '+')) {
      next();
      return enter(() => (isOp(token, '-') ? -parseUnary() : parseUnary()));
    }
    return parsePower();
  };
  const parsePower = (): number => {
    const base = parsePostfix();
    if (isOp(peek(), '^')) {
      next();
      return base ** enter(parseUnary);
    }
    return base;
  };
  const parsePostfix = (): number => {
    let value = parsePrimary();
    while (isOp(peek(), '!')) {
      const token = next();
      value = factorial(value, token.at);
    }
    return value;
  };
  const parsePrimary = (): number => {
    const token = next();
    if (token.kind === 'number') return token.value;
    if (isOp(token, '(')) {
      const value = enter(parseExpression);
      expect(')');
      return value;
    }
    if (token.kind === 'name') {
      const fn = functions.get(token.value);
      if (fn && isOp(peek(), '(')) {
        next();
        const args: number[] = [];
        if (!isOp(peek(), ')')) {
          args.push(enter(parseExpression));
          while (isOp(peek(), ',')) {
            next();
            args.push(enter(parseExpression));
          }
        }
        expect(')');
        if (fn.arity === 'many' ? args.length === 0 : args.length !== fn.arity) {
          throw new ExpressionError(
            `${token.value}() takes ${fn.arity === 'many' ? 'at least 1 argument' : `${fn.arity} argument${fn.arity === 1 ? '' : 's'}`}, got ${args.length}`,
            token.at,
          );
        }
        return fn.fn(...args);
      }
      const constant = constants.get(token.value);
      if (constant !== undefined) return constant;
      if (fn)
        throw new ExpressionError(
          `function ${token.value} needs parentheses: ${token.value}(…)`,
          token.at,
        );
      throw new ExpressionError(
        `unknown name "${token.value}" (known: ${[...constants.keys(), ...functions.keys()].join(', ')})`,
        token.at,
      );
    }
    throw new ExpressionError(
      `expected a number, "(" or a function but found ${describe(token)}`,
      token.at,
    );
  };
  const enter = <T>(fn: () => T): T => {
    if (++depth > MAX_DEPTH)
      throw new ExpressionError(`expression nests deeper than ${MAX_DEPTH} levels`, peek().at);
    try {
      return fn();
    } finally {
      depth--;
    }
  };

  const value = parseExpression();
  const rest = peek();
  if (rest.kind !== 'end') throw new ExpressionError(`unexpected ${describe(rest)}`, rest.at);
  if (Number.isNaN(value))
    throw new ExpressionError('the result is not a number (e.g. sqrt of a negative number)', 0);
  if (!Number.isFinite(value)) throw new ExpressionError('the result is infinite (overflow)', 0);
  return value;
}

function factorial(value: number, at: number): number {
  if (!Number.isInteger(value) || value < 0)
    throw new ExpressionError('factorial needs a non-negative integer', at);
  if (value > 170) throw new ExpressionError('factorial overflows above 170!', at);
  let result = 1;
  for (let i = 2; i <= value; i++) result *= i;
  return result;
}

function describe(token: Token): string {
  if (token.kind === 'end') return 'the end of the expression';
  if (token.kind === 'number') return `the number ${token.value}`;
  return `"${token.value}"`;
}
