import { runChatModelContract, runToolFeaturesContract } from '@toolwire/testing/providers';
import { createOllama } from './ollama-provider.js';

runChatModelContract({
  name: '@toolwire/ollama',
  provider: 'ollama',
  createModel: (baseUrl) => createOllama({ host: baseUrl })('llama3.2'),
});

runToolFeaturesContract({
  name: '@toolwire/ollama',
  wire: 'ollama',
  createModel: (baseUrl) => createOllama({ host: baseUrl })('llama3.2'),
});
