/**
 * Runs in every test worker before each file. scripts/test.sh sets NODE_COMPILE_CACHE so vitest and
 * its workers load their packages from Node's compile cache instead of compiling them again on every
 * run. A worker has read it at its start; it is taken out of
 * the environment here so the processes a test starts (the built CLI, daemons) run as a user's do,
 * with the launcher's own cache (bin/reportd.js), which test/cli/launcher.test.ts checks.
 */
delete process.env.NODE_COMPILE_CACHE;
