// Fake provider HTTP servers (OpenAI, Anthropic, Ollama wire formats) and the chat-model contract suite.
export { startFakeProvider } from './fake-provider.js';
export type { FakeProvider, StartFakeProviderOptions } from './fake-provider.js';
export type {
  FakeProviderKind,
  FakeToolCall,
  FakeTurn,
  StaticFakeTurn,
  FakeAnswer,
  FakeUsage,
  FakeChunking,
  RecordedRequest,
} from './fake-turn.js';
export { wireFixture, wireFixtureJson, wireFixtureNames } from './wire-fixtures.js';
