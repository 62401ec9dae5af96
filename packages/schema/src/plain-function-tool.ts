import { TEXT_INPUT_SCHEMA, type ToolInputFormat, type ToolSpec } from './define-tool.js';
import type { JsonSchema } from './json-schema.js';

/**
 * A tool's description with its `inputExamples` appended, for providers that have no field for
 * examples (every one but Anthropic): the model still sees what a good call looks like.
 */
export function describeWithExamples(tool: ToolSpec): string {
  const examples = tool.inputExamples ?? [];
  if (examples.length === 0) return tool.description;
  const lines = examples.map((example) => JSON.stringify(example));
  return `${tool.description}\n\nExample inputs:\n${lines.join('\n')}`;
}

/**
 * The input schema a free-text tool is offered with where the provider has no free-text tools:
 * its one string, `input`, constrained by the grammar as far as JSON Schema can say it (a regular
 * expression is a `pattern`; a Lark grammar is given in the description).
 */
export function textInputSchema(format: ToolInputFormat): JsonSchema {
  const input: JsonSchema =
    format.type === 'text'
      ? { type: 'string' }
      : format.syntax === 'regex'
        ? {
            type: 'string',
            pattern: format.definition,
            description: `Text that matches the regular expression ${format.definition}`,
          }
        : {
            type: 'string',
            description: `Text that matches this Lark grammar:\n${format.definition}`,
          };
  return { ...TEXT_INPUT_SCHEMA, properties: { input } };
}

/**
 * A tool as a plain function tool, for providers without the newer tool fields: examples in the
 * description (unless the provider takes them, `keepExamples`), a free-text tool as one string.
 * `deferred` and `allowedCallers` are dropped: deferral is handled before (`ClientToolSearch`).
 */
export function plainFunctionTool(
  tool: ToolSpec,
  options: { keepExamples?: boolean } = {},
): ToolSpec {
  const plain: ToolSpec = {
    name: tool.name,
    description: options.keepExamples ? tool.description : describeWithExamples(tool),
    inputSchema: tool.inputFormat ? textInputSchema(tool.inputFormat) : tool.inputSchema,
  };
  if (tool.outputSchema !== undefined) plain.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) plain.annotations = tool.annotations;
  if (options.keepExamples && tool.inputExamples) plain.inputExamples = tool.inputExamples;
  return plain;
}
