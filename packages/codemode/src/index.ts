export { createCodeMode, createCodeModeTools, runCode } from './code-mode.js';
export { CodeModeCallError, CodeModeClosedError, InvalidCodeModeOptionsError } from './errors.js';
export type { CodeModeTools } from './code-mode.js';
export type {
  CodeMode,
  CodeModeOptions,
  CodeRunResult,
  CodeRunErrorKind,
  RunCodeOptions,
  ToolMode,
  ToolSearchResult,
  TypecheckMode,
} from './code-mode-types.js';
export {
  closeDefaultExecutor,
  configureSharedSandbox,
  holdSharedSandbox,
  warmUpSharedSandbox,
} from './default-executor.js';
export {
  formatRunResult,
  EXECUTE_CODE_TOOL_NAME,
  EXECUTE_CODE_OUTPUT_SCHEMA,
  structuredRunResult,
} from './execute-code-tool.js';
export { DEFAULT_DESCRIPTION_BUDGET_TOKENS } from './execute-code-description.js';
/** The tool search index lives in `@toolwire/schema` (one ranking for code mode and the gateway). */
export { ToolSearchIndex, DEFAULT_SEARCH_LIMIT } from '@toolwire/schema';
export type { SearchableTool, ToolSearchMatch, ToolSearchOptions } from '@toolwire/schema';
/** Refusals of a busy sandbox (an owner past its share): a rate-limit error with `retryAfterMs`. */
export { SandboxBusyError } from '@toolwire/executor';
export type { FairShareOptions, FairShareSnapshot } from '@toolwire/executor';
export {
  generateDeclarations,
  describeTools,
  DEFAULT_DECLARATION_BUDGET_TOKENS,
} from './declarations.js';
export type {
  CodeModeToolInfo,
  DeclarationDetail,
  Declarations,
  GenerateDeclarationsOptions,
  ToolBinding,
} from './declarations.js';
export { SchemaToTypeScript } from './schema-to-typescript.js';
export type { SchemaToTypeScriptOptions } from './schema-to-typescript.js';
export { createIdentifierMap, toIdentifier, isIdentifier } from './identifiers.js';
export { formatDiagnostics } from './code-diagnostic.js';
export type { CodeDiagnostic, TypeCheckerOptions } from './code-diagnostic.js';
export { IsolatedTypeChecker, sharedTypeChecker } from './isolated-type-checker.js';
export type {
  IsolatedTypeCheckerOptions,
  TypeCheckOutcome,
  TypeCheckRunOptions,
} from './isolated-type-checker.js';
export { normalizeScript, stripTypes } from './script.js';
export type { NormalizedScript, StripResult } from './script.js';
export { toolSource, toCallToolResult } from './tool-source.js';
export type {
  CodeModeToolSource,
  CallToolResultLike,
  CallToolContent,
  SourceTool,
  SourceCallOptions,
} from './tool-source.js';
export { unwrapToolResult } from './unwrap-tool-result.js';
export { codeModeLimits, resolveCodeModeSettings } from './code-mode-settings.js';
export type {
  CodeModeConfigSection,
  CodeModeSettings,
  ResolvedCodeModeSettings,
} from './code-mode-settings.js';
