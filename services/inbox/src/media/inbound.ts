import { MEDIA_KINDS, type InboxMessageContent, type MediaKindValue } from '@switchboard/contracts';

type Json = Record<string, unknown>;

/** The kinds whose bytes are fetched from the provider (locations and contact cards arrive whole in the message). */
const FETCHED: readonly MediaKindValue[] = ['image', 'video', 'document', 'audio', 'sticker'];

const str = (v: unknown) => (typeof v === 'string' && v ? v : null);

/** What the provider says of a file: WhatsApp `{ id, mime_type, filename }`, Telegram `{ <kind>: file or sizes[] }`. */
function claim(media: Json): { mime: string | null; size: number | null; name: string | null } {
  const files: Json[] = [];
  if (typeof media.id === 'string') files.push(media);
  for (const v of Object.values(media)) {
    if (Array.isArray(v)) files.push(...(v as Json[]).filter((x) => x && typeof x === 'object'));
    else if (v && typeof v === 'object') files.push(v as Json);
  }
  const f = files.sort((a, b) => Number(b.file_size ?? 0) - Number(a.file_size ?? 0))[0] ?? {};
  const size = Number(f.file_size);
  return { mime: str(f.mime_type), size: Number.isFinite(size) && size > 0 ? size : null, name: str(f.filename) ?? str(f.file_name) };
}

/**
 * The timeline content of an inbound message (docs/decisions/0045): WhatsApp and Telegram files become media the
 * inbox will fetch on first read (`pending`, the message's uuid as the media id); a location becomes `location`;
 * anything else keeps what dispatch handed over.
 */
export function inboundContent(d: { messageUuid: string; channel: string; messageType: string; body: string; media: Json | null }): InboxMessageContent {
  if (!d.media) return { body: d.body };
  const kind = d.messageType as MediaKindValue;
  if ((d.channel === 'whatsapp' || d.channel === 'telegram') && MEDIA_KINDS.includes(kind) && FETCHED.includes(kind)) {
    const c = claim(d.media);
    return { body: d.body, media: { id: d.messageUuid, kind, mime: c.mime ?? '', size: c.size ?? 0, file_name: c.name, url: `/api/stream_media/${d.messageUuid}`, pending: true } };
  }
  if (d.messageType === 'location' && typeof d.media.latitude === 'number' && typeof d.media.longitude === 'number') {
    return { body: d.body, location: { latitude: d.media.latitude, longitude: d.media.longitude, name: str(d.media.name), address: str(d.media.address) } };
  }
  return { body: d.body, media: d.media as unknown as InboxMessageContent['media'] };
}
