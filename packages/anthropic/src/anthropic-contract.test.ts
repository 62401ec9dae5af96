import { runChatModelContract } from '@toolwire/testing/providers';
import { createAnthropic } from './anthropic-provider.js';

runChatModelContract({
  name: '@toolwire/anthropic',
  provider: 'anthropic',
  createModel: (baseUrl) =>
    createAnthropic({ apiKey: 'sk-contract', baseURL: baseUrl })('claude-test-model'),
});
