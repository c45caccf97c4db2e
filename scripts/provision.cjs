// @ts-check
/**
 * The system packages `npm test` needs beyond npm: Debian's nats-server and kcat (the broker tests) and chromium (the
 * browser tests). `decide` is pure (tested in test/provision.spec.ts); `provision` probes the machine and acts on it.
 * Installing needs apt and either root or passwordless sudo; anything else stops with one message naming the
 * packages and the exact command.
 */
'use strict';
const { spawnSync } = require('node:child_process');

/** command on PATH -> Debian package providing it */
const REQUIRED = [
  { command: 'nats-server', pkg: 'nats-server', broker: true },
  { command: 'kcat', pkg: 'kcat', broker: true },
  { command: 'chromium', pkg: 'chromium', broker: false },
];

/**
 * @param {{ missing: string[], isRoot: boolean, passwordlessSudo: boolean, hasApt: boolean }} probe
 *   missing: Debian packages whose command is not found
 * @returns {{ action: 'present' } | { action: 'install', sudo: boolean, commands: string[][] } | { action: 'refuse', message: string }}
 */
function decide(probe) {
  const missing = [...new Set(probe.missing)].sort();
  if (missing.length === 0) return { action: 'present' };
  const prefix = probe.isRoot ? [] : ['sudo'];
  const commands = [
    [...prefix, 'apt-get', 'update'],
    [...prefix, 'apt-get', 'install', '-y', '--no-install-recommends', ...missing],
  ];
  if (probe.hasApt && (probe.isRoot || probe.passwordlessSudo)) return { action: 'install', sudo: !probe.isRoot, commands };
  const why = !probe.hasApt ? 'apt-get is not available here' : 'this user is not root and sudo asks for a password';
  const shown = commands.map((c) => c.join(' ')).join(' && ');
  return {
    action: 'refuse',
    message:
      `npm test needs the Debian package(s) ${missing.join(', ')} (broker and browser tests) and cannot install them (${why}). ` +
      `Install them with:\n  ${shown}\nthen run npm test again.`,
  };
}

/** @param {string} cmd */
function hasCommand(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** What this machine has. Chromium may be elsewhere (CHROMIUM_PATH). */
function probeMachine(env = process.env) {
  const skipBrokers = env.SWITCHBOARD_SKIP_BROKER_TESTS === '1';
  const missing = REQUIRED.filter((r) => !(skipBrokers && r.broker))
    .filter((r) => !(r.command === 'chromium' && env.CHROMIUM_PATH && require('node:fs').existsSync(env.CHROMIUM_PATH)))
    .filter((r) => !hasCommand(r.command))
    .map((r) => r.pkg);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = hasCommand('apt-get');
  const passwordlessSudo = !isRoot && hasCommand('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  return { missing, isRoot, passwordlessSudo, hasApt };
}

/** Probes, installs what is missing when it can; answers true when everything is there, false (after printing why) otherwise. */
function provision(log = console.log, env = process.env) {
  const d = decide(probeMachine(env));
  if (d.action === 'present') {
    log('nats-server, kcat and chromium are installed');
    return true;
  }
  if (d.action === 'refuse') {
    console.error(d.message);
    return false;
  }
  for (const cmd of d.commands) {
    log(`installing: ${cmd.join(' ')}`);
    const r = spawnSync(cmd[0], cmd.slice(1), { stdio: 'inherit', env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) {
      console.error(`\`${cmd.join(' ')}\` failed (exit ${r.status ?? r.signal}); install the packages by hand and run npm test again.`);
      return false;
    }
  }
  const still = probeMachine(env).missing;
  if (still.length) {
    console.error(`still missing after apt-get: ${still.join(', ')}`);
    return false;
  }
  return true;
}

module.exports = { REQUIRED, decide, probeMachine, provision };
