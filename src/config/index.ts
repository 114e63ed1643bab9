export { configFromObject, loadConfig } from './load.js';
export { MASK, maskedConfig } from './mask.js';
export type {
  AccountConfig,
  Config,
  ConfigInput,
  LogLevel,
  QuerySetSelection,
  ReportConfig,
  ReportFormat,
  SmtpConfig,
} from './schema.js';
export { configSchema } from './schema.js';
