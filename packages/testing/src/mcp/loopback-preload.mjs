// Preload (node --import) that pins listen(port) calls without a host to 127.0.0.1, for npm MCP
// servers that have no host option (server-everything binds every interface otherwise).
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (
    (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) &&
    (args.length === 1 || typeof args[1] === 'function')
  ) {
    args.splice(1, 0, '127.0.0.1');
  } else if (first && typeof first === 'object' && !first.path && !first.host) {
    args[0] = { ...first, host: '127.0.0.1' };
  }
  return listen.apply(this, args);
};
