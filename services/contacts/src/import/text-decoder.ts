import { TextDecoder } from 'node:util';

/**
 * Decodes a file's bytes as they stream: UTF-8 by default, UTF-16 when the file starts with its byte-order mark
 * (Excel's "Unicode text" export). A leading BOM is dropped; a character split across chunks is kept whole.
 */
export class StreamTextDecoder {
  private decoder: TextDecoder | null = null;
  private pending: Buffer | null = null;

  write(chunk: Buffer): string {
    if (!this.decoder) {
      const head = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
      if (head.length < 3 && head.length > 0 && head[0] !== 0xff && head[0] !== 0xfe && head[0] !== 0xef) {
        this.decoder = new TextDecoder('utf-8');
      } else if (head.length < 3) {
        this.pending = head;
        return '';
      } else {
        this.decoder = new TextDecoder(encodingOf(head));
      }
      this.pending = null;
      return this.decoder.decode(head, { stream: true });
    }
    return this.decoder.decode(chunk, { stream: true });
  }

  end(): string {
    if (!this.decoder) {
      const head = this.pending ?? Buffer.alloc(0);
      this.pending = null;
      this.decoder = new TextDecoder(encodingOf(head));
      return this.decoder.decode(head);
    }
    return this.decoder.decode();
  }
}

function encodingOf(head: Buffer): string {
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}
