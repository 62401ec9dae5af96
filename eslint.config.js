import config from '@toolwire/eslint-config';

export default config;
