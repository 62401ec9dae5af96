import { describe, expect, it } from 'vitest';
import { createIdentifierMap, isIdentifier, toIdentifier } from './identifiers.js';

describe('toIdentifier', () => {
  it('replaces characters that cannot appear in an identifier', () => {
    expect(toIdentifier('get-weather')).toBe('get_weather');
    expect(toIdentifier('a.b/c')).toBe('a_b_c');
    expect(toIdentifier('fs::read file')).toBe('fs__read_file');
    expect(toIdentifier('fs__read_file')).toBe('fs__read_file');
  });

  it('prefixes names that start with a digit and suffixes reserved words and script globals', () => {
    expect(toIdentifier('3d-render')).toBe('_3d_render');
    expect(toIdentifier('delete')).toBe('delete_');
    expect(toIdentifier('console')).toBe('console_');
    expect(toIdentifier('tools')).toBe('tools_');
    expect(toIdentifier('describe')).toBe('describe_');
    expect(toIdentifier('parseInt')).toBe('parseInt_');
    expect(toIdentifier('Map')).toBe('Map_');
    expect(toIdentifier('')).toBe('_');
  });
});

describe('createIdentifierMap', () => {
  it('gives every name a distinct valid identifier', () => {
    const names = ['get-weather', 'get_weather', 'get.weather', 'a.b/c', 'a-b-c', '1', '_1'];
    const map = createIdentifierMap(names);
    const identifiers = names.map((name) => map.get(name)!);
    expect(new Set(identifiers).size).toBe(names.length);
    for (const identifier of identifiers) expect(isIdentifier(identifier)).toBe(true);
  });

  it('lets a name that is already a clean identifier keep it, whatever the order', () => {
    expect(createIdentifierMap(['get-weather', 'get_weather']).get('get_weather')).toBe(
      'get_weather',
    );
    expect(createIdentifierMap(['get_weather', 'get-weather']).get('get-weather')).toBe(
      'get_weather_2',
    );
    expect(createIdentifierMap(['get-weather', 'get_weather']).get('get-weather')).toBe(
      'get_weather_2',
    );
  });

  it('does not depend on the order of the list', () => {
    const a = createIdentifierMap(['x-y', 'x.y', 'x/y']);
    const b = createIdentifierMap(['x/y', 'x.y', 'x-y']);
    for (const name of ['x-y', 'x.y', 'x/y']) expect(a.get(name)).toBe(b.get(name));
  });
});
