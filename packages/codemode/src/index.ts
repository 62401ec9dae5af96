export {
  createCodeMode,
  createCodeModeTools,
  runCode,
  closeDefaultExecutor,
  CodeModeClosedError,
  formatRunResult,
  EXECUTE_CODE_TOOL_NAME,
  EXECUTE_CODE_OUTPUT_SCHEMA,
  structuredRunResult,
} from './code-mode.js';
export type {
  CodeMode,
  CodeModeOptions,
  CodeRunResult,
  CodeRunErrorKind,
  RunCodeOptions,
  ToolMode,
  ToolSearchResult,
  TypecheckMode,
} from './code-mode.js';
export { DEFAULT_DESCRIPTION_BUDGET_TOKENS } from './execute-code-description.js';
/** The tool search index lives in `@toolwire/schema` (one ranking for code mode and the gateway). */
export { ToolSearchIndex, DEFAULT_SEARCH_LIMIT } from '@toolwire/schema';
export type { SearchableTool, ToolSearchMatch, ToolSearchOptions } from '@toolwire/schema';
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
export { CodeTypeChecker, formatDiagnostics } from './type-checker.js';
export type { CodeDiagnostic, TypeCheckerOptions } from './type-checker.js';
export { IsolatedTypeChecker, sharedTypeChecker } from './isolated-type-checker.js';
export type { IsolatedTypeCheckerOptions, TypeCheckRunOptions } from './isolated-type-checker.js';
export { normalizeScript, stripTypes, stripMarkdownFence } from './script.js';
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
export { resolveCodeModeSettings } from './code-mode-settings.js';
export type {
  CodeModeConfigSection,
  CodeModeSettings,
  ResolvedCodeModeSettings,
} from './code-mode-settings.js';
