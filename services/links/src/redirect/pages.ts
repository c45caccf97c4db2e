/** The redirect's small pages: no script, no external resource, nothing cached. */

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): Buffer {
  return Buffer.from(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escape(title)}</title>` +
      `<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font-size:1rem;padding:.6rem 1.2rem}</style></head>` +
      `<body><h1>${escape(title)}</h1>${body}</body></html>`,
  );
}

export const PAGES = {
  notFound: page('Link not found', '<p>This link does not exist. Check that it was copied whole.</p>'),
  gone: page('Link expired', '<p>This link has expired or is no longer available.</p>'),
  refused: page('Link unavailable', '<p>This link cannot be opened.</p>'),
  unavailable: page('Try again shortly', '<p>This link cannot be opened right now. Please try again in a minute.</p>'),
  optOutDone: page('You are unsubscribed', '<p>You will not receive further messages from this sender.</p>'),
  optOutConfirm: (action: string) =>
    page('Unsubscribe', `<p>Do you want to stop receiving messages from this sender?</p><form method="post" action="${escape(action)}"><button type="submit">Unsubscribe</button></form>`),
};
