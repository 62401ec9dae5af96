/**
 * A provider that is created on first use: the adapters' default instances (`openai`,
 * `anthropic`, …) read their API key from the environment when a model is first asked for, not
 * when the package is imported, so importing never throws for a missing key.
 */
export function lazyProvider<Provider extends (...args: never[]) => unknown>(
  create: () => Provider,
): Provider {
  let provider: Provider | undefined;
  const get = (): Provider => (provider ??= create());
  return new Proxy((() => {}) as unknown as Provider, {
    apply: (_target, thisArg, args: unknown[]) => Reflect.apply(get(), thisArg, args),
    get: (_target, key) => {
      const value: unknown = Reflect.get(get(), key);
      return typeof value === 'function' ? (value as () => unknown).bind(get()) : value;
    },
    has: (_target, key) => Reflect.has(get(), key),
  });
}
