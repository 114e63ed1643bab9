import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/index.js';
import { checkTemplates, formatProblem } from '../report/check/templates-check.js';
import type { PdfRenderer } from '../report/pdf.js';
import { PreviewCache } from './preview-cache.js';
import { PrintCache, type Printed } from './printed.js';
import { keyOf } from './selection.js';
import type { Preview, Selection, StudioSession } from './session.js';

/**
 * What the studio keeps between requests: the files' version, the problem on screen, the last good
 * render of each selection, the printed PDFs, and the pages listening for changes. A failed render
 * keeps the last good one on screen and says where the problem is (file:line:column, from
 * `templates check`).
 */

/** What the page is told (`/api/state`, `/events`): the files' version and the problems shown. */
export interface State {
  version: number;
  error: string[] | null;
}

/** The config file the studio follows: re-read when saved, and handed to the session when valid. */
export interface ConfigFile {
  path: string;
  load(): Config;
  apply(config: Config): void;
}

export interface LiveOptions {
  session: StudioSession;
  templatesDir?: string;
  renderer: () => Promise<PdfRenderer>;
}

export class LiveRenders {
  readonly state: State = { version: 1, error: null };
  /** The selection last previewed: a file change re-renders it. */
  current: Selection = {};
  // The config's problems while the file on disk is invalid: those stay shown whatever renders
  // meanwhile, until a valid file is read.
  private configProblems: string[] | null = null;
  /** The last good render of each selection, and the files' version it was made at (LRU-bounded). */
  private readonly good = new PreviewCache();
  private readonly running = new Map<string, Promise<Preview | undefined>>();
  // Printed on demand only, per files' version and selection: the live preview never waits for it.
  private readonly prints = new PrintCache();
  private readonly clients = new Set<ServerResponse>();
  private timer: NodeJS.Timeout | undefined;

  /** `config`: the config as last loaded (pickers list its reports and themes). */
  constructor(
    private readonly options: LiveOptions,
    public config: Config,
  ) {}

  /** Sends the state to every page listening on `/events`. */
  broadcast(): void {
    for (const client of this.clients) client.write(`data: ${JSON.stringify(this.state)}\n\n`);
  }

  /** A page's event stream: told of every change until it goes away. */
  listen(req: IncomingMessage, client: ServerResponse): void {
    this.clients.add(client);
    req.on('close', () => this.clients.delete(client));
  }

  /**
   * A selection's render at the files' current version: the document, email and payload requests a
   * refresh makes share one render (the change handler's, or the first request's).
   */
  latest(selection: Selection): Promise<Preview | undefined> {
    const key = keyOf(selection);
    const made = this.good.get(key);
    if (made && made.version === this.state.version && this.state.error === this.configProblems)
      return Promise.resolve(made.preview);
    const tag = `${this.state.version}:${key}`;
    let pending = this.running.get(tag);
    if (!pending) {
      pending = this.render(selection).finally(() => this.running.delete(tag));
      this.running.set(tag, pending);
    }
    return pending;
  }

  /** The selection's PDF (and its page images) at the files' current version, printed once. */
  printed(selection: Selection): Promise<Printed> {
    return this.prints.get(`${this.state.version}:${keyOf(selection)}`, async () =>
      this.options.session.pdf(selection, await this.options.renderer()),
    );
  }

  /** A watched file changed: the current selection re-renders, and the pages hear of it. */
  changed(): void {
    clearTimeout(this.timer);
    // Editors write a file in several steps: one render once they are done.
    this.timer = setTimeout(async () => {
      const hadError = this.state.error !== null;
      const preview = await this.render(this.current);
      if (preview && this.state.error === this.configProblems) {
        this.state.version++;
        this.good.set(keyOf(this.current), { version: this.state.version, preview });
      }
      if (preview || hadError || this.state.error) this.broadcast();
    }, 60);
  }

  /**
   * The config file was saved: a valid one is applied (`follow` watches its folders) and re-renders;
   * an invalid one is shown, a line per problem, and the last good config stays.
   */
  configSaved(file: ConfigFile, follow: (config: Config) => void): void {
    try {
      const next = file.load();
      file.apply(next);
      this.config = next;
      follow(next);
      this.configProblems = null;
      this.state.error = null;
      this.changed();
    } catch (error) {
      // A config error lists each problem on a line of its own (path: message), never a stack.
      this.configProblems = String((error as Error).message ?? error)
        .split('\n')
        .filter((line) => line.trim() !== '');
      this.state.error = this.configProblems;
      this.broadcast();
    }
  }

  /** Stops the pending re-render and ends every event stream. */
  close(): void {
    clearTimeout(this.timer);
    for (const client of this.clients) client.end();
  }

  /** Renders a selection; on failure keeps the last good render and records where it failed. */
  private async render(selection: Selection): Promise<Preview | undefined> {
    try {
      const preview = await this.options.session.preview(selection);
      this.good.set(keyOf(selection), { version: this.state.version, preview });
      if (this.state.error) this.state.error = this.configProblems;
      return preview;
    } catch (error) {
      const templatesDir = this.options.templatesDir ?? this.config.templates.dir;
      this.state.error = explain(error, templatesDir, selection);
      return this.good.get(keyOf(selection))?.preview;
    }
  }
}

/** Where a failed render went wrong: the templates' problems with their positions, else the error. */
function explain(error: unknown, templatesDir: string | undefined, selection: Selection): string[] {
  const problems = checkTemplates({ templatesDir, locales: [selection.locale ?? 'en-US'] });
  if (problems.length > 0) return problems.map((problem) => formatProblem(problem));
  return [(error as Error).message ?? String(error)];
}
