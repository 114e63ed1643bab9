import type { Logger as SlackLogger, WebClient } from '@slack/web-api';

/**
 * Makes the Web API client for one attempt. The client (and axios under it, ~12 MB) is loaded on the
 * first message: an idle daemon with a Slack channel configured holds none of it. Its own retries are
 * off: the outbox owns retries (one policy, one lease, attempts counted).
 *
 * A client per attempt, carrying its signal (a lost lease) into every request: one not yet sent is
 * then not sent. The client takes no signal per call, so an interceptor sets axios's own.
 */
export function slackClients(config: {
  token: string;
  api_url: string;
  timeoutMs: number;
}): (signal?: AbortSignal) => Promise<WebClient> {
  let loading: Promise<typeof import('@slack/web-api')> | undefined;
  return async (signal) => {
    loading ??= import('@slack/web-api');
    const { LogLevel, WebClient } = await loading;
    return new WebClient(config.token, {
      slackApiUrl: config.api_url.endsWith('/') ? config.api_url : `${config.api_url}/`,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: config.timeoutMs,
      logger: silent(LogLevel.ERROR),
      ...(signal
        ? {
            requestInterceptor: (request) => {
              request.signal = signal;
              return request;
            },
          }
        : {}),
    });
  };
}

const noop = () => {};
/** The client logs to the console by default; reportd's own log says what matters. */
const silent = (level: ReturnType<SlackLogger['getLevel']>): SlackLogger => ({
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  setLevel: noop,
  getLevel: () => level,
  setName: noop,
});
