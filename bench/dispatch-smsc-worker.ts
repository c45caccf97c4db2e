/**
 * The benchmarks' SMSC in a worker thread, so its share of the work (the `smpp` package's PDU encoding and decoding
 * for every submit_sm, submit_sm_resp, deliver_sm and deliver_sm_resp) runs beside dispatch rather than on its event
 * loop, as a real SMSC would. Posts { port, tid } when listening (tid: its thread, for its CPU), then { submitted, receipts, throttled } every 100 ms.
 */
import * as fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { SmppPeer, type SmppPeerOptions } from '@switchboard/dispatch';

async function run(): Promise<void> {
  const peer = new SmppPeer({ record: false, ...(workerData as SmppPeerOptions) });
  const port = await peer.listen();
  // the thread's id, so a bench can read this SMSC's own CPU from /proc/self/task/<tid>/stat (the carrier's share)
  const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
  parentPort?.postMessage({ port, tid });
  setInterval(() => parentPort?.postMessage({ submitted: peer.submitted, receipts: peer.receiptsSent, throttled: peer.throttledResponses, at: Date.now() }), 100);
  parentPort?.on('message', (m: { stop?: boolean }) => {
    if (m.stop) void peer.close().then(() => process.exit(0));
  });
}

void run();
