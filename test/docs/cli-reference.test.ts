import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { CLI_REFERENCE_FILE, cliProgram, commandsOf, renderCliReference } from '../../src/cli/reference.js';
import { headingAnchors, readPage } from './pages.js';

/**
 * docs/reference/cli.md is generated from the commander program (`npm run gen:cli`), as the config
 * reference is from the schema: the committed page must be what the generator writes now, and the
 * generator must leave no command or option out, nor any without a description.
 */

const program = await cliProgram();
const commands = commandsOf(program);
const page = readPage(CLI_REFERENCE_FILE);

/** The part of the page under one command's heading. */
function section(text: string, path: string): string {
  const start = text.indexOf(`\n## \`reportd ${path}\`\n`);
  if (start < 0) return '';
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

describe(CLI_REFERENCE_FILE, () => {
  it('matches the commands (run `npm run gen:cli` when this fails)', () => {
    expect(page, `${CLI_REFERENCE_FILE} is stale: run \`npm run gen:cli\``).toBe(renderCliReference(program));
  });

  it('has a section for every command, listing every option with its description', () => {
    expect(commands.length).toBeGreaterThanOrEqual(12);
    const rendered = renderCliReference(program);
    const anchors = headingAnchors(rendered);
    const problems: string[] = [];
    for (const { path, command } of commands) {
      if (!anchors.has(`reportd-${path.replaceAll(' ', '-')}`)) problems.push(`reportd ${path}: no section`);
      if (!command.description()) problems.push(`reportd ${path}: no description`);
      const text = section(rendered, path);
      for (const option of command.options) {
        if (!option.description) problems.push(`reportd ${path} ${option.flags}: no description`);
        if (!text.includes(`| \`${option.flags}\` |`))
          problems.push(`reportd ${path} ${option.flags}: not listed`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('states defaults, required options and the environment variable', () => {
    const render = section(page, 'render');
    expect(render).toContain('| `--set <ids>` | **required** |');
    expect(render).toContain('| `--format <list>` | `pdf` |');
    expect(render).toContain('| `--config <file>` | `./reportd.yaml` (or `$REPORTD_CONFIG`) |');
    expect(section(page, 'sync')).toContain('| `--no-progress` | — |');
    expect(section(page, 'deliver')).toMatch(/`--dry-run` .*not with `--force`, `--eml`/);
    // Help text added with addHelpText is part of the page too.
    expect(section(page, 'daemon')).toContain('Schedules (what ops can rely on):');
  });

  it('documents subcommands and arguments under their full path', () => {
    const demo = new Command().name('reportd');
    const templates = demo.command('templates').description('template tools');
    templates
      .command('check')
      .description('checks the templates')
      .argument('[dir]', 'the template folder')
      .option('--strict', 'fail on warnings');
    const text = renderCliReference(demo);
    expect(text).toContain('| [`templates check`](#reportd-templates-check) | checks the templates |');
    expect(headingAnchors(text).has('reportd-templates-check')).toBe(true);
    expect(section(text, 'templates check')).toContain('| `[dir]` | the template folder |');
    expect(section(text, 'templates check')).toContain('| `--strict` | — | fail on warnings |');
  });
});
