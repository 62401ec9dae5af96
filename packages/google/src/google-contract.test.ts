import { runChatModelContract } from '@toolwire/testing/providers';
import { createGoogle } from './index.js';

runChatModelContract({
  name: 'createGoogle',
  provider: 'google',
  createModel: (baseUrl) =>
    createGoogle({ apiKey: 'gemini-test', baseURL: baseUrl })('gemini-test'),
});
