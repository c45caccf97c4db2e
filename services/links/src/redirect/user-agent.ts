import type { IncomingHttpHeaders } from 'node:http';

/** How the redirect classifies a request's user agent (stored as a smallint; the event carries the name). */
export const UA_CLASSES = ['other', 'desktop', 'mobile', 'tablet', 'bot', 'preview'] as const;
export type UaClassName = (typeof UA_CLASSES)[number];
export const UaClass = { Other: 0, Desktop: 1, Mobile: 2, Tablet: 3, Bot: 4, Preview: 5 } as const;

/**
 * Link-preview fetchers of messengers and social sites: they open a link when it is pasted or received, not when a
 * person taps it. iMessage previews with "facebookexternalhit/1.1 Facebot Twitterbot/1.0" appended to Safari's agent.
 */
const PREVIEW =
  /whatsapp|telegrambot|facebookexternalhit|facebot|facebookcatalog|slackbot|slack-imgproxy|twitterbot|skypeuripreview|linkedinbot|discordbot|pinterestbot|redditbot|applebot|iframely|embedly|vkshare|google-pagerenderer|bingpreview|mattermost/i;
const BOT = /bot\b|bot\/|crawler|spider|headlesschrome|phantomjs|scrapy|python-requests|go-http-client|java\/|okhttp|libwww|httpclient|axios|node-fetch/i;
const TABLET = /ipad|tablet|kindle|silk|playbook|(android(?!.*mobile))/i;
const MOBILE = /mobile|iphone|ipod|android|blackberry|opera mini|iemobile|windows phone/i;
const DESKTOP = /windows nt|macintosh|x11|cros|linux x86_64/i;

// user agents repeat (a few hundred strings make most traffic): each is classified once
const memo = new Map<string, number>();

export function classifyUserAgent(ua: string | undefined): number {
  if (!ua) return UaClass.Other;
  const known = memo.get(ua);
  if (known !== undefined) return known;
  const c = classify(ua);
  if (memo.size >= 5000) memo.clear();
  memo.set(ua, c);
  return c;
}

function classify(ua: string): number {
  if (PREVIEW.test(ua)) return UaClass.Preview;
  if (BOT.test(ua)) return UaClass.Bot;
  if (TABLET.test(ua)) return UaClass.Tablet;
  if (MOBILE.test(ua)) return UaClass.Mobile;
  if (DESKTOP.test(ua)) return UaClass.Desktop;
  return UaClass.Other;
}

/**
 * Whether a request is a person opening the link, or something fetching it on their behalf ahead of time: HEAD,
 * browser prefetch and prerender (`Purpose: prefetch`, `Sec-Purpose: prefetch` / `prefetch;prerender`,
 * `X-Moz: prefetch`, `X-Purpose: preview`), link previews and bots. These are redirected like anyone, recorded with
 * the flag, and never counted as clicks.
 */
export function isPreview(method: string | undefined, headers: IncomingHttpHeaders, uaClass: number): boolean {
  const purpose = headers['sec-purpose'] ?? headers.purpose ?? headers['x-purpose'] ?? headers['x-moz'];
  return isPreviewPurpose(method, typeof purpose === 'string' ? purpose : undefined, uaClass);
}

/** `isPreview` with the purpose header already read (`Sec-Purpose`, else `Purpose`, `X-Purpose`, `X-Moz`). */
export function isPreviewPurpose(method: string | undefined, purpose: string | undefined, uaClass: number): boolean {
  if (method === 'HEAD') return true;
  if (uaClass === UaClass.Preview || uaClass === UaClass.Bot) return true;
  return purpose !== undefined && PURPOSE.test(purpose);
}
const PURPOSE = /prefetch|prerender|preview/i;
