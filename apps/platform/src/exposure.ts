import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { ConfigError } from '@switchboard/platform';

/** The password the README once documented for the seeded super administrator: never accepted on a network. */
export const WELL_KNOWN_ADMIN_PASSWORD = 'switchboard-admin';

/** Only this machine can reach a server listening on a loopback address (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

export const newSecret = (): string => randomBytes(18).toString('base64url');

/** Refuses before anything starts: exposed, with the well-known password configured. */
export function assertSafeConfiguredPassword(host: string, configured: string | undefined): void {
  if (!isLoopbackHost(host) && configured === WELL_KNOWN_ADMIN_PASSWORD) throw defaultPasswordRefused(host);
}

export function defaultPasswordRefused(host: string): ConfigError {
  return new ConfigError('platform', [
    `refusing to listen on ${host} (reachable from the network) while the super administrator's password is the default "${WELL_KNOWN_ADMIN_PASSWORD}": ` +
      'set SWITCHBOARD_ADMIN_PASSWORD to a password of your own for a new data directory, or sign in on 127.0.0.1 and change it first',
  ]);
}

/** Constant-time comparison of a presented mailbox token with the expected one. */
export function tokenMatches(presented: unknown, expected: string): boolean {
  if (typeof presented !== 'string' || !presented) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
