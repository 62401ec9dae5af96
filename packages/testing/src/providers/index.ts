// Fake provider HTTP servers (OpenAI, Anthropic, Ollama wire formats) and the chat-model contract suite.
export {};
