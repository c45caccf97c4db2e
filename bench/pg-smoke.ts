import { Client } from 'pg';
import { startEmbeddedPostgres } from '@switchboard/platform/database-embedded';
void (async () => {
  const t = Date.now();
  const pg = await startEmbeddedPostgres({ dataDir: '/tmp/sbpg-test/data', persistent: false, log: (l) => console.log('LOG', l.slice(0, 100)) });
  console.log('started in', Date.now() - t);
  const c = new Client({ connectionString: pg.url() });
  await c.connect();
  console.log((await c.query('select version()')).rows[0]);
  await c.end();
  await pg.stop();
  console.log('stopped');
})();
