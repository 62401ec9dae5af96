import { Type, type Static } from '@sinclair/typebox';
import type { JsonSchema } from './json-schema.js';
import type { ToolAnnotations } from './define-tool.js';

/**
 * What discovery knows about a tool (seed 000 `ToolInfo`): the spec plus where it comes from.
 */
export interface ToolInfo {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /** 'native' or the MCP server's name. */
  source: string;
  /** The tool's name on its server, before namespacing. */
  originalName: string;
}

/** Stage 1 of the staged pipeline: which tools would help. */
export const ToolSelectionResponseSchema = Type.Object(
  {
    reasoning: Type.String({ description: 'Why these tools (or none) help with the request' }),
    selected_tools: Type.Array(Type.String(), {
      description: 'Names of the tools to use; empty for none',
    }),
  },
  { additionalProperties: false },
);
export type ToolSelectionResponse = Static<typeof ToolSelectionResponseSchema>;

/** Stage 2 of the staged pipeline: function calls in OpenAI form. */
export const FunctionCallResponseSchema = Type.Object(
  {
    tool_calls: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          type: Type.Literal('function'),
          function: Type.Object(
            { name: Type.String(), arguments: Type.String() },
            { additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type FunctionCallResponse = Static<typeof FunctionCallResponseSchema>;

/** Stage 4 of the staged pipeline: the answer for the user. */
export const FinalResponseSchema = Type.Object(
  { content: Type.String({ description: 'The final answer for the user' }) },
  { additionalProperties: false },
);
export type FinalResponse = Static<typeof FinalResponseSchema>;
