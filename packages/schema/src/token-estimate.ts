import type { ToolSpec } from './define-tool.js';

// Pre-tokenisation close to the cl100k/o200k split: contractions, letter runs, 1-3 digit groups,
// punctuation runs and whitespace. Long letter runs cost more than one token.
const PIECES =
  /'(?:s|t|re|ve|m|ll|d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+/gu;

/**
 * An estimate of the tokens a text costs with a BPE tokenizer of the GPT-4 family, within about
 * 10-15% on English and JSON. For exact counts use a real tokenizer (the code-mode benchmark does).
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(PIECES)) {
    const piece = match[0];
    const letters = piece.replace(/[^\p{L}]/gu, '').length;
    tokens += letters > 8 ? Math.ceil(letters / 6) : 1;
  }
  return tokens;
}

/**
 * Estimated prompt tokens of a tool list as sent in OpenAI function-calling form, plus a small
 * fixed cost per tool for the provider's own framing.
 */
export function estimateToolListTokens(tools: readonly ToolSpec[]): number {
  const PER_TOOL_OVERHEAD = 8;
  return tools.reduce(
    (sum, tool) =>
      sum +
      PER_TOOL_OVERHEAD +
      estimateTokens(
        JSON.stringify({
          type: 'function',
          function: {
            name: tool.name,
            description: tool.description,
            parameters: tool.inputSchema,
          },
        }),
      ),
    0,
  );
}
