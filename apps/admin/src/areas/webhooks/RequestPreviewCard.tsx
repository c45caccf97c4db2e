import ExpandMoreRoundedIcon from '@mui/icons-material/ExpandMoreRounded';
import { Box, Chip, Collapse, IconButton, Paper, Tooltip, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import type { ReceivedResponse, SentRequest } from './types';

const mono = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 12.5 };
/** Spec 2: a URI over 44 characters is truncated, with the whole URI in a tooltip. */
export const URI_MAX = 44;

export function truncateUri(uri: string): string {
  return uri.length > URI_MAX ? `${uri.slice(0, URI_MAX)}…` : uri;
}

/** Spec 2: a body that is valid JSON is shown indented, anything else as plain text. */
export function bodyText(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** Spec 2: post (or no method) warning-coloured, get success-coloured. */
export const MethodBadge = ({ method }: { method?: string | null }) => (
  <Chip size="small" label={(method || 'POST').toUpperCase()} color={method?.toUpperCase() === 'GET' ? 'success' : 'warning'} sx={{ fontWeight: 700, height: 22 }} data-testid="method-badge" />
);

const Block = ({ title, text }: { title: string; text: string }) => (
  <Box sx={{ mt: 1.5, textAlign: 'left' }}>
    <Typography variant="caption" color="text.secondary" sx={{ fontWeight: 600, textTransform: 'uppercase' }}>
      {title}
    </Typography>
    <Box component="pre" sx={{ ...mono, m: 0, mt: 0.5, p: 1.25, bgcolor: '#f6f7f9', borderRadius: 1, whiteSpace: 'pre-wrap', wordBreak: 'break-all', maxHeight: 260, overflow: 'auto' }}>
      {text || '—'}
    </Box>
  </Box>
);

const headerText = (h: Record<string, string>) =>
  Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');

/** Spec 2, request preview card: URI, method, headers and payload; expands when its header is clicked. */
export const RequestPreviewCard = ({ request, response, defaultOpen = false }: { request: SentRequest; response?: ReceivedResponse | null; defaultOpen?: boolean }) => {
  const translate = useTranslate();
  const [open, setOpen] = useState(defaultOpen);
  return (
    <Paper variant="outlined" sx={{ p: 1.5, textAlign: 'left' }} data-testid="request-preview">
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, cursor: 'pointer' }} onClick={() => setOpen((o) => !o)}>
        <MethodBadge method={request.method} />
        <Tooltip title={request.uri.length > URI_MAX ? request.uri : ''}>
          <Typography sx={{ ...mono, flex: 1, minWidth: 0 }} noWrap data-testid="request-uri">
            {truncateUri(request.uri)}
          </Typography>
        </Tooltip>
        <IconButton size="small" aria-label={translate('webhooks.preview.toggle')} sx={{ transform: open ? 'rotate(180deg)' : 'none' }}>
          <ExpandMoreRoundedIcon fontSize="small" />
        </IconButton>
      </Box>
      <Collapse in={open}>
        <Block title={translate('webhooks.preview.headers')} text={headerText(request.headers)} />
        <Block title={translate('webhooks.preview.payload')} text={bodyText(request.body || new URL(request.uri).searchParams.get('payload') || '')} />
        {response !== undefined && (
          <Block title={translate('webhooks.preview.response')} text={response ? `HTTP ${response.status}\n${headerText(response.headers)}\n\n${bodyText(response.body)}` : translate('webhooks.preview.noResponse')} />
        )}
      </Collapse>
    </Paper>
  );
};
