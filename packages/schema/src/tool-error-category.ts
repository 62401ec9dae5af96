/**
 * The vocabulary for what a model sees when a tool fails (seed 001, ToolExecutionError.Category).
 */
export const toolErrorCategories = [
  'invalidArguments',
  'authenticationFailed',
  'rateLimited',
  'resourceNotFound',
  'executionTimeout',
  'networkError',
  'permissionDenied',
  'cancelled',
  'unknown',
] as const;

export type ToolErrorCategory = (typeof toolErrorCategories)[number];

export function isToolErrorCategory(value: unknown): value is ToolErrorCategory {
  return typeof value === 'string' && (toolErrorCategories as readonly string[]).includes(value);
}
