export { ToolwireError, errorMessage } from './toolwire-error.js';
export { canonicalJson } from './canonical-json.js';
export type { ToolwireErrorOptions } from './toolwire-error.js';
export { toolErrorCategories, isToolErrorCategory } from './tool-error-category.js';
export type { ToolErrorCategory } from './tool-error-category.js';
export {
  InvalidToolDefinitionError,
  InvalidToolArgumentsError,
  ToolExecutionError,
  NoSuchToolError,
  CancelledError,
  TimeoutError,
  UsageError,
  formatIssues,
  nearestNames,
} from './errors.js';
export type { Issue, ToolArgumentsProblem } from './errors.js';
export {
  ProviderError,
  AuthenticationError,
  RateLimitError,
  ContextOverflowError,
  SchemaRejectedError,
  ServerError,
  ConnectionError,
  StreamProtocolError,
  InvalidRequestError,
  UnsupportedFeatureError,
  toolCallingUnsupportedError,
  parseRetryAfter,
} from './provider-errors.js';
export type { ProviderErrorCode, ProviderErrorOptions } from './provider-errors.js';
export { providerErrorFromStatus } from './provider-error-from-status.js';
export type { ProviderErrorFromStatusOptions } from './provider-error-from-status.js';
export {
  escapePointerSegment,
  joinPointer,
  isPlainObject,
  schemaAcceptsNull,
  schemaTypes,
} from './json-schema.js';
export type { JsonSchema, JsonSchemaType, JsonValue } from './json-schema.js';
export {
  getSchemaValidator,
  validateAgainstSchema,
  SchemaCompileError,
} from './schema-validator.js';
export type { SchemaValidator, ValidationResult } from './schema-validator.js';
export {
  defineTool,
  validateToolDefinition,
  toToolSpec,
  toolContent,
  TEXT_INPUT_SCHEMA,
  isToolContentOutput,
  SNAKE_CASE_TOOL_NAME,
  PROVIDER_SAFE_TOOL_NAME,
  MIN_DESCRIPTION_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_SCHEMA_DEPTH,
} from './define-tool.js';
export type {
  Tool,
  AnyTool,
  ToolSpec,
  ToolAnnotations,
  ToolDefinition,
  DefineToolOptions,
  ToolExecutionContext,
  ToolContentOutput,
  ToolInputFormat,
  ToolCaller,
} from './define-tool.js';
export type { RemoteMcpServer, ProviderToolCall, ToolApproval } from './provider-tools.js';
export {
  parseToolArguments,
  scanJsonPrefix,
  describeIssuesForModel,
} from './parse-tool-arguments.js';
export type {
  ParseToolArgumentsOptions,
  ParseToolArgumentsResult,
} from './parse-tool-arguments.js';
export { generateToolCallId, toolCallArgumentsText, toolCallArgumentsObject } from './tool-call.js';
export type { ToolCall } from './tool-call.js';
export {
  textResult,
  valueResult,
  errorResult,
  cancelledResult,
  failureText,
  toolFailureFromError,
  toolResultText,
  base64Bytes,
} from './tool-result.js';
export type {
  ToolResult,
  ToolResultPart,
  TextPart,
  JsonPart,
  ImagePart,
  ResourcePart,
  ToolFailure,
  ToolResultTextOptions,
} from './tool-result.js';
export { assertToolChoice, toolChoiceViolation, InvalidToolChoiceError } from './tool-choice.js';
export type { ToolChoice } from './tool-choice.js';
export { userMessageText } from './message.js';
export type {
  Message,
  SystemMessage,
  UserMessage,
  UserContentPart,
  AssistantMessage,
  ToolMessage,
  ReasoningPart,
} from './message.js';
export { Conversation } from './conversation.js';
export type { ConversationInit } from './conversation.js';
export { validateTranscript, repairTranscript, pendingToolCalls } from './transcript.js';
export { prepareTranscript } from './prepare-transcript.js';
export { replayToolArguments } from './replay-tool-arguments.js';
export type { TranscriptIssue, TranscriptIssueKind, TranscriptRepair } from './transcript.js';
export { executeToolCalls, createToolHandler, toolOutputToResult } from './execute-tool-calls.js';
export type { ExecuteToolCallsOptions, ToolCallHandler } from './execute-tool-calls.js';
export { emptyUsage, addUsage, collectStream } from './chat-model.js';
export { guardStream, guardPromise } from './guard-stream.js';
export type { GuardStreamOptions, GuardPromiseOptions } from './guard-stream.js';
export type {
  ChatModel,
  ChatRequest,
  ChatResponse,
  ChatStreamPart,
  ChatWarning,
  WarningKind,
  FinishReason,
  ModelCapabilities,
  ResponseFormat,
  Usage,
} from './chat-model.js';
export {
  normalizeToolSchema,
  normalizeToolSchemas,
  objectRootSchema,
  stripAnnotations,
  schemaChangeLog,
  mapSubschemas,
  mergeObjectBranches,
  removeKeywords,
  isObjectSchema,
  inlineRefs,
} from './normalize-tool-schema.js';
export type {
  SchemaChange,
  SchemaChangeReporter,
  ConvertedSchema,
} from './normalize-tool-schema.js';
export { estimateTokens, estimateToolListTokens } from './token-estimate.js';
export {
  ToolSelectionResponseSchema,
  FunctionCallResponseSchema,
  FinalResponseSchema,
} from './stage-schemas.js';
export type {
  ToolInfo,
  ToolSelectionResponse,
  FunctionCallResponse,
  FinalResponse,
} from './stage-schemas.js';
export { compileGlobs, matchesGlob } from './glob.js';
export { ToolSearchIndex, DEFAULT_SEARCH_LIMIT, searchTerms } from './tool-search.js';
export {
  ClientToolSearch,
  CLIENT_TOOL_SEARCH_KEY,
  hasDeferredTools,
} from './client-tool-search.js';
export type { ClientToolSearchOptions } from './client-tool-search.js';
export { describeWithExamples, plainFunctionTool, textInputSchema } from './plain-function-tool.js';
export type { SearchableTool, ToolSearchMatch, ToolSearchOptions } from './tool-search.js';
export { lazyProvider } from './lazy-provider.js';
export type { GlobMatcher } from './glob.js';
export {
  toolResultFromMcp,
  toolResultToMcp,
  toolResultPartToMcp,
  toolOutputToMcp,
  mcpResultCategory,
  TOOL_ERROR_CATEGORY_META,
} from './mcp-tool-result.js';
export type {
  McpCallToolResult,
  McpCallToolResultLike,
  McpContentBlock,
  McpTextContent,
  McpImageContent,
  McpAudioContent,
  McpEmbeddedResource,
  McpResourceLink,
} from './mcp-tool-result.js';
export type { ToolSource, ToolSourceTool, ToolSourceCallOptions } from './tool-source.js';
export {
  GATEWAY_ACTIONS,
  GATEWAY_INPUT_SCHEMA,
  gatewayToolDescription,
  parseGatewayRequest,
  findGatewayTarget,
  gatewayListing,
  gatewayDescription,
} from './gateway-tool.js';
export type { GatewayAction, GatewayRequest, GatewayTarget } from './gateway-tool.js';
export { parseTraceparent, formatTraceparent } from './traceparent.js';
export type { TraceparentFields } from './traceparent.js';
export { FairShareQueue } from './fair-share-queue.js';
export type {
  FairShareGrant,
  FairShareLimits,
  FairShareOptions,
  FairShareQueueOptions,
  FairShareRefusal,
  FairShareSnapshot,
} from './fair-share-queue.js';
