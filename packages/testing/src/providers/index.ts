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
export {
  runChatModelContract,
  collectCheckedStream,
  comparableResponse,
  CONTRACT_TOOLS,
} from './chat-model-contract.js';
export type { ChatModelContractOptions } from './chat-model-contract.js';
export { WIRE_EXPECTATIONS } from './contract-wire-expectations.js';
export {
  runToolFeaturesContract,
  FEATURE_TOOLS,
  FEATURES_REQUEST,
  CONTRACT_MCP_SERVER,
} from './tool-features-contract.js';
export type { ToolFeaturesWire, ToolFeaturesContractOptions } from './tool-features-contract.js';
export type {
  WireExpectations,
  ExpectedContinuation,
  FixtureExpectation,
} from './contract-wire-expectations.js';
