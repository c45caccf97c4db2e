import EditRoundedIcon from '@mui/icons-material/EditRounded';
import { Alert, Autocomplete, Box, Button, Chip, Divider, IconButton, Link, MenuItem, TextField, Tooltip, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { AppModal } from '../../ui/modal/AppModal';
import { useApi } from '../../ui/useApi';
import { useSubmit } from '../../ui/useSubmit';
import { VENDOR_NAMES } from '../integrations/api';
import { inboxApi } from './api';
import { P } from './constants';
import { ChannelIcon, ContactAvatar } from './ConversationList';
import { contactTitle, phoneText, shortTime } from './format';
import type { InboxContact } from './types';
import { agentRef, useInbox } from './useInbox';

const Section = ({ title, children }: { title: string; children: React.ReactNode }) => (
  <Box sx={{ px: 2, py: 1.5 }}>
    <Typography variant="overline" sx={{ color: 'text.secondary', fontWeight: 700, letterSpacing: '.06em', fontSize: 11 }}>
      {title}
    </Typography>
    <Box sx={{ mt: 0.5 }}>{children}</Box>
  </Box>
);

type ContactForm = Pick<InboxContact, 'firstName' | 'lastName' | 'email'> & { id?: number; contactKey?: string | null; phone?: string | null };

/** A note on one CRM contact, written through the vendor's note API (`POST /integration_keys/{key}/notes`). */
const CrmNoteDialog = ({ target, onClose }: { target: { integrationKey: string; externalId: string; title: string } | null; onClose: () => void }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const [text, setText] = useState('');
  const { busy, error, setError, submit } = useSubmit();
  useEffect(() => {
    setText('');
    setError(null);
  }, [target, setError]);
  if (!target) return null;
  const send = () =>
    submit(async () => {
      await inboxApi.crmNote(target.integrationKey, { externalId: target.externalId, text });
      notify('inbox.contact.crmNoteSent', { type: 'success' });
      onClose();
    });
  return (
    <AppModal
      open
      onClose={onClose}
      title={translate('inbox.contact.crmNote')}
      subtitle={target.title}
      testId="crm-note-dialog"
      actions={
        <>
          <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
          <Button variant="contained" disabled={busy || text.trim() === ''} onClick={() => void send()} data-testid="crm-note-send">
            {translate('ra.action.save')}
          </Button>
        </>
      }
    >
      <Box sx={{ display: 'grid', gap: 2, pt: 1 }}>
        {error && <Alert severity="error">{error}</Alert>}
        <TextField autoFocus multiline minRows={4} label={translate('inbox.contact.crmNoteText')} value={text} onChange={(e) => setText(e.target.value)} inputProps={{ 'data-testid': 'crm-note-text', maxLength: 4000 }} />
      </Box>
    </AppModal>
  );
};

const ContactEditDialog = ({ open, contact, onClose, onSaved }: { open: boolean; contact: ContactForm; onClose: () => void; onSaved: (c: InboxContact) => void }) => {
  const translate = useTranslate();
  const { space } = useInbox();
  const [form, setForm] = useState(contact);
  const { busy, error, submit } = useSubmit();
  useEffect(() => setForm(contact), [contact, open]);
  const save = () =>
    submit(async () => {
      if (!space) return;
      const body = { firstName: form.firstName, lastName: form.lastName, email: form.email || undefined, ...(form.contactKey ? { contactKey: form.contactKey } : { phone: form.phone ?? undefined }) };
      onSaved(await (contact.id ? inboxApi.editContact(body) : inboxApi.addContact(body)));
      onClose();
    });
  return (
    <AppModal
      open={open}
      onClose={onClose}
      title={translate(contact.id ? 'inbox.contact.edit' : 'inbox.contact.add')}
      testId="contact-edit-dialog"
      actions={
        <>
          <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
          <Button variant="contained" disabled={busy} onClick={() => void save()} data-testid="contact-save">
            {translate('ra.action.save')}
          </Button>
        </>
      }
    >
      <Box sx={{ display: 'grid', gap: 2, pt: 1 }}>
        {error && <Alert severity="error">{error}</Alert>}
        <TextField label={translate('inbox.contact.firstName')} value={form.firstName ?? ''} onChange={(e) => setForm({ ...form, firstName: e.target.value })} inputProps={{ 'data-testid': 'contact-firstName', maxLength: 255 }} />
        <TextField label={translate('inbox.contact.lastName')} value={form.lastName ?? ''} onChange={(e) => setForm({ ...form, lastName: e.target.value })} inputProps={{ 'data-testid': 'contact-lastName', maxLength: 255 }} />
        <TextField label={translate('inbox.contact.email')} value={form.email ?? ''} onChange={(e) => setForm({ ...form, email: e.target.value })} inputProps={{ 'data-testid': 'contact-email' }} />
      </Box>
    </AppModal>
  );
};

/**
 * The contact panel: who the customer is (name, phone as the permission allows, edit), the conversation's status,
 * team and agent assignment, tags (added from the space's tags), its internal notes, and the contact's other
 * conversations. Every name, tag and note is rendered as text.
 */
export const ContactPanel = () => {
  const translate = useTranslate();
  const locale = translate('inbox.locale');
  const { active, space, state, applyConversation, setStatus, open, can } = useInbox();
  const [editing, setEditing] = useState(false);
  const [crmNote, setCrmNote] = useState<{ integrationKey: string; externalId: string; title: string } | null>(null);
  const { error, setError, submit } = useSubmit();
  const uuid = active?.conversation_uuid;
  const contact = useApi(() => inboxApi.contact(active!, space!.space.id).catch(() => null), [uuid], !!active && !!space);
  // the same number in the account's CRMs (decision 0040: read from the integrations' mirror)
  const crm = useApi(() => inboxApi.crmContacts(active!.contact_phone_number).catch(() => []), [uuid], !!active && !!space && !!active.contact_phone_number);

  if (!active || !space) return null;
  const showPhone = can(P.ShowPhone);
  const m = active.metadata;
  const setMeta = (patch: Partial<typeof m>) =>
    submit(async () => {
      const updated = await inboxApi.metadata(active.conversation_uuid, patch);
      applyConversation(updated?.conversation_uuid ? updated : { ...active, metadata: { ...m, ...patch } });
    });
  const tagOptions = space.conversation_tags;
  const notes = state.timeline.filter((e) => e.event_type === 'internal_note');
  const c = contact.data?.contact ?? null;
  const others = contact.data?.conversations ?? [];
  const name = c ? `${c.firstName ?? ''} ${c.lastName ?? ''}`.trim() : '';

  return (
    <Box sx={{ height: '100%', overflowY: 'auto', bgcolor: '#fff' }} data-testid="contact-panel">
      <Box sx={{ p: 2, display: 'flex', flexDirection: 'column', alignItems: 'center', textAlign: 'center' }}>
        <ContactAvatar name={active.contact_name || name || null} phone={active.contact_phone_number} size={64} />
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5, mt: 1 }}>
          <Typography sx={{ fontWeight: 700, fontSize: 16, wordBreak: 'break-word' }} data-testid="contact-name">
            {name || contactTitle(active, showPhone)}
          </Typography>
          <Tooltip title={translate('inbox.contact.edit')}>
            <IconButton size="small" onClick={() => setEditing(true)} data-testid="contact-edit" aria-label={translate('inbox.contact.edit')}>
              <EditRoundedIcon sx={{ fontSize: 16 }} />
            </IconButton>
          </Tooltip>
        </Box>
        <Typography variant="body2" color="text.secondary" data-testid="contact-phone">
          {phoneText(active.contact_phone_number, showPhone)}
        </Typography>
        {c?.email && <Typography variant="body2" color="text.secondary">{c.email}</Typography>}
        <Box sx={{ display: 'flex', gap: 0.5, alignItems: 'center', mt: 0.5, color: 'text.secondary', fontSize: 12 }}>
          <ChannelIcon type={active.stream_type} /> {active.account_phone_number}
        </Box>
      </Box>
      <Divider />
      {error && <Alert severity="error" sx={{ m: 1.5 }} onClose={() => setError(null)}>{error}</Alert>}
      {(crm.data ?? []).length > 0 && (
        <Section title={translate('inbox.contact.crm')}>
          {(crm.data ?? []).map((x) => (
            <Box key={`${x.integrationKey}:${x.externalId}`} sx={{ mb: 1 }} data-testid="crm-contact">
              <Typography variant="body2" sx={{ fontWeight: 600, wordBreak: 'break-word' }}>
                {x.name || x.email || x.externalId} · {VENDOR_NAMES[x.type] ?? x.type}
              </Typography>
              {x.email && <Typography variant="body2" color="text.secondary">{x.email}</Typography>}
              {Object.entries(x.fields)
                .filter(([, v]) => v !== null && v !== '')
                .slice(0, 8)
                .map(([k, v]) => (
                  <Typography key={k} variant="caption" display="block" color="text.secondary" sx={{ wordBreak: 'break-word' }}>
                    {k}: {String(v)}
                  </Typography>
                ))}
              <Box sx={{ display: 'flex', gap: 1.5, alignItems: 'center', flexWrap: 'wrap' }}>
                {x.url && (
                  <Link href={x.url} target="_blank" rel="noopener noreferrer" variant="body2">
                    {translate('inbox.contact.openInCrm')}
                  </Link>
                )}
                <Link component="button" variant="body2" onClick={() => setCrmNote({ integrationKey: x.integrationKey, externalId: x.externalId, title: `${x.name || x.email || x.externalId} · ${VENDOR_NAMES[x.type] ?? x.type}` })} data-testid="crm-note">
                  {translate('inbox.contact.crmNote')}
                </Link>
              </Box>
            </Box>
          ))}
        </Section>
      )}
      <Section title={translate('inbox.contact.status')}>
        <Box sx={{ display: 'flex', gap: 1 }}>
          {active.conversation_status !== 'closed' ? (
            <Button fullWidth variant="outlined" size="small" onClick={() => void setStatus([active.conversation_uuid], 'closed')} data-testid="close-conversation">
              {translate('inbox.actions.close')}
            </Button>
          ) : (
            <Button fullWidth variant="outlined" size="small" onClick={() => void setStatus([active.conversation_uuid], 'active')} data-testid="reopen-conversation">
              {translate('inbox.actions.reopen')}
            </Button>
          )}
        </Box>
      </Section>
      <Section title={translate('inbox.contact.assignment')}>
        <TextField
          select
          fullWidth
          size="small"
          label={translate('inbox.contact.team')}
          value={m.team[0] ?? ''}
          disabled={!can(P.Assign)}
          onChange={(e) => void setMeta({ team: e.target.value === '' ? [] : [Number(e.target.value)] })}
          inputProps={{ 'data-testid': 'assign-team' }}
          sx={{ mb: 1.5 }}
        >
          <MenuItem value="">{translate('inbox.contact.none')}</MenuItem>
          {space.teams.map((t) => (
            <MenuItem key={t.id} value={t.id}>{t.name}</MenuItem>
          ))}
        </TextField>
        <TextField
          select
          fullWidth
          size="small"
          label={translate('inbox.contact.agent')}
          value={m.agent[0] ?? ''}
          disabled={!can(P.Assign)}
          onChange={(e) => void setMeta({ agent: e.target.value === '' ? [] : [Number(e.target.value)] })}
          inputProps={{ 'data-testid': 'assign-agent' }}
        >
          <MenuItem value="">{translate('inbox.contact.none')}</MenuItem>
          {space.agents.map((a) => (
            <MenuItem key={a.id} value={agentRef(a)}>{`${a.firstname} ${a.lastname}`.trim() || a.email}</MenuItem>
          ))}
        </TextField>
      </Section>
      <Section title={translate('inbox.contact.tags')}>
        <Autocomplete
          multiple
          size="small"
          disabled={!can(P.AssignTags)}
          options={tagOptions.map((t) => t.id)}
          value={m.tags}
          getOptionLabel={(id) => tagOptions.find((t) => t.id === id)?.name ?? `#${id}`}
          onChange={(_, tags) => void setMeta({ tags })}
          renderTags={(value, getTagProps) => value.map((id, i) => <Chip {...getTagProps({ index: i })} key={id} size="small" label={tagOptions.find((t) => t.id === id)?.name ?? `#${id}`} data-testid="conversation-tag" />)}
          renderInput={(params) => <TextField {...params} placeholder={m.tags.length ? '' : translate('inbox.contact.addTag')} inputProps={{ ...params.inputProps, 'data-testid': 'tag-input' }} />}
        />
      </Section>
      {notes.length > 0 && (
        <Section title={translate('inbox.contact.notes')}>
          {notes.map((n) => (
            <Box key={n.event_uuid} sx={{ bgcolor: '#fffaeb', borderRadius: 1.5, p: 1, mb: 0.75, fontSize: 13, whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} data-testid="panel-note">
              {n.event_data?.note ?? n.content?.body ?? ''}
            </Box>
          ))}
        </Section>
      )}
      {others.some((o) => o.conversation_uuid !== active.conversation_uuid) && (
        <Section title={translate('inbox.contact.conversations')}>
          {others
            .filter((o) => o.conversation_uuid !== active.conversation_uuid)
            .map((o) => (
              <Box key={o.conversation_uuid} onClick={() => open(o.conversation_uuid)} sx={{ display: 'flex', gap: 1, alignItems: 'center', py: 0.75, cursor: 'pointer', '&:hover': { color: 'primary.main' } }}>
                <ChannelIcon type={o.stream_type} />
                <Typography variant="body2" noWrap sx={{ flex: 1 }}>{o.last_message ?? ''}</Typography>
                <Typography variant="caption" color="text.secondary">{shortTime(o.last_updated, locale)}</Typography>
              </Box>
            ))}
        </Section>
      )}
      <ContactEditDialog
        open={editing}
        contact={c ?? { firstName: active.contact_name ?? '', lastName: '', phone: active.contact_phone_number, email: '', contactKey: active.contact_phone_key }}
        onClose={() => setEditing(false)}
        onSaved={(saved) => {
          void contact.refresh();
          applyConversation({ ...active, contact_name: `${saved.firstName ?? ''} ${saved.lastName ?? ''}`.trim() || active.contact_name });
        }}
      />
      <CrmNoteDialog target={crmNote} onClose={() => setCrmNote(null)} />
    </Box>
  );
};
