/**
 * `npm run bench:cli`: how fast the built CLI answers. Runs `reportd --version`, `--help` and `check`
 * (on config/reportd.example.yaml, its secrets from the environment) RUNS times each, with bare
 * `node -e 0` as the floor no command can go under, and prints each one's median wall time and median
 * CPU time (user + system of the child: on a shared machine, the part of the wall time that was the
 * command's own). Needs `npm run build` (it runs bin/reportd.js, as a user does).
 *
 * `npm run bench:cli -- <other checkout>` compares with another built checkout (say main's): runs
 * alternate between the two, in turn first, so a busy moment of a shared machine weighs on both alike.
 * Goals: `--version` and `--help` ≤ 150 ms, `check` ≤ 250 ms (median wall on an idle machine).
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.env.RUNS ?? 5);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BASELINE = process.argv[2] ? resolve(process.argv[2]) : undefined;
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

interface Run {
  wallMs: number;
  cpuMs: number;
}

function once(cwd: string, args: string[]): Run {
  const start = performance.now();
  const child = spawnSync(process.execPath, ['--import', CPU_PROBE, ...args], {
    cwd,
    env: ENV,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  const wallMs = performance.now() - start;
  if (child.status !== 0)
    throw new Error(`node ${args.join(' ')} in ${cwd} exited ${child.status}: ${child.stderr}`);
  const { user, system } = JSON.parse(String(child.output[3])) as { user: number; system: number };
  return { wallMs, cpuMs: (user + system) / 1000 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const loads = () =>
  loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');

const checkouts = BASELINE ? [BASELINE, ROOT] : [ROOT];
const runs = cases.map(() => checkouts.map((): Run[] => []));
const loadBefore = loads();
for (let round = 0; round < RUNS; round++) {
  cases.forEach(({ args }, index) => {
    // Each checkout goes first in every other round.
    const order = round % 2 === 0 ? checkouts.keys() : [...checkouts.keys()].reverse();
    for (const which of order) runs[index]![which]!.push(once(checkouts[which]!, args));
  });
}

const results = cases.map(({ name, goalMs }, index) =>
  checkouts.map((_, which) => {
    const own = runs[index]![which]!;
    return {
      name,
      goalMs,
      wall: median(own.map((run) => run.wallMs)),
      cpu: median(own.map((run) => run.cpuMs)),
    };
  }),
);
const mine = results.map((row) => row.at(-1)!);
const floor = mine[0]!;
const summary = mine
  .slice(1)
  .map(
    ({ name, goalMs, wall }) =>
      `${name} ${wall.toFixed(0)} ms (goal ≤ ${goalMs}, ${wall <= goalMs! ? 'met' : 'missed'})`,
  );
process.stdout.write(`${summary.join('; ')}; floor ${floor.wall.toFixed(0)} ms\n`);
process.stdout.write(`load average ${loadBefore} before, ${loads()} after; median of ${RUNS}\n`);
checkouts.forEach((checkout, which) => {
  if (BASELINE) process.stdout.write(`${which === 0 ? 'baseline' : 'this checkout'} ${checkout}\n`);
  const own = results.map((row) => row[which]!);
  for (const { name, wall, cpu } of own) {
    process.stdout.write(
      `  ${name.padEnd(20)} wall ${wall.toFixed(0).padStart(5)} ms (+${(wall - own[0]!.wall).toFixed(0)} over the floor)` +
        `  cpu ${cpu.toFixed(0).padStart(5)} ms (+${(cpu - own[0]!.cpu).toFixed(0)})\n`,
    );
  }
});
