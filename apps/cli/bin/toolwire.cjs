#!/usr/bin/env node
'use strict';
// The binary's launcher. It runs before anything else is loaded and uses nothing newer than
// Node 12, so that on an older Node the user reads which version is needed instead of a crash
// inside a dependency (undici on Node 20: "Cannot read properties of undefined (reading 'bind')").
const manifest = require('../package.json');

const wanted = /(\d+)\.(\d+)\.(\d+)/.exec(manifest.engines.node).slice(1).map(Number);
const running = process.versions.node.split('.').map(Number);
let older = false;
for (let i = 0; i < 3; i++) {
  if (running[i] !== wanted[i]) {
    older = running[i] < wanted[i];
    break;
  }
}
if (older) {
  process.stderr.write(
    `${Object.keys(manifest.bin)[0]}: needs Node ${wanted.join('.')} or newer; this is Node ${process.versions.node} (${process.execPath})\n`,
  );
  process.exit(1);
}
import('../dist/main.js');
