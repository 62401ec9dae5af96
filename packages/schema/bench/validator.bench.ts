// pnpm bench: the two JSON Schema backends side by side, per check and per compile, on a typical
// MCP tool schema (server-filesystem's edit_file). ajv generates code (Node, Deno, Bun); the walking
// validator is what browsers and workers get. This decides whether ajv is worth keeping where code
// generation is allowed.
import { Bench } from 'tinybench';
import { compileSchema as compileWithAjv } from '../src/compile-schema-ajv.js';
import { compileSchema as compileByWalking } from '../src/compile-schema-cfworker.js';
import type { JsonSchema } from '../src/index.js';
import { benchRows } from '@toolwire/bench-kit';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    edits: {
      type: 'array',
      items: {
        type: 'object',
        properties: { oldText: { type: 'string' }, newText: { type: 'string' } },
        required: ['oldText', 'newText'],
        additionalProperties: false,
      },
    },
    dryRun: { type: 'boolean', default: false },
  },
  required: ['path', 'edits'],
  additionalProperties: false,
};
const value = {
  path: '/tmp/a.txt',
  edits: [
    { oldText: 'a', newText: 'b' },
    { oldText: 'c', newText: 'd' },
  ],
  dryRun: true,
};

const withAjv = compileWithAjv(schema);
const byWalking = compileByWalking(schema);
let distinct = 0;
const bench = new Bench({ time: 400, warmup: true });
bench
  .add('check: ajv (generated code)', () => {
    if (withAjv(value)) throw new Error('unexpected');
  })
  .add('check: walking validator (no code generation)', () => {
    if (byWalking(value)) throw new Error('unexpected');
  })
  // A new schema object each time, as discovery hands over: what the first check of a tool costs.
  .add('compile: ajv', () => {
    compileWithAjv({ ...schema, title: `t${distinct++}` });
  })
  .add('compile: walking validator', () => {
    compileByWalking({ ...schema, title: `t${distinct++}` });
  });
await bench.run();

const rows = benchRows(bench);
console.log(`\n@toolwire/schema validators (Node ${process.versions.node}, ${process.arch})\n`);
console.log(`${'task'.padEnd(50)} ${'mean µs'.padStart(10)} ${'p99 µs'.padStart(10)}`);
for (const row of rows)
  console.log(
    `${row.name.padEnd(50)} ${row.meanUs.toFixed(3).padStart(10)} ${row.p99Us.toFixed(3).padStart(10)}`,
  );
const mean = (name: string) => rows.find((row) => row.name === name)!.meanUs;
const checkRatio =
  mean('check: walking validator (no code generation)') / mean('check: ajv (generated code)');
const compileCost = mean('compile: ajv') - mean('compile: walking validator');
const extraPerCheck =
  mean('check: walking validator (no code generation)') - mean('check: ajv (generated code)');
console.log(
  `\nwalking/ajv per check: ${checkRatio.toFixed(1)}x; ajv's compile is repaid after ${Math.ceil(compileCost / extraPerCheck)} checks of one schema`,
);
