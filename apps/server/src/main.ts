#!/usr/bin/env node
import { runServerCli } from './server-cli.js';

process.exitCode = await runServerCli(process.argv.slice(2));
