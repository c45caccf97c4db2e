import { Logger, type LoggerService, type LogLevel } from '@nestjs/common';

const REDACTED = '[REDACTED]';

/** Query parameter names whose value is a credential: anything with token, password, secret or key in it, and a few more. */
const SECRET_PARAM = /([?&;](?:[\w.-]*(?:token|passw(?:or)?d|secret|api[_-]?key|signature)[\w.-]*|key|sig|pin|code|pass)=)[^&#\s"'<>]*/gi;
/** `Authorization: Bearer ...` or a bare `Bearer ...` echoed into a message. */
const BEARER = /\b(Bearer\s+)[\w.~+/=-]{8,}/gi;
/** A Telegram bot token in an API URL (`/bot123456:AA...`). */
const BOT_TOKEN = /\b(bot)\d{3,}:[\w-]{20,}/g;
/** The key in the generative-AI key check's path (`/api/genai/verify/openai/sk-...`, spec 7). */
const GENAI_VERIFY = /(\/genai\/verify\/[^/?#\s"'<>]+\/)[^/?#\s"'<>]+/gi;
/** The password of a URL's user info (`postgres://user:secret@host`). */
const USERINFO = /(\b[a-z][\w+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi;

/** The text with every credential-looking value of a URL (query, user-info password) and bearer and bot tokens replaced by [REDACTED]. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_PARAM, `$1${REDACTED}`).replace(BEARER, `$1${REDACTED}`).replace(BOT_TOKEN, `$1${REDACTED}`).replace(USERINFO, `$1${REDACTED}@`).replace(GENAI_VERIFY, `$1${REDACTED}`);
}

/** A request URL as it may be logged: `/api/task/download?id=3&access_token=[REDACTED]`. */
export const redactUrl = (url: string): string => redactSecrets(url);

function redactArg(arg: unknown): unknown {
  if (typeof arg === 'string') return redactSecrets(arg);
  if (arg instanceof Error) {
    const copy = new Error(redactSecrets(arg.message));
    copy.name = arg.name;
    copy.stack = arg.stack ? redactSecrets(arg.stack) : undefined;
    return copy;
  }
  return arg;
}

/**
 * Every line the process logs through Nest's Logger, with credentials in URLs and messages redacted, whoever wrote
 * the line (a proxy error naming the URL, an error's stack, a library's message). Wraps the logger in place.
 */
export class RedactingLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.inner.log(redactArg(message), ...rest.map(redactArg));
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.inner.error(redactArg(message), ...rest.map(redactArg));
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.inner.warn(redactArg(message), ...rest.map(redactArg));
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.inner.debug?.(redactArg(message), ...rest.map(redactArg));
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.inner.verbose?.(redactArg(message), ...rest.map(redactArg));
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.inner.fatal?.(redactArg(message), ...rest.map(redactArg));
  }
  setLogLevels(levels: LogLevel[]): void {
    this.inner.setLogLevels?.(levels);
  }

  /** Puts redaction in front of the process's current Nest logger (once). */
  static install(): void {
    const holder = Logger as unknown as { staticInstanceRef?: LoggerService };
    const current = holder.staticInstanceRef;
    if (!current || current instanceof RedactingLogger) return;
    Logger.overrideLogger(new RedactingLogger(current));
  }
}
