export { default } from '@toolwire/vitest-config';
