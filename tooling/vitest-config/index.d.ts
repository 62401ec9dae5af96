import type { UserConfig } from 'vitest/config';

/** Where every Vitest run writes its JSON report (`vitest-results*.json`), relative to the package. */
export const resultsDirectory: string;
export const resultsFile: string;
export function createVitestConfig(overrides?: UserConfig): UserConfig;
declare const config: UserConfig;
export default config;
