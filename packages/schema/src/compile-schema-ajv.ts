// The JSON Schema backend where the runtime lets code be generated (Node, Deno, Bun): ajv compiles
// each schema to a function, which checks a value some hundred times faster than walking the schema
// (packages/schema/bench/validator.bench.ts); the gateway checks every call's arguments. Where code
// generation is refused at run time (a Content-Security-Policy, `--disallow-code-generation-from-
// strings`), it falls back to the walking validator. Bundlers for browsers and workers never load
// this file: `#compile-schema` resolves to compile-schema-cfworker.ts under those conditions.
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema } from './json-schema.js';
import { compileSchema as compileByWalking } from './compile-schema-cfworker.js';
import { dialectOf, issueFromAjv, type SchemaCheck } from './schema-issues.js';

// ajv-formats is CommonJS; under some loaders the function sits on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv) => Ajv;

function createAjv<T extends Ajv>(AjvClass: new (options: object) => T): T {
  const ajv = new AjvClass({
    // Foreign (MCP) schemas carry keywords ajv does not know; they must not fail compilation.
    strict: false,
    allErrors: true,
    validateFormats: true,
    // Tools receive what the model sent; nothing is coerced or defaulted silently.
    coerceTypes: false,
    useDefaults: false,
  });
  addFormats(ajv);
  return ajv;
}

let ajv2020: Ajv2020 | undefined;
let ajv07: Ajv | undefined;

function ajvFor(schema: JsonSchema): Ajv {
  const dialect = dialectOf(schema);
  if (dialect === '4' || dialect === '7') {
    ajv07 ??= createAjv(Ajv);
    return ajv07;
  }
  ajv2020 ??= createAjv(Ajv2020);
  return ajv2020;
}

let codeGeneration: boolean | undefined;

function codeGenerationAllowed(): boolean {
  if (codeGeneration === undefined) {
    try {
      // The one way to ask: what ajv does for every schema.
      // eslint-disable-next-line @typescript-eslint/no-implied-eval
      codeGeneration = new Function('return true')() === true;
    } catch {
      codeGeneration = false;
    }
  }
  return codeGeneration;
}

export function compileSchema(schema: JsonSchema): SchemaCheck {
  if (!codeGenerationAllowed()) return compileByWalking(schema);
  const compiled = ajvFor(schema).compile(schema);
  return (value) => (compiled(value) ? undefined : (compiled.errors ?? []).map(issueFromAjv));
}
