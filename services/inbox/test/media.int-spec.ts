import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { MEDIA_MAX_BYTES, StreamType } from '@switchboard/contracts';
import { sniff } from '../src';
import { INBOX_PERMISSIONS, startInbox, streamEvent, type InboxTestApp } from './support';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100, 1)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100, 2)]);
const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(40)]);
const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(40)]);
const OGG = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(40)]);
const VCARD = Buffer.from('BEGIN:VCARD\nVERSION:3.0\nFN:Max\nTEL:+4915112345678\nEND:VCARD\n');
const LOCATION = Buffer.from(JSON.stringify({ latitude: 52.52, longitude: 13.405, name: 'Berlin' }));
const HTML = Buffer.from('<html><script>alert(document.cookie)</script></html>');

/** Media: per kind a size limit and the types it takes, read from the bytes; stored files only for their account. */
describe('inbox media', () => {
  let app: InboxTestApp;
  let token: string;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-inbox-media-'));
  const stream = randomUUID();

  beforeAll(async () => {
    app = await startInbox({ media: { dir } });
    token = app.token('1', '100', INBOX_PERMISSIONS);
    await app.publish([streamEvent('1', '501', StreamType.WhatsApp, { uid: stream })]);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const upload = async (kind: string, bytes: Buffer, name: string, tok = token, s = stream) => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), name);
    const res = await fetch(`${app.t.url}/api/upload/${kind}/${s}`, { method: 'POST', headers: { authorization: `Bearer ${tok}` }, body: form });
    return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read field by field
  };

  it('tells the type from the bytes', () => {
    expect([PNG, JPEG, PDF, WEBP, MP4, OGG, VCARD, LOCATION, HTML].map(sniff)).toEqual(['image/png', 'image/jpeg', 'application/pdf', 'image/webp', 'video/mp4', 'audio/ogg', 'text/vcard', 'application/vnd.geo+json', null]);
  });

  it('takes each kind in its own formats and serves it back with that type, for its account only', async () => {
    for (const [kind, bytes, mime] of [
      ['image', PNG, 'image/png'],
      ['document', PDF, 'application/pdf'],
      ['sticker', WEBP, 'image/webp'],
      ['video', MP4, 'video/mp4'],
      ['audio', OGG, 'audio/ogg'],
      ['contact', VCARD, 'text/vcard'],
      ['location', LOCATION, 'application/vnd.geo+json'],
    ] as const) {
      const up = await upload(kind, bytes, 'whatever.bin');
      expect({ kind, status: up.status, mime: up.body.mime, size: up.body.size }).toEqual({ kind, status: 201, mime, size: bytes.length });
      const info = await app.call('GET', `/media_info/${up.body.id as string}`, { token });
      expect(info.body).toEqual(up.body);
      const res = await fetch(`${app.t.url}/api/stream_media/${up.body.id as string}`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.headers.get('content-type')).toBe(mime);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    }
    const png = await upload('image', PNG, 'a.png');
    const stranger = app.token('2', '200', INBOX_PERMISSIONS);
    expect((await app.call('GET', `/media_info/${png.body.id as string}`, { token: stranger })).status).toBe(404);
    expect((await fetch(`${app.t.url}/api/stream_media/${png.body.id as string}`, { headers: { authorization: `Bearer ${stranger}` } })).status).toBe(404);
    // nor can another account upload to this account's stream
    expect((await upload('image', PNG, 'a.png', stranger)).status).toBe(404);
  });

  it('refuses a file whose bytes are not of its kind, whatever its name, and stores nothing', async () => {
    const before = (await app.sql(`SELECT count(*)::int AS n FROM inbox.media`))[0].n as number;
    const html = await upload('document', HTML, 'report.pdf');
    expect(html.status).toBe(400);
    expect(html.body).toMatchObject({ code: '0x17', violations: [{ code: 'invalidMedia' }] });
    // a PDF is no image, a JPEG is no sticker
    expect((await upload('image', PDF, 'photo.png')).status).toBe(400);
    expect((await upload('sticker', JPEG, 'sticker.webp')).status).toBe(400);
    expect((await upload('gif', PNG, 'x.gif')).status).toBe(400);
    expect((await app.sql(`SELECT count(*)::int AS n FROM inbox.media`))[0].n).toBe(before);
  });

  it('refuses a file over the limit of its kind with 413', async () => {
    const big = Buffer.concat([WEBP, Buffer.alloc(MEDIA_MAX_BYTES.sticker, 0)]);
    const res = await upload('sticker', big, 'big.webp');
    expect(res.status).toBe(413);
    expect(res.body.violations).toEqual([expect.objectContaining({ code: 'fileTooLarge' })]);
    expect((await upload('image', Buffer.concat([PNG, Buffer.alloc(MEDIA_MAX_BYTES.image)]), 'huge.png')).status).toBe(413);
  });
});
