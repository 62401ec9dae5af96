// Writes config.schema.json from the TypeBox schema in src/config-schema.ts (run by `build`).
// The file is rewritten only when its content differs; prettier leaves it alone (.prettierignore),
// so the committed file is always exactly what this script writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { configJsonSchemaDocument } from '../src/config-schema.js';

const target = new URL('../config.schema.json', import.meta.url);
const generated = configJsonSchemaDocument();
let committed: unknown;
try {
  committed = JSON.parse(readFileSync(target, 'utf8'));
} catch {
  committed = undefined;
}
if (!isDeepStrictEqual(committed, generated)) {
  writeFileSync(target, `${JSON.stringify(generated, null, 2)}\n`);
  console.log('config.schema.json regenerated');
}
