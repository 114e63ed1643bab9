import { ReportdError } from './reportd-error.js';

export interface ConfigIssue {
  /** Where in the config: `reports[0].schedule.cron`, or `line 3, column 5` for YAML syntax. */
  path: string;
  message: string;
}

/** Thrown when the config file cannot be read, parsed or validated; lists every problem at once. */
export class ConfigError extends ReportdError {
  override name = 'ConfigError' as const;
  static override readonly code: string = 'ERR_CONFIG_INVALID';
  override exitCode = 2;

  constructor(
    readonly file: string,
    readonly issues: ConfigIssue[],
  ) {
    // One line per issue, so a long list stays readable and greppable.
    super(`invalid config ${file}:` + issues.map((issue) => `\n  ${issue.path}: ${issue.message}`).join(''));
  }
}
