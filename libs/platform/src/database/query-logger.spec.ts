import { serviceDataSourceOptions } from './data-source';
import { BoundedQueryLogger } from './query-logger';

describe('BoundedQueryLogger', () => {
  it('logs a failed statement with its SQL clipped and its parameters counted, never quoted', () => {
    const lines: string[] = [];
    const sink = { log: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
    const logger = new BoundedQueryLogger(false, sink as never);
    const packed = JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ id: i, phone: '+4915112345678', token: 'sealed-secret' })));
    logger.logQueryError(new Error('connect ECONNREFUSED 127.0.0.1:5432'), `INSERT INTO dispatch.outbox (event_id, topic, key, type, payload, packed) VALUES ($1, '', $2, $3, '{}', $4)`, [
      'e1',
      '5000',
      '$packed',
      packed,
    ]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('connect ECONNREFUSED');
    expect(lines[0]).toContain('INSERT INTO dispatch.outbox');
    expect(lines[0]).toContain(`4 parameters, ${2 + 4 + 7 + Buffer.byteLength(packed)} bytes`);
    expect(lines[0]).not.toContain('+4915112345678');
    expect(lines[0]).not.toContain('sealed-secret');
    expect(lines[0].length).toBeLessThan(800);
    logger.logQueryError('x', 'SELECT ' + 'a, '.repeat(1000) + 'b', []);
    expect(lines[1]).toMatch(/\.\.\. \(\d+ characters\) \| no parameters$/);
  });

  it('is the logger of every service data source', () => {
    const options = serviceDataSourceOptions({ name: 'dispatch', url: 'postgres://x/y', schema: 'dispatch', entities: [], migrations: [] });
    expect(options.logger).toBeInstanceOf(BoundedQueryLogger);
  });
});
