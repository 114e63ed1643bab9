// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own interpolation syntax.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { problems, writeConfig } from './fixtures.js';

const withKey = (apiKey: string, extra = '') => `
accounts:
  - name: acme
    base_url: \${API_URL:-https://api.example.com/v2/integration}
    api_key: ${apiKey}
    api_secret: secret-one
${extra}`;

describe('environment variables in string values', () => {
  it('replaces ${VAR} with the variable', () => {
    const config = loadConfig(writeConfig(withKey('${KEY}')), { KEY: 'key-from-env' });
    expect(config.accounts[0]?.api_key).toBe('key-from-env');
  });

  it('uses the :- default when the variable is unset or empty, and the variable when set', () => {
    const unset = loadConfig(writeConfig(withKey('k-${ZONE:-eu}-1')), {});
    expect(unset.accounts[0]?.api_key).toBe('k-eu-1');
    expect(unset.accounts[0]?.base_url).toBe('https://api.example.com/v2/integration');
    const empty = loadConfig(writeConfig(withKey('k-${ZONE:-eu}-1')), { ZONE: '' });
    expect(empty.accounts[0]?.api_key).toBe('k-eu-1');
    const set = loadConfig(writeConfig(withKey('k')), { API_URL: 'http://127.0.0.1:9/v2/integration' });
    expect(set.accounts[0]?.base_url).toBe('http://127.0.0.1:9/v2/integration');
  });

  it('reads a whole ${VAR} as a number or boolean where the option is one, and keeps strings strings', () => {
    const text = withKey(
      '${KEY}',
      "http:\n  port: ${PORT}\nsmtp: { host: h.example.com, secure: '${SECURE}', from: a@example.com }",
    );
    const config = loadConfig(writeConfig(text), { KEY: '12345', PORT: '9464', SECURE: 'true' });
    expect(config.http.port).toBe(9464);
    expect(config.smtp?.secure).toBe(true);
    expect(config.accounts[0]?.api_key).toBe('12345');
    expect(
      problems(() => loadConfig(writeConfig(text), { KEY: 'k', PORT: 'eighty', SECURE: 'true' })),
    ).toEqual(['http.port: expected number, got string']);
  });

  it('hints at quoting when ${VAR} breaks a { } flow mapping', () => {
    expect(problems(() => loadConfig(writeConfig(withKey('k', 'http: { port: ${PORT} }')), {}))[0]).toMatch(
      /^line 7, column \d+: .* \(inside \{ \} or \[ \], quote values that use \$\{VAR\}\)$/,
    );
  });

  it('writes a literal ${ for $${', () => {
    const config = loadConfig(writeConfig(withKey('$${NOT_A_VAR}')), {});
    expect(config.accounts[0]?.api_key).toBe('${NOT_A_VAR}');
  });

  it('names the config path and the variable when a variable is unset', () => {
    const file = writeConfig(
      withKey(
        'key',
        "reports:\n  - name: r\n    schedule: { cron: '${CRON}' }\n    email: { to: [a@example.com] }\nsmtp: { host: h, from: a@example.com }",
      ),
    );
    expect(problems(() => loadConfig(file, {}))).toEqual([
      'reports[0].schedule.cron: environment variable CRON is not set (write ${CRON:-default} for a fallback)',
    ]);
  });

  it('refuses a malformed reference', () => {
    expect(problems(() => loadConfig(writeConfig(withKey('${1BAD}')), {}))).toEqual([
      'accounts[0].api_key: malformed reference "${1BAD}" (expected ${NAME} or ${NAME:-default})',
    ]);
  });
});
