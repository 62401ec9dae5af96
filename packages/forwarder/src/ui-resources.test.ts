import { describe, expect, it } from 'vitest';
import {
  namespacedToolMeta,
  namespacedUiContents,
  namespacedUiResource,
  namespacedUiUri,
  upstreamUiUri,
} from './ui-resources.js';

describe('ui:// URIs on the aggregated route', () => {
  it('carry the upstream name, and lead back to the upstream and its own URI', () => {
    const uri = namespacedUiUri('apps', 'ui://clock/app.html', '__');
    expect(uri).toBe('ui://apps__clock/app.html');
    expect(upstreamUiUri(uri, '__', ['apps', 'more'])).toEqual({
      server: 'apps',
      uri: 'ui://clock/app.html',
    });
    // An authority-less URI survives the round trip.
    expect(upstreamUiUri(namespacedUiUri('apps', 'ui:///x', '__'), '__', ['apps'])).toEqual({
      server: 'apps',
      uri: 'ui:///x',
    });
  });

  it('leave other URIs alone, and name no upstream for a URI of none', () => {
    expect(namespacedUiUri('apps', 'file:///a', '__')).toBe('file:///a');
    expect(upstreamUiUri('ui://clock/app.html', '__', ['apps'])).toBeUndefined();
    expect(upstreamUiUri('ui://nobody__clock/app.html', '__', ['apps'])).toBeUndefined();
    expect(upstreamUiUri('file://apps__x', '__', ['apps'])).toBeUndefined();
  });

  it('rewrite listed resources, templates, read contents and the tool _meta that names a view', () => {
    expect(namespacedUiResource('apps', { uri: 'ui://a/b', name: 'b' }, '__')).toEqual({
      uri: 'ui://apps__a/b',
      name: 'b',
    });
    expect(namespacedUiResource('apps', { uriTemplate: 'ui://a/{id}' }, '__')).toEqual({
      uriTemplate: 'ui://apps__a/{id}',
    });
    expect(namespacedUiResource('apps', { uri: 'demo://x' }, '__')).toEqual({ uri: 'demo://x' });
    expect(
      namespacedUiContents('apps', { contents: [{ uri: 'ui://a/b', text: '<p>' }] }, '__'),
    ).toEqual({ contents: [{ uri: 'ui://apps__a/b', text: '<p>' }] });
    expect(
      namespacedToolMeta(
        'apps',
        {
          ui: { resourceUri: 'ui://a/b', visibility: ['model'] },
          'ui/resourceUri': 'ui://a/b',
          x: 1,
        },
        '__',
      ),
    ).toEqual({
      ui: { resourceUri: 'ui://apps__a/b', visibility: ['model'] },
      'ui/resourceUri': 'ui://apps__a/b',
      x: 1,
    });
  });
});
