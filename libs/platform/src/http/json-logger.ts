import type { LoggerService, LogLevel } from '@nestjs/common';
import { RequestContext } from '../context/request-context';

const LEVELS: Record<string, LogLevel> = { log: 'log', error: 'error', warn: 'warn', debug: 'debug', verbose: 'verbose', fatal: 'fatal' };
const NAMES: Record<LogLevel, string> = { log: 'info', error: 'error', warn: 'warn', debug: 'debug', verbose: 'trace', fatal: 'fatal' };

/**
 * One JSON object per line (docs/decisions/0039-observability.md), what log collectors in compose and Kubernetes
 * read: `time`, `level`, `service`, `context` (the Nest logger's), `msg`, the request id (`x-request-id`, also the
 * trace id events carry) and the caller's account when a request is being served, `stack` for errors. Standalone
 * processes (distributed mode) log this way; embedded mode keeps Nest's text lines for people. Secrets are taken out
 * before a line is written: RedactingLogger sits in front of this one (configureHttpApp installs it).
 */
export class JsonLogger implements LoggerService {
  private levels: Set<LogLevel>;

  constructor(
    private readonly service: string,
    levels: LogLevel[] = ['error', 'warn', 'log'],
    private readonly write: (line: string, stream: 'out' | 'err') => void = (line, stream) => (stream === 'err' ? process.stderr : process.stdout).write(`${line}\n`),
  ) {
    this.levels = new Set(levels);
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.emit('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.emit('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.emit('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.emit('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.emit('verbose', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.emit('fatal', message, rest);
  }
  setLogLevels(levels: LogLevel[]): void {
    this.levels = new Set(levels.map((l) => LEVELS[l] ?? l));
  }

  private emit(level: LogLevel, message: unknown, rest: unknown[]): void {
    if (!this.levels.has(level)) return;
    const args = [...rest];
    // Nest passes the context last (a string); errors may pass a stack before it
    const context = args.length > 0 && typeof args[args.length - 1] === 'string' ? (args.pop() as string) : undefined;
    let stack: string | undefined;
    if (message instanceof Error) stack = message.stack;
    else if ((level === 'error' || level === 'fatal') && typeof args[0] === 'string' && args[0].includes('\n')) stack = args.shift() as string;
    const ctx = RequestContext.current();
    const line: Record<string, unknown> = {
      time: new Date().toISOString(),
      level: NAMES[level],
      service: this.service,
      pid: process.pid,
      ...(context ? { context } : {}),
      msg: message instanceof Error ? `${message.name}: ${message.message}` : typeof message === 'string' ? message : JSON.stringify(message),
      ...(ctx ? { requestId: ctx.traceId, ...(ctx.principal?.accountId ? { accountId: ctx.principal.accountId } : {}) } : {}),
      ...(stack ? { stack } : {}),
      ...(args.length ? { extra: args.map((a) => (a instanceof Error ? `${a.name}: ${a.message}` : a)) } : {}),
    };
    this.write(JSON.stringify(line), level === 'error' || level === 'fatal' ? 'err' : 'out');
  }
}
