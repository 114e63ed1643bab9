/**
 * Sets environment variables for a test file and returns what puts them back as they were. Test
 * files share a worker process (vitest.config.ts: not isolated), so a variable a file sets and leaves
 * would reach every file the worker runs after it.
 */
export function setEnv(vars: Record<string, string>): () => void {
  const saved = Object.keys(vars).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, vars);
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
