import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from '../database/embedded-postgres';

export interface RunningBroker {
  url: string;
  process: ChildProcess;
  stop: () => Promise<void>;
}

export function hasCommand(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
}

/** Debian's nats-server on a loopback port (a free one unless given: a restart on the same address). */
export async function startNatsServer(port?: number): Promise<RunningBroker> {
  port ??= await freePort();
  const child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('nats-server did not become ready in 10 s')), 10000);
    const onData = (b: Buffer) => {
      if (b.toString().includes('Server is ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`nats-server exited with ${code}`)));
  });
  return { url: `nats://127.0.0.1:${port}`, process: child, stop: stopper(child) };
}

/**
 * librdkafka's mock cluster through Debian's kcat: a real Kafka-protocol broker (produce, fetch, consumer
 * groups, offset commits). It serves until killed; no admin API and no idempotent producer.
 */
export async function startKafkaMock(brokers = 3): Promise<RunningBroker> {
  const child = spawn('kcat', ['-X', `test.mock.num.brokers=${brokers}`, '-d', 'mock', '-C', '-t', '__sb_mock_keepalive', '-b', '127.0.0.1:1'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('kcat mock cluster did not print its bootstrap servers in 10 s')), 10000);
    let buf = '';
    const onData = (b: Buffer) => {
      buf += b.toString();
      const m = /bootstrap\.servers=([0-9.:,]+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        child.stderr?.removeListener('data', onData);
        // keep draining stderr so the pipe never fills and blocks the broker
        child.stderr?.on('data', () => undefined);
        resolve(m[1]);
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`kcat exited with ${code}`)));
  });
  return { url, process: child, stop: stopper(child) };
}
