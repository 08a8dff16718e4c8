#!/usr/bin/env node
// Entry point of the `parley` command; the compiled CLI lives in dist/ (npm run build).
import { runCli } from '../dist/src/cli.js';

const code = await runCli(process.argv.slice(2));
if (code >= 0) process.exit(code);
