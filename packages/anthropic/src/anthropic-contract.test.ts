import { runChatModelContract, runToolFeaturesContract } from '@toolwire/testing/providers';
import { createAnthropic } from './anthropic-provider.js';

runChatModelContract({
  name: '@toolwire/anthropic',
  provider: 'anthropic',
  createModel: (baseUrl) =>
    createAnthropic({ apiKey: 'sk-contract', baseURL: baseUrl })('claude-test-model'),
});

runToolFeaturesContract({
  name: '@toolwire/anthropic',
  wire: 'anthropic',
  createModel: (baseUrl) => createAnthropic({ apiKey: 'k', baseURL: baseUrl })('claude-sonnet-4-6'),
});
