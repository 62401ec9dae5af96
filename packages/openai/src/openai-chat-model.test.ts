import { runChatModelContract, runToolFeaturesContract } from '@toolwire/testing/providers';
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

runToolFeaturesContract({
  name: 'createOpenAI',
  wire: 'openai-chat',
  createModel: (baseUrl) =>
    createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'k', provider: 'openai', maxRetries: 0 })(
      'gpt-5.4',
    ),
});

runToolFeaturesContract({
  name: 'createXai',
  wire: 'xai-chat',
  createModel: (baseUrl) =>
    createXai({ baseURL: `${baseUrl}/v1`, apiKey: 'k', maxRetries: 0 })('grok-4'),
});

runToolFeaturesContract({
  name: 'createOpenAI().responses',
  wire: 'openai-responses',
  createModel: (baseUrl) =>
    createOpenAI({
      baseURL: `${baseUrl}/v1`,
      apiKey: 'k',
      provider: 'openai',
      maxRetries: 0,
    }).responses('gpt-5.4'),
});
