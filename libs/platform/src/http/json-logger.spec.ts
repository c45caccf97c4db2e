import { RequestContext } from '../context/request-context';
import { JsonLogger } from './json-logger';
import { RedactingLogger } from './redact';

describe('JsonLogger', () => {
  const capture = () => {
    const lines: Array<{ line: Record<string, unknown>; stream: string }> = [];
    const logger = new JsonLogger('streams', ['error', 'warn', 'log'], (line, stream) => lines.push({ line: JSON.parse(line) as Record<string, unknown>, stream }));
    return { lines, logger };
  };

  it('writes one JSON object per line with the service, level, context and the request being served', () => {
    const { lines, logger } = capture();
    RequestContext.run(
      { traceId: 'req-123456789', ip: null, principal: { kind: 'user', userId: '7', email: null, accountId: '42', permissions: [], roles: [], superAdmin: false } },
      () => logger.log('stream created', 'StreamService'),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0].stream).toBe('out');
    expect(lines[0].line).toMatchObject({ level: 'info', service: 'streams', context: 'StreamService', msg: 'stream created', requestId: 'req-123456789', accountId: '42' });
    expect(Number.isNaN(Date.parse(String(lines[0].line.time)))).toBe(false);
  });

  it('sends errors to stderr with their stack, and drops levels it was not asked for', () => {
    const { lines, logger } = capture();
    logger.error('send failed', 'Error: boom\n    at x (y.ts:1:1)', 'Dispatcher');
    logger.debug('noise', 'Dispatcher');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ stream: 'err', line: { level: 'error', context: 'Dispatcher', msg: 'send failed' } });
    expect(String(lines[0].line.stack)).toContain('at x (y.ts:1:1)');
    expect(lines[0].line.requestId).toBeUndefined();
  });

  it('never writes a secret: the redacting logger in front takes tokens and passwords out first', () => {
    const { lines, logger } = capture();
    new RedactingLogger(logger).warn('calling https://api.example.com/bot123456:AAAAAAAAAAAAAAAAAAAAAAAAAA/send?access_token=abcdef123456 with Bearer eyJhbGciOiJFUzI1NiJ9.secret', 'Telegram');
    const text = JSON.stringify(lines[0].line);
    expect(text).not.toContain('abcdef123456');
    expect(text).not.toContain('eyJhbGciOiJFUzI1NiJ9.secret');
    expect(text).not.toContain('AAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(text).toContain('[REDACTED]');
  });
});
