import type { UserConfig } from 'vitest/config';

export function createVitestConfig(overrides?: UserConfig): UserConfig;
declare const config: UserConfig;
export default config;
