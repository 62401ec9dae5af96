// MCP fixture servers (slow, crashing, changing tool list, bad schemas) for registry and forwarder tests.
export {};
