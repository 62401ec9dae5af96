// pnpm bench: argument validation per call and tool-schema normalisation per tool, with baselines
// measured in the same run (ajv compiling the schema on every call; a plain JSON deep copy).
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Bench } from 'tinybench';
import {
  inlineRefs,
  normalizeToolSchema,
  parseToolArguments,
  type JsonSchema,
} from '../src/index.js';
import { benchRows } from '@toolwire/bench-kit';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'File to edit' },
    edits: {
      type: 'array',
      items: {
        type: 'object',
        properties: { oldText: { type: 'string' }, newText: { type: 'string' } },
        required: ['oldText', 'newText'],
      },
    },
    dryRun: { type: 'boolean', default: false },
    encoding: { type: 'string', enum: ['utf8', 'latin1'] },
  },
  required: ['path', 'edits'],
};
const argumentsText = JSON.stringify({
  path: '/tmp/a.txt',
  edits: [
    { oldText: 'a', newText: 'b' },
    { oldText: 'c', newText: 'd' },
  ],
  dryRun: true,
});
const repairableText = "{'path': '/tmp/a.txt', 'edits': [{'oldText': 'a', 'newText': 'b'},],}";

const bench = new Bench({ time: 400, warmup: true });
bench
  .add('validate: parseToolArguments (cached validator)', () => {
    const result = parseToolArguments(schema, argumentsText);
    if (!result.success) throw new Error('unexpected');
  })
  .add('validate: repair + parse + validate', () => {
    const result = parseToolArguments(schema, repairableText);
    if (!result.success) throw new Error('unexpected');
  })
  .add('baseline: JSON.parse + ajv compile per call', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    if (!ajv.compile(schema)(JSON.parse(argumentsText))) throw new Error('unexpected');
  });
// The providers' own dialects (OpenAI strict, Gemini) are benchmarked in their adapters.
bench.add('convert: normalizeToolSchema per tool', () =>
  normalizeToolSchema(schema, { toolName: 'edit_file' }),
);
bench.add('convert: inlineRefs per tool', () => inlineRefs(schema));
bench.add('baseline: structuredClone per tool', () => structuredClone(schema));

await bench.run();

const rows = benchRows(bench);
const byName = Object.fromEntries(rows.map((row) => [row.name, row]));
const compileBaseline = byName['baseline: JSON.parse + ajv compile per call']!.meanUs;
const cloneBaseline = byName['baseline: structuredClone per tool']!.meanUs;

console.log(`\n@toolwire/schema benchmarks (Node ${process.versions.node}, ${process.arch})\n`);
console.log(
  `${'task'.padEnd(50)} ${'mean µs'.padStart(10)} ${'p99 µs'.padStart(10)} ${'ops/s'.padStart(12)}  ratio`,
);
for (const row of rows) {
  const base =
    row.name.startsWith('convert') || row.name.includes('structuredClone')
      ? cloneBaseline
      : compileBaseline;
  const label = row.name.startsWith('convert') ? 'structuredClone' : 'compile-per-call';
  const factor = base / row.meanUs;
  const ratio = row.name.startsWith('baseline')
    ? 'baseline'
    : factor >= 1
      ? `${factor.toFixed(factor >= 100 ? 0 : 1)}× faster than ${label}`
      : `${(1 / factor).toFixed(1)}× the cost of ${label}`;
  console.log(
    `${row.name.padEnd(50)} ${row.meanUs.toFixed(2).padStart(10)} ${row.p99Us.toFixed(2).padStart(10)} ${Math.round(row.opsPerSec).toLocaleString('en-US').padStart(12)}  ${ratio}`,
  );
}
