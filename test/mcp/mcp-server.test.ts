import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeRows, measureRuns } from '../../src/insight/row-changes.js';
import { setDetailsOf } from '../../src/insight/run-changes.js';
import type { InsightRow } from '../../src/insight/sample-sizes.js';
import { HOSTILE } from '../../src/sandbox/dataset.js';
import { BIN } from '../helpers/cli.js';
import { foreignHeaders, rawRequest } from '../helpers/raw-http.js';
import { type SyncEnv, startSyncEnv } from '../sync/helpers/sync-env.js';

/**
 * `reportd mcp` as an assistant meets it: the built CLI as a separate process, driven by the MCP
 * SDK's own client over stdio and over Streamable HTTP, on a store synced from the hostile sandbox.
 * The client checks every structured answer against the tool's output schema; the numbers are
 * checked against the store's rows.
 */

const TOKEN = 'mcp-test-token-7f3a91';
const TOOLS = [
  'cited_sources',
  'compare_runs',
  'delivered_files',
  'error_register',
  'list_metrics',
  'list_runs',
  'list_sets',
  'metric_series',
  'render_report',
];

let env: SyncEnv;
let config: string;
let stdio: Client;
const children: ChildProcess[] = [];

beforeAll(async () => {
  env = await startSyncEnv({
    rate: { requests: 2000, windowMs: 1000 },
    sandbox: { hostile: true },
    settings: { query_sets: [101, 102], backfill_runs: 3 },
    concurrency: 8,
  });
  await env.sync();
  config = env.writeConfig();
  appendFileSync(config, `http: { auth: { bearer_token: ${TOKEN} } }\noutput: { dir: ${env.dir}/out }\n`);
  stdio = new Client({ name: 'reportd-test', version: '1.0.0' });
  await stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--config', config],
      stderr: 'pipe',
    }),
  );
}, 90_000);
afterAll(async () => {
  await stdio?.close();
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await env.close();
});

// biome-ignore lint/suspicious/noExplicitAny: answers read loosely; the assertions say what matters.
type Structured = Record<string, any>;
async function call(name: string, args: Record<string, unknown>, client = stdio): Promise<Structured> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  expect(result.structuredContent).toBeDefined();
  return result.structuredContent as Structured;
}
async function toolError(name: string, args: Record<string, unknown>): Promise<string> {
  const result = await stdio.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  const text = (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
  expect(text).not.toMatch(/\n\s+at /);
  return text;
}

async function derivedRuns(querySetId: number) {
  return env.store.all<{ snapshot_id: number; run_id: number }>(
    `SELECT s.id AS snapshot_id, s.run_id FROM snapshots s JOIN metric_derivations d ON d.snapshot_id = s.id
     WHERE s.query_set_id = ? ORDER BY s.run_id`,
    [querySetId],
  );
}

describe('reportd mcp over stdio, with the SDK client', () => {
  it('lists the tools, each with an input and an output schema and a description', async () => {
    const { tools } = await stdio.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.description!.length).toBeGreaterThan(60);
    }
  });

  it("answers with the store's numbers: sets, runs, a series, movers, the register, sources", async () => {
    const sets = await call('list_sets', {});
    // The catalog's other sets are listed too, with no runs stored.
    expect(
      sets.sets.filter((s: Structured) => s.runs_stored > 0).map((s: Structured) => s.query_set_id),
    ).toEqual([101, 102]);
    const runs = await derivedRuns(101);
    expect(sets.sets[0].runs_stored).toBe(runs.length);
    const listed = await call('list_runs', { query_set_id: 101, limit: 2 });
    expect(listed.total).toBe(runs.length);
    expect(listed.runs.map((r: Structured) => r.run_id)).toEqual(
      runs
        .map((r) => r.run_id)
        .reverse()
        .slice(0, 2),
    );
    expect(listed.next_offset).toBe(2);

    const series = await call('metric_series', { query_set_id: 101, metric: 'presence.weighted.current' });
    expect(series.unit).toBe('percent');
    expect(series.title).toBe('Weighted presence');
    const stored = await env.store.all<{ run_id: number; value: number }>(
      `SELECT run_id, value FROM metric_values WHERE query_set_id = 101 AND endpoint = 'presence.weighted'
       AND field = 'current' AND dimension = '' ORDER BY run_id`,
    );
    expect(series.points.map((p: Structured) => [p.run_id, p.value])).toEqual(
      stored.map((r) => [r.run_id, r.value]),
    );
    // The set's oldest stored run has no change; every later one is judged (see the noise test below).
    expect(series.points[0]).toMatchObject({ change: null, significance: null, interval: null, q: null });
    expect(series.points.slice(1).every((p: Structured) => p.significance !== null)).toBe(true);

    const byEngine = await call('metric_series', {
      query_set_id: 101,
      metric: 'presence.by-engine.weighted',
      by: 'engine',
      label: 'Perplexity',
      last_runs: 2,
    });
    expect(byEngine.points).toHaveLength(2);
    expect(byEngine.points.every((p: Structured) => p.label === 'Perplexity')).toBe(true);

    const [older, newer] = runs.slice(-2);
    const moved = await call('compare_runs', { query_set_id: 101 });
    expect(moved.base.run_id).toBe(older!.run_id);
    expect(moved.run.run_id).toBe(newer!.run_id);
    expect(moved.movers.length).toBeGreaterThan(0);
    for (const mover of moved.movers.slice(0, 5)) {
      const [endpointGroup, endpointName, ...field] = mover.metric.split('.');
      const value = async (snapshotId: number) =>
        (
          await env.store.get<{ value: number }>(
            `SELECT value FROM metric_values WHERE snapshot_id = ? AND endpoint = ? AND field = ? AND dimension = ?
             AND COALESCE(dimension_label, '') = ?`,
            [
              snapshotId,
              `${endpointGroup}.${endpointName}`,
              field.join('.'),
              mover.breakdown ?? '',
              mover.label ?? '',
            ],
          )
        )?.value;
      expect(await value(older!.snapshot_id)).toBe(mover.before);
      expect(await value(newer!.snapshot_id)).toBe(mover.after);
    }

    const register = await call('error_register', { query_set_id: 101 });
    const ids = async (snapshotId: number) =>
      new Set(
        (
          await env.store.all<{ error_id: string; engine: string | null }>(
            'SELECT error_id, engine FROM metric_error_register WHERE snapshot_id = ?',
            [snapshotId],
          )
        ).map((e) => `${e.error_id}|${e.engine}`),
      );
    const before = await ids(older!.snapshot_id);
    const after = await ids(newer!.snapshot_id);
    expect(register.new.length).toBe([...after].filter((k) => !before.has(k)).length);
    expect(register.resolved.length).toBe([...before].filter((k) => !after.has(k)).length);

    const cited = await call('cited_sources', { query_set_id: 101, limit: 5 });
    const sourceCount = await env.store.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM metric_sources WHERE snapshot_id = ?',
      [newer!.snapshot_id],
    );
    expect(cited.total).toBe(Number(sourceCount!.n));
    expect(cited.sources.length).toBeLessThanOrEqual(5);
  });

  it('marks every change in a series and among the movers as the noise model does, with its interval and n', async () => {
    // The SDK client validates each structured answer against the tool's output schema (listed above).
    const runs = await derivedRuns(101);
    const account = (await env.store.get<{ account: string }>('SELECT account FROM snapshots WHERE id = ?', [
      runs[0]!.snapshot_id,
    ]))!.account;
    const details = await setDetailsOf(env.store, account, 101);
    const rowsOf = (snapshotId: number) =>
      env.store.all<InsightRow>(
        'SELECT endpoint, field, dimension, dimension_id, dimension_label, value, unit FROM metric_values WHERE snapshot_id = ?',
        [snapshotId],
      );
    /**
     * What src/insight says of the change of one metric row between two stored runs, read whole, judged
     * in the run's own family (every compared row of the two runs), whatever the answer asked for.
     */
    const expected = async (
      from: number,
      to: number,
      row: { endpoint: string; field: string; dimension: string; label: string | null },
    ) => {
      const measured = measureRuns(await rowsOf(from), await rowsOf(to), { before: details, after: details });
      const changes = judgeRows(measured);
      const found = changes.find(
        (c) =>
          c.endpoint === row.endpoint &&
          c.field === row.field &&
          c.dimension === row.dimension &&
          (c.dimension_label ?? null) === row.label,
      );
      if (!found) return undefined;
      return {
        change: found.change,
        significance: found.significance,
        interval: found.low === null ? null : { low: found.low, high: found.high },
        interval_level: found.level,
        p: found.p,
        q: found.q,
        family_size: found.familySize,
        n_before: found.nBefore,
        n_after: found.nAfter,
        n_source: found.nSource,
        note: found.note,
      };
    };
    const judged = (p: Structured) => ({
      change: p.change,
      significance: p.significance,
      interval: p.interval,
      interval_level: p.interval_level,
      p: p.p,
      q: p.q,
      family_size: p.family_size,
      n_before: p.n_before,
      n_after: p.n_after,
      n_source: p.n_source,
      note: p.note,
    });
    const gross = await call('metric_series', { query_set_id: 101, metric: 'presence.gross.current' });
    expect(gross.points).toHaveLength(runs.length);
    for (let i = 1; i < runs.length; i++) {
      const want = await expected(runs[i - 1]!.snapshot_id, runs[i]!.snapshot_id, {
        endpoint: 'presence.gross',
        field: 'current',
        dimension: '',
        label: null,
      });
      expect(want?.significance).toMatch(/^(likely|unclear)$/);
      // Judged in its run's headline family (weighted and gross presence), never alone because the
      // answer asks for one metric.
      expect(want!.family_size).toBe(2);
      expect(want!.n_after).toBeGreaterThan(0);
      expect(judged(gross.points[i])).toEqual(want);
    }

    // One run only: its change is against the stored run before the range, per engine.
    const engine = await call('metric_series', {
      query_set_id: 101,
      metric: 'presence.by-engine.gross',
      by: 'engine',
      label: 'Perplexity',
      last_runs: 1,
    });
    expect(judged(engine.points[0])).toEqual(
      await expected(runs.at(-2)!.snapshot_id, runs.at(-1)!.snapshot_id, {
        endpoint: 'presence.by-engine',
        field: 'gross',
        dimension: 'engine',
        label: 'Perplexity',
      }),
    );
    expect(engine.points[0].n_source).toMatch(/engines/);

    const marks = new Set<string>();
    // compare_runs quotes the run's own family whatever the prefix: a narrower question never shrinks it.
    for (const args of [
      { query_set_id: 101, limit: 30 },
      { query_set_id: 101, metric_prefix: 'presence.by-engine', limit: 100 },
      { query_set_id: 101, metric_prefix: 'presence.gross', limit: 5 },
      { query_set_id: 101, metric_prefix: 'life.', limit: 100 },
    ]) {
      const answer = await call('compare_runs', args);
      const { movers } = answer;
      // Judged changes first (likely, then unclear), then the ones not judged; the rest counted.
      const rank = { likely: 0, unclear: 1, unknown: 2, invalid: 3 } as Record<string, number>;
      const ranks = movers.map((m: Structured) => rank[m.significance as string]!);
      expect(ranks).toEqual([...ranks].sort((a: number, b: number) => a - b));
      expect(answer.left_out).toBeGreaterThanOrEqual(0);
      expect(answer.family.size).toBeGreaterThan(10);
      for (const mover of movers) {
        const [group, name, ...field] = mover.metric.split('.');
        const want = await expected(runs.at(-2)!.snapshot_id, runs.at(-1)!.snapshot_id, {
          endpoint: `${group}.${name}`,
          field: field.join('.'),
          dimension: mover.breakdown ?? '',
          label: mover.label,
        });
        // Fields the model does not judge (themselves changes) are unknown, never likely.
        if (want) expect(judged(mover)).toEqual(want);
        else expect(mover).toMatchObject({ significance: 'unknown', interval: null });
        marks.add(mover.significance);
      }
    }
    expect([...marks]).toEqual(expect.arrayContaining(['unclear', 'unknown']));

    // Life is a score, not a share of answers: its change has no interval and is unknown.
    const life = await call('metric_series', { query_set_id: 101, metric: 'life.kpi.current' });
    for (const point of life.points.slice(1))
      expect(point).toMatchObject({ significance: 'unknown', interval: null, p: null, q: null });
    expect(life.points[1].change).toBeCloseTo(life.points[1].value - life.points[0].value, 9);
  });

  it("lists a set's metrics with titles and units, and renders its workbook as a resource link", async () => {
    const metrics = await call('list_metrics', { query_set_id: 102 });
    const weighted = metrics.metrics.find((m: Structured) => m.metric === 'presence.by-engine.weighted');
    expect(weighted).toMatchObject({ unit: 'percent', breakdowns: ['engine'] });
    const result = await stdio.callTool({
      name: 'render_report',
      arguments: { query_set_id: 102, format: 'xlsx' },
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const path = (result.structuredContent as Structured).path as string;
    expect(path).toMatch(/\.xlsx$/);
    expect(existsSync(path)).toBe(true);
    expect((result.content as { type: string }[]).some((c) => c.type === 'resource_link')).toBe(true);
  });

  it('says what is wrong, in one line, for an unknown set, a run of another set and 10,000 runs', async () => {
    expect(await toolError('list_runs', { query_set_id: 999 })).toMatch(
      /query set 999 is not in the store \(sets with data: 101, 102\)/,
    );
    const otherRun = (await derivedRuns(102))[0]!.run_id;
    expect(await toolError('compare_runs', { query_set_id: 101, run_id: otherRun })).toBe(
      `run ${otherRun} is a run of query set 102, not of query set 101`,
    );
    expect(
      await toolError('metric_series', {
        query_set_id: 101,
        metric: 'presence.gross.current',
        last_runs: 10_000,
      }),
    ).toMatch(/last_runs 10000 is more than 100 runs/);
    expect(
      await toolError('metric_series', { query_set_id: 101, metric: 'presence.nothing.current' }),
    ).toMatch(/metric "presence.nothing.current" is not stored for query set 101/);
  });

  it("gives the hostile sandbox's strings back as plain data", async () => {
    const share = await call('metric_series', {
      query_set_id: 101,
      metric: 'overview.competitive-context.share',
      by: 'competitor',
      last_runs: 1,
    });
    const labels = share.points.map((p: Structured) => p.label);
    if (!labels.includes(HOSTILE.competitorName)) {
      const other = await call('metric_series', {
        query_set_id: 102,
        metric: 'overview.competitive-context.share',
        by: 'competitor',
        last_runs: 1,
      });
      labels.push(...other.points.map((p: Structured) => p.label));
    }
    expect(labels).toContain(HOSTILE.competitorName);
    // The oldest run has nothing before it: its whole register is new, the hostile note with it.
    const notes: string[] = [];
    for (const set of [101, 102]) {
      const oldest = (await derivedRuns(set))[0]!;
      const register = await call('error_register', {
        query_set_id: set,
        to_run_id: oldest.run_id,
        limit: 200,
      });
      expect(register.from_run).toBeNull();
      notes.push(...register.new.map((c: Structured) => c.note));
    }
    expect(notes).toContain(HOSTILE.errorNote);
  });
});

describe('reportd mcp over stdio, with a line past the limit', () => {
  it('answers a 12 MB line with a JSON-RPC error and a stderr line, then answers the next request', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--config', config], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const answer = async (id: number) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const found = stdout
          .split('\n')
          .filter((line) => line.trim())
          .map((line) => JSON.parse(line) as Structured)
          .find((message) => message.id === id);
        if (found) return found;
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`no answer to ${id} (exit ${child.exitCode}): ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await answer(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const peak = () =>
      Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
    const before = peak();
    // As the SDK's client writes a request: its id last, after 12 MB of arguments.
    const huge = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"list_sets","arguments":{"pad":"${'x'.repeat(12 * 1024 * 1024)}"}},"id":2}\n`;
    await new Promise<void>((resolve) => child.stdin.write(huge, () => resolve()));
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_sets', arguments: {} } });

    const refused = await answer(2);
    expect(refused.error).toEqual({
      code: -32600,
      message: 'a message of 12.0 MB was skipped: reportd mcp reads messages of at most 4.0 MB',
    });
    const next = await answer(3);
    expect(next.result.structuredContent.sets.length).toBeGreaterThan(0);
    expect(stderr).toContain('reportd mcp: a message of 12.0 MB was skipped');
    expect(child.exitCode).toBeNull();
    const grown = peak() - before;
    console.log(
      `mcp stdio: peak RSS ${before.toFixed(0)} MB before the 12 MB line, ${grown.toFixed(1)} MB more after`,
    );
    // At most the chunks read and not yet collected (12 MB); buffering the line for the SDK would hold
    // it as a Buffer and again as a string (24 MB and more).
    expect(grown).toBeLessThan(20);
    // The client closing its input is the normal end of a session: exit 0, not a crash.
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/\n\s+at |unsettled/);
  }, 60_000);
});

describe('reportd mcp --http', () => {
  let url: string;
  beforeAll(async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--config', config, '--http', '127.0.0.1:0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const deadline = Date.now() + 30_000;
    while (!/listening on (\S+)/.test(stderr)) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`mcp --http did not start: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    url = /listening on (\S+)/.exec(stderr)![1]!;
  });

  it('refuses a request without the token or with a wrong one: 401', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(url, { method: 'POST', headers, body });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const wrong = await fetch(url, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer nope' },
      body,
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain(TOKEN);
  });

  it('serves the same tools and answers to the SDK client with the token', async () => {
    const client = new Client({ name: 'reportd-test-http', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
      const series = await call(
        'metric_series',
        { query_set_id: 102, metric: 'presence.gross.current' },
        client,
      );
      const stored = await env.store.all<{ value: number }>(
        `SELECT value FROM metric_values WHERE query_set_id = 102 AND endpoint = 'presence.gross' AND field = 'current'
         AND dimension = '' ORDER BY run_id`,
      );
      expect(series.points.map((p: Structured) => p.value)).toEqual(stored.map((r) => r.value));
      const error = await client.callTool({ name: 'list_runs', arguments: { query_set_id: 4242 } });
      expect(error.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('refuses a foreign Host (421) and Origin (403) before any tool runs, even with the token', async () => {
    const { readdirSync } = await import('node:fs');
    const filesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).length : 0);
    const written = filesIn(`${env.dir}/out`);
    const foreign = foreignHeaders(url);
    const post = (headers: Record<string, string>, id: number, name: string, args = {}) =>
      rawRequest(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${TOKEN}`,
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
      });
    const render = { query_set_id: 102, format: 'xlsx' };
    for (const [name, args] of [
      ['list_sets', {}],
      ['render_report', render],
    ] as const) {
      const host = await post(foreign.host, 1, name, args);
      expect(host.status, name).toBe(421);
      expect(JSON.parse(host.body).error.message).toMatch(/^Host "evil\.example:\d+" is not a name/);
      const origin = await post(foreign.origin, 2, name, args);
      expect(origin.status, name).toBe(403);
      expect(origin.body).not.toContain('result');
    }
    expect(filesIn(`${env.dir}/out`)).toBe(written);
    // The right Host and the server's own Origin are served.
    const own = new URL(url);
    const listed = await post({ host: own.host, origin: own.origin }, 3, 'list_sets');
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.body).result.structuredContent.sets.length).toBeGreaterThan(0);
  });

  it('answers the loopback names the docs promise, as the other servers do', async () => {
    const { port } = new URL(url);
    for (const host of [
      `[::1]:${port}`,
      `localhost.:${port}`,
      `LOCALHOST:${port}`,
      `reports.localhost:${port}`,
    ]) {
      const listed = await rawRequest(url, {
        method: 'POST',
        headers: {
          host,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${TOKEN}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: { name: 'list_sets', arguments: {} },
        }),
      });
      expect(listed.status, host).toBe(200);
    }
  });

  it('will not listen off loopback without a token', async () => {
    const bare = config.replace(/\.yaml$/, '-bare.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(bare, readFileSync(config, 'utf8').replace(/^http: .*$/m, ''));
    const { runCli } = await import('../helpers/cli.js');
    const result = await runCli(['mcp', '--config', bare, '--http', '0.0.0.0:0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/not a loopback address, and http\.auth\.bearer_token .* is not set/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
