/**
 * `npm run bench:cli`: how fast the built CLI answers. Runs `reportd --version`, `--help` and `check`
 * (on config/reportd.example.yaml, its secrets from the environment) RUNS times each, one after the
 * other, with bare `node -e 0` as the floor no command can go under, and prints each one's median wall
 * time and median CPU time (user + system of the child: on a shared machine, the part of the wall time
 * that was the command's own). Needs `npm run build` (it runs bin/reportd.js, as a user does).
 * Goals: `--version` and `--help` ≤ 150 ms, `check` ≤ 250 ms (median wall on an idle machine).
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.env.RUNS ?? 5);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Written by the child as it exits, on a pipe of its own (stdout and stderr are the command's).
const CPU_PROBE =
  "data:text/javascript,import{writeSync}from'node:fs';process.on('exit',()=>writeSync(3,JSON.stringify(process.cpuUsage())))";
const ENV = {
  ...process.env,
  REPORTD_API_KEY: 'bench-key',
  REPORTD_API_SECRET: 'bench-secret',
  SMTP_PASSWORD: 'bench-password',
};

const cases: { name: string; args: string[]; goalMs?: number }[] = [
  { name: 'node -e 0 (floor)', args: ['-e', '0'] },
  { name: 'reportd --version', args: ['bin/reportd.js', '--version'], goalMs: 150 },
  { name: 'reportd --help', args: ['bin/reportd.js', '--help'], goalMs: 150 },
  {
    name: 'reportd check',
    args: ['bin/reportd.js', 'check', '--config', 'config/reportd.example.yaml'],
    goalMs: 250,
  },
];

function once(args: string[]): { wallMs: number; cpuMs: number } {
  const start = performance.now();
  const child = spawnSync(process.execPath, ['--import', CPU_PROBE, ...args], {
    cwd: ROOT,
    env: ENV,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  const wallMs = performance.now() - start;
  if (child.status !== 0) throw new Error(`node ${args.join(' ')} exited ${child.status}: ${child.stderr}`);
  const { user, system } = JSON.parse(String(child.output[3])) as { user: number; system: number };
  return { wallMs, cpuMs: (user + system) / 1000 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const results = cases.map(({ name, args, goalMs }) => {
  const runs = Array.from({ length: RUNS }, () => once(args));
  return {
    name,
    goalMs,
    wall: median(runs.map((run) => run.wallMs)),
    cpu: median(runs.map((run) => run.cpuMs)),
  };
});
const floor = results[0]!;
const summary = results
  .slice(1)
  .map(
    ({ name, goalMs, wall }) =>
      `${name} ${wall.toFixed(0)} ms (goal ≤ ${goalMs}, ${wall <= goalMs! ? 'met' : 'missed'})`,
  );
process.stdout.write(`${summary.join('; ')}; floor ${floor.wall.toFixed(0)} ms\n`);
process.stdout.write(
  `load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')}, median of ${RUNS}\n`,
);
for (const { name, wall, cpu } of results) {
  process.stdout.write(
    `  ${name.padEnd(20)} wall ${wall.toFixed(0).padStart(5)} ms (+${(wall - floor.wall).toFixed(0)} over the floor)` +
      `  cpu ${cpu.toFixed(0).padStart(5)} ms (+${(cpu - floor.cpu).toFixed(0)})\n`,
  );
}
