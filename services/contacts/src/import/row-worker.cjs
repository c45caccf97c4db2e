'use strict';
// Import worker thread: parses CSV chunks, validates phone numbers and writes COPY lines for one batch at a time.
// Plain CommonJS so it starts the same from dist/ (next to row-processor.js) and from the TypeScript sources in tests.
const fs = require('node:fs');
const path = require('node:path');
const { parentPort } = require('node:worker_threads');

const compiled = path.join(__dirname, 'row-processor.js');
if (!fs.existsSync(compiled) && !require.extensions['.ts']) {
  const swc = require('@swc/core');
  require.extensions['.ts'] = (m, filename) => {
    const { code } = swc.transformFileSync(filename, {
      swcrc: false,
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    });
    m._compile(code, filename);
  };
}
const { processCsvChunk, processRowBatch } = require(fs.existsSync(compiled) ? compiled : path.join(__dirname, 'row-processor.ts'));

parentPort.on('message', (msg) => {
  try {
    const result =
      msg.kind === 'csv'
        ? processCsvChunk(msg.bytes, msg.firstLine, msg.delimiter, msg.mapping, msg.skipFirst)
        : processRowBatch(msg.rows, msg.mapping);
    // the COPY text goes back as bytes, transferred: the main thread writes them to PostgreSQL as they are
    let copy = Buffer.from(result.copy, 'utf8');
    if (copy.byteOffset !== 0 || copy.buffer.byteLength !== copy.length) copy = new Uint8Array(copy);
    parentPort.postMessage({ id: msg.id, result: { ...result, copy } }, [copy.buffer]);
  } catch (e) {
    parentPort.postMessage({ id: msg.id, error: String((e && e.stack) || e) });
  }
});
