import {
  UnsupportedFeatureError,
  UsageError,
  assertToolChoice,
  type ChatRequest,
  type ChatWarning,
} from '@toolwire/schema';
import type { Content, GenerateContentConfig } from '@google/genai';
import { convertToGoogleMessages } from './google-convert-messages.js';
import { prepareGoogleTools } from './google-prepare-tools.js';

export interface GoogleRequestSettings {
  /** Send `VALIDATED` instead of `AUTO` (calls constrained to the schemas, text still allowed). */
  validatedFunctionCalls: boolean;
  /** `thinkingConfig` as sent (e.g. `{ includeThoughts: true, thinkingBudget: 1024 }`). */
  thinking: GenerateContentConfig['thinkingConfig'] | undefined;
  /** The key of `request.providerOptions` merged into the config. */
  providerName: string;
}

export interface BuiltGoogleRequest {
  contents: Content[];
  config: GenerateContentConfig;
  warnings: ChatWarning[];
}

/** Builds the `contents` and `config` of a `generateContent` call (no I/O). */
export function buildGoogleRequest(
  request: ChatRequest,
  settings: GoogleRequestSettings,
): BuiltGoogleRequest {
  if (!Array.isArray(request.messages))
    throw new UsageError({ message: 'request.messages must be an array of messages' });
  const warnings: ChatWarning[] = [];
  if ((request.mcpServers?.length ?? 0) > 0)
    throw new UnsupportedFeatureError({
      feature: 'mcpServers',
      message:
        'the Gemini API cannot call remote MCP servers for the model (request.mcpServers); connect them with @toolwire/mcp and pass their tools instead',
    });
  assertToolChoice(
    request.toolChoice,
    (request.tools ?? []).map((tool) => tool.name),
  );
  const { contents, system } = convertToGoogleMessages(request.messages, warnings);
  const config: GenerateContentConfig = {};
  if (system !== undefined) config.systemInstruction = { parts: [{ text: system }] };

  Object.assign(config, prepareGoogleTools(request, settings, warnings));
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0)
    config.stopSequences = request.stopSequences;
  if (settings.thinking) config.thinkingConfig = settings.thinking;
  const extra = request.providerOptions?.[settings.providerName];
  if (extra) Object.assign(config, extra);
  return { contents, config, warnings };
}
