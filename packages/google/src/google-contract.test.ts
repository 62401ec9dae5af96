import { runChatModelContract, runToolFeaturesContract } from '@toolwire/testing/providers';
import { createGoogle } from './index.js';

runChatModelContract({
  name: 'createGoogle',
  provider: 'google',
  createModel: (baseUrl) =>
    createGoogle({ apiKey: 'gemini-test', baseURL: baseUrl })('gemini-test'),
});

runToolFeaturesContract({
  name: '@toolwire/google',
  wire: 'google',
  createModel: (baseUrl) => createGoogle({ apiKey: 'k', baseURL: baseUrl })('gemini-2.5-flash'),
});
