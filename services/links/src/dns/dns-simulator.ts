import { Pool } from 'pg';
import { startDnsServer, type RunningDnsServer, type ZoneRecord } from '@switchboard/platform';
import { ownershipValue } from '../services/domain-rows';
import type { DnsTargets } from '../links.options';
import { DnsChecker } from './dns-checker';

/** The ownership TXT host of a name is this prefix and the name. */
const OWNERSHIP_PREFIX = DnsChecker.ownershipHost('');

/**
 * Embedded mode's DNS, a simulator like the SMS and chat vendors' (docs/decisions/0184): a local authoritative server
 * on 127.0.0.1 that answers, for every short-link domain added, the records the DNS instructions ask for, as if its
 * owner had created them: a CNAME to the configured target (the target itself answers `aTarget`, or 127.0.0.1), and
 * the ownership TXT of the account that added the name first (a second account's token is not published, so the
 * exclusive claim plays out as with real DNS). Names under `.invalid` (RFC 2606) and names no account added do not
 * exist, so "not configured" can be seen too. Only when `LINKS_DNS_SERVERS` is unset; never in distributed mode.
 */
export async function startDnsSimulator(databaseUrl: string, targets: DnsTargets): Promise<RunningDnsServer> {
  // one connection: a domain check asks three names, a person adds domains by hand
  const pool = new Pool({ connectionString: databaseUrl, max: 1, application_name: 'switchboard-dns-simulator' });
  pool.on('error', () => undefined);
  const cnameTarget = targets.cnameTarget.toLowerCase();
  const source = async (name: string): Promise<ZoneRecord | null> => {
    if (name === cnameTarget) return { a: [targets.aTarget ?? '127.0.0.1'] };
    if (name.endsWith('.invalid')) return null;
    const owner = name.startsWith(OWNERSHIP_PREFIX);
    const domain = owner ? name.slice(OWNERSHIP_PREFIX.length) : name;
    // before the links service migrated its schema the query fails: SERVFAIL, which a check takes as "ask again later"
    const { rows } = await pool.query<{ token: string }>(
      `SELECT verification_token AS token FROM links.domain WHERE name = $1 ORDER BY created_at, id LIMIT 1`,
      [domain],
    );
    if (!rows[0]) return null;
    return owner ? { txt: [ownershipValue(rows[0].token)] } : { cname: cnameTarget };
  };
  const server = await startDnsServer(source);
  return {
    ...server,
    stop: async () => {
      await server.stop();
      await pool.end();
    },
  };
}
