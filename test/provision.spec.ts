import { decide } from '../scripts/provision.cjs';

/** `npm test` on a bare machine (scripts/test.mjs runs this before anything else, jest's global setup included). */
describe('test provisioning decisions', () => {
  it('does nothing when nats-server, kcat and chromium are present', () => {
    expect(decide({ missing: [], isRoot: true, passwordlessSudo: false, hasApt: true })).toEqual({ action: 'present' });
    expect(decide({ missing: [], isRoot: false, passwordlessSudo: false, hasApt: false })).toEqual({ action: 'present' });
  });

  it('installs what is missing with apt as root, and with sudo when sudo needs no password', () => {
    expect(decide({ missing: ['kcat', 'nats-server'], isRoot: true, passwordlessSudo: false, hasApt: true })).toEqual({
      action: 'install',
      sudo: false,
      commands: [
        ['apt-get', 'update'],
        ['apt-get', 'install', '-y', '--no-install-recommends', 'kcat', 'nats-server'],
      ],
    });
    expect(decide({ missing: ['chromium'], isRoot: false, passwordlessSudo: true, hasApt: true })).toEqual({
      action: 'install',
      sudo: true,
      commands: [
        ['sudo', 'apt-get', 'update'],
        ['sudo', 'apt-get', 'install', '-y', '--no-install-recommends', 'chromium'],
      ],
    });
  });

  it('refuses with one message naming the packages and the exact command when it cannot install', () => {
    const d = decide({ missing: ['nats-server', 'chromium'], isRoot: false, passwordlessSudo: false, hasApt: true });
    expect(d.action).toBe('refuse');
    const message = (d as { message: string }).message;
    expect(message).toContain('chromium, nats-server');
    expect(message).toContain('sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium nats-server');
    const noApt = decide({ missing: ['kcat'], isRoot: true, passwordlessSudo: false, hasApt: false });
    expect(noApt).toEqual({ action: 'refuse', message: expect.stringContaining('apt-get install -y --no-install-recommends kcat') });
    expect((noApt as { message: string }).message).toContain('apt-get is not available');
  });
});
