// The sync tests drive the same built CLI as every other test.
export { runCli, spawnCli } from '../../helpers/cli.js';
