/**
 * The benchmarks' SMSC in a worker thread, so its share of the work (the `smpp` package's PDU encoding and decoding
 * for every submit_sm, submit_sm_resp, deliver_sm and deliver_sm_resp) runs beside dispatch rather than on its event
 * loop, as a real SMSC would. Posts { port } when listening, then { submitted, receipts, throttled } every 100 ms.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SmppPeer, type SmppPeerOptions } from '@switchboard/dispatch';

async function run(): Promise<void> {
  const peer = new SmppPeer({ record: false, ...(workerData as SmppPeerOptions) });
  const port = await peer.listen();
  parentPort?.postMessage({ port });
  setInterval(() => parentPort?.postMessage({ submitted: peer.submitted, receipts: peer.receiptsSent, throttled: peer.throttledResponses, at: Date.now() }), 100);
  parentPort?.on('message', (m: { stop?: boolean }) => {
    if (m.stop) void peer.close().then(() => process.exit(0));
  });
}

void run();
