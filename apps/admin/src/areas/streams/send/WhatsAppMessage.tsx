import LinkRoundedIcon from '@mui/icons-material/LinkRounded';
import PhoneRoundedIcon from '@mui/icons-material/PhoneRounded';
import AccountTreeRoundedIcon from '@mui/icons-material/AccountTreeRounded';
import { Alert, Box, Chip, MenuItem, Skeleton, TextField, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import type { WhatsAppTemplate } from '../types';
import { fill, placeholdersOf, type WhatsAppDraft } from './whatsapp-template';

/** Spec 2 message button chips: URL shows "Link:" with placeholders filled, phone "Call:", flow "Flow ID:". */
const ButtonChip = ({ b, values }: { b: NonNullable<NonNullable<WhatsAppTemplate['components']>[number]['buttons']>[number]; values: Record<string, string> }) => {
  const translate = useTranslate();
  if (b.type === 'URL') return <Chip size="small" icon={<LinkRoundedIcon />} label={`${translate('streams.whatsapp.link')} ${fill(b.url ?? '', 'BUTTONS', values)}`} variant="outlined" />;
  if (b.type === 'PHONE_NUMBER') return <Chip size="small" icon={<PhoneRoundedIcon />} label={`${translate('streams.whatsapp.call')} ${b.phone_number ?? ''}`} variant="outlined" />;
  if (b.type === 'FLOW') return <Chip size="small" icon={<AccountTreeRoundedIcon />} label={`${translate('streams.whatsapp.flow')} ${b.flow_id ?? ''}`} variant="outlined" />;
  return <Chip size="small" label={b.text ?? translate(`streams.whatsapp.buttonTypes.${b.type}`, { _: b.type })} variant="outlined" />;
};

interface Props {
  draft: WhatsAppDraft;
  onChange: (d: WhatsAppDraft) => void;
  text: string;
  onText: (t: string) => void;
  templates: WhatsAppTemplate[] | undefined;
  loading: boolean;
  error: boolean;
  textError?: string;
}

/** The WhatsApp message step: an approved template with its placeholders per section and a live preview, or plain text. */
export const WhatsAppMessage = ({ draft, onChange, text, onText, templates, loading, error, textError }: Props) => {
  const translate = useTranslate();
  const t = templates?.find((x) => `${x.name}|${x.language}` === draft.template);
  return (
    <Box>
      <ToggleButtonGroup size="small" exclusive value={draft.mode} onChange={(_e, v: WhatsAppDraft['mode'] | null) => v && onChange({ ...draft, mode: v })} sx={{ mb: 2 }}>
        <ToggleButton value="template" data-testid="wa-mode-template">{translate('streams.whatsapp.template')}</ToggleButton>
        <ToggleButton value="text" data-testid="wa-mode-text">{translate('streams.whatsapp.text')}</ToggleButton>
      </ToggleButtonGroup>
      {draft.mode === 'text' ? (
        <>
          <TextField label={translate('streams.sendMessage.message')} multiline minRows={4} value={text} onChange={(e) => onText(e.target.value)} error={!!textError} helperText={textError ?? translate('streams.whatsapp.textHint')} slotProps={{ htmlInput: { 'data-testid': 'send-text' } }} />
        </>
      ) : error ? (
        <Alert severity="error">{translate('streams.modalDemo.invalidToken')}</Alert>
      ) : loading ? (
        <Skeleton variant="rounded" height={56} />
      ) : (
        <>
          <TextField select label={translate('streams.whatsapp.chooseTemplate')} value={draft.template} onChange={(e) => onChange({ ...draft, template: e.target.value, placeholders: {} })} helperText={templates?.length ? ' ' : translate('streams.whatsapp.noTemplates')} slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'wa-template' } as object } }}>
            {(templates ?? []).map((x) => (
              <MenuItem key={`${x.name}|${x.language}`} value={`${x.name}|${x.language}`}>
                {x.name} <Typography component="span" variant="caption" color="text.secondary" sx={{ ml: 1 }}>{x.language} · {x.category}</Typography>
              </MenuItem>
            ))}
          </TextField>
          {t && (
            <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2 }}>
              <Box>
                {(t.components ?? [])
                  .filter((c) => c.type === 'HEADER' || c.type === 'BODY')
                  .flatMap((c) =>
                    placeholdersOf(c.text).map((n) => (
                      <TextField
                        key={`${c.type}.${n}`}
                        size="small"
                        sx={{ mb: 1.25 }}
                        label={translate('streams.whatsapp.placeholder', { section: translate(`streams.whatsapp.sections.${c.type}`), n })}
                        value={draft.placeholders[`${c.type}.${n}`] ?? ''}
                        onChange={(e) => onChange({ ...draft, placeholders: { ...draft.placeholders, [`${c.type}.${n}`]: e.target.value } })}
                      />
                    )),
                  )}
              </Box>
              <Box sx={{ bgcolor: '#e7ded3', borderRadius: '10px', p: 1.5 }}>
                <Box sx={{ bgcolor: '#fff', borderRadius: '8px', p: 1.25, boxShadow: '0 1px 1px rgba(0,0,0,.08)', fontSize: 13.5 }} data-testid="wa-preview">
                  {(t.components ?? []).map((c, i) =>
                    c.type === 'BUTTONS' ? (
                      <Box key={i} sx={{ display: 'flex', gap: 0.5, flexWrap: 'wrap', mt: 1 }}>
                        {(c.buttons ?? []).map((b, j) => <ButtonChip key={j} b={b} values={draft.placeholders} />)}
                      </Box>
                    ) : c.text ? (
                      <Typography key={i} variant="body2" sx={{ whiteSpace: 'pre-wrap', fontWeight: c.type === 'HEADER' ? 700 : 400, color: c.type === 'FOOTER' ? 'text.secondary' : 'text.primary', fontSize: c.type === 'FOOTER' ? 12 : 13.5, mb: 0.5 }}>
                        {fill(c.text, c.type, draft.placeholders)}
                      </Typography>
                    ) : null,
                  )}
                </Box>
              </Box>
            </Box>
          )}
        </>
      )}
    </Box>
  );
};
