// pnpm bench:peers [--layers a,b] [--rounds N] [--seed N] [--markdown FILE]
// Runs each layer's contenders interleaved, one process each, and prints per layer the
// contenders, the floor and the goal ratios with min/median/max and "met" / "NOT MET".
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { markdown, runLayer, table, type LayerResult } from './harness.js';
import { layers } from './layers/index.js';

const { values } = parseArgs({
  options: {
    layers: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    seed: { type: 'string', default: '1' },
    markdown: { type: 'string' },
    'timeout-ms': { type: 'string', default: '300000' },
  },
});

const chosen = values.layers
  ? values.layers.split(',').map((name) => name.trim())
  : Object.keys(layers);
for (const name of chosen) {
  if (!layers[name]) {
    console.error(`Unknown layer "${name}". Layers: ${Object.keys(layers).join(', ')}`);
    process.exit(2);
  }
}
const rounds = Number(values.rounds);
const results: LayerResult[] = [];
for (const name of chosen) {
  for (const layer of await layers[name]!()) {
    console.log(`\n${layer.name}: ${layer.contenders.map((c) => c.name).join(', ')}`);
    const result = await runLayer(layer, {
      rounds,
      seed: Number(values.seed),
      timeoutMs: Number(values['timeout-ms']),
      log: (line) => console.log(line),
    });
    results.push(result);
    console.log(table(result));
  }
}
console.log('\nSummary');
for (const result of results) console.log(table(result));
if (values.markdown) {
  writeFileSync(values.markdown, `${markdown(results, rounds)}\n`);
  console.log(`\nMarkdown table written to ${values.markdown}`);
}
const unmet = results.flatMap((r) => [
  ...r.goals.filter((g) => !g.met).map((g) => `${r.layer}: ${g.subject} ÷ ${g.against}`),
  ...r.limits.filter((g) => !g.met).map((g) => `${r.layer}: ${g.subject} (limit ${g.limit})`),
]);
console.log(
  unmet.length === 0
    ? '\nEvery goal met.'
    : `\nGoals not met (${unmet.length}):\n  ${unmet.join('\n  ')}`,
);
