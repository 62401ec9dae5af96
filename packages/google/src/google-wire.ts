/**
 * The parts of the Gemini `generateContent` wire format this adapter reads (requests are built with
 * the SDK's own types). Loosely typed on purpose, so fields added by newer API versions pass.
 */

/** A `GenerateContentResponse` (or one streamed chunk of it), loosely typed. */
export interface GoogleWireResponse {
  candidates?: Array<{
    content?: {
      role?: string;
      parts?: Array<{
        text?: string;
        thought?: boolean;
        thoughtSignature?: string;
        functionCall?: { id?: string; name?: string; args?: unknown };
      }>;
    };
    finishReason?: string;
    finishMessage?: string;
  }>;
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
  usageMetadata?: GoogleWireUsage;
  modelVersion?: string;
  responseId?: string;
}

export interface GoogleWireUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}
