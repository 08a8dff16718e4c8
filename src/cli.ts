// Entry of the `parley` command line (bin/parley.js); the commands live in src/cli/.
export { runCli, USAGE_ERROR } from './cli/program.js';
