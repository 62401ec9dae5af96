import { runChatModelContract } from '@toolwire/testing/providers';
import { createOpenAI, createXai } from './index.js';

runChatModelContract({
  name: 'createOpenAI',
  provider: 'openai',
  createModel: (baseUrl) =>
    createOpenAI({
      baseURL: `${baseUrl}/v1`,
      apiKey: 'sk-test',
      provider: 'openai',
      maxRetries: 0,
    })('gpt-test'),
});

runChatModelContract({
  name: 'createXai',
  provider: 'openai',
  createModel: (baseUrl) =>
    createXai({ baseURL: `${baseUrl}/v1`, apiKey: 'xai-test', maxRetries: 0 })('grok-test'),
});

runChatModelContract({
  name: 'createOpenAI().responses',
  provider: 'openai-responses',
  createModel: (baseUrl) =>
    createOpenAI({
      baseURL: `${baseUrl}/v1`,
      apiKey: 'sk-test',
      provider: 'openai',
      maxRetries: 0,
    }).responses('gpt-5-test'),
});
