import BlockRoundedIcon from '@mui/icons-material/BlockRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import { Alert, Box, Chip, Skeleton, Typography } from '@mui/material';
import { useState, type ReactNode } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { RightSidebar } from '../../../ui/RightSidebar';
import { contactsApi } from '../api';
import { P } from '../constants';
import type { Lookups } from '../segments/lookups';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { errorText } from '../widgets/errors';
import { countryName, formatDate, fullName } from '../widgets/format';
import { GatedButton } from '../../../ui/Gated';
import { useApi } from '../../../ui/useApi';
import { ContactStatus } from './ContactStatus';

const Row = ({ label, children }: { label: string; children: ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: '160px 1fr', gap: 2, py: 1.1, borderBottom: 1, borderColor: 'divider' }}>
    <Typography variant="body2" color="text.secondary">
      {label}
    </Typography>
    <Box sx={{ fontSize: 14, overflowWrap: 'anywhere' }}>{children ?? '—'}</Box>
  </Box>
);

/** A contact in the right sidebar: its fields, custom variables and lists; opt-out and delete. */
export const ContactPanel = ({ contactId, lookups, onClose, onChanged }: { contactId: number | null; lookups: Lookups | null; onClose: () => void; onChanged: () => void }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const locale = translate('contacts.locale');
  const contact = useApi(() => (contactId ? contactsApi.contact(contactId) : Promise.resolve(null)), [contactId], !!contactId);
  const [confirm, setConfirm] = useState<'optOut' | 'delete' | null>(null);
  const [busy, setBusy] = useState(false);
  const c = contact.data && contact.data.id === contactId ? contact.data : null;
  const variableName = (name: string) => lookups?.variables.find((v) => v.name === name)?.UIname || name;
  const listName = (id: number) => [...(lookups?.lists ?? []), ...(lookups?.segments ?? [])].find((l) => l.id === id)?.name ?? `#${id}`;

  const act = async () => {
    if (!c || !confirm) return;
    setBusy(true);
    try {
      if (confirm === 'optOut') {
        await contactsApi.optOutContact(c.id);
        notify('contacts.contacts.optedOutDone', { type: 'success' });
        await contact.reload();
      } else {
        await contactsApi.deleteContact(c.id);
        notify('contacts.contacts.deleted', { type: 'success' });
        onClose();
      }
      setConfirm(null);
      onChanged();
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <RightSidebar
        open={!!contactId}
        onClose={onClose}
        title={c ? fullName(c) || c.phone : translate('contacts.contacts.panelTitle')}
        actions={
          c && (
            <>
              <GatedButton permission={P.ContactRemove} color="error" startIcon={<DeleteOutlineRoundedIcon />} onClick={() => setConfirm('delete')}>
                {translate('contacts.actions.delete')}
              </GatedButton>
              <GatedButton permission={P.ContactAddEdit} variant="outlined" startIcon={<BlockRoundedIcon />} disabled={!!c.optedOutAt} onClick={() => setConfirm('optOut')}>
                {translate('contacts.contacts.optOut')}
              </GatedButton>
            </>
          )
        }
      >
        {contact.error != null && !c ? (
          <Alert severity="error">{errorText(contact.error, translate)}</Alert>
        ) : !c ? (
          <Box>
            {[0, 1, 2, 3, 4].map((i) => (
              <Skeleton key={i} height={36} />
            ))}
          </Box>
        ) : (
          <Box data-testid="contact-panel">
            <Box sx={{ mb: 2 }}>
              <ContactStatus contact={c} />
            </Box>
            <Row label={translate('contacts.contacts.fields.phone')}>
              <Typography sx={{ fontFamily: 'ui-monospace, monospace', fontSize: 14 }}>{c.normalizedPhone || c.phone}</Typography>
            </Row>
            <Row label={translate('contacts.contacts.fields.firstName')}>{c.firstName}</Row>
            <Row label={translate('contacts.contacts.fields.lastName')}>{c.lastName}</Row>
            <Row label={translate('contacts.contacts.fields.email')}>{c.email}</Row>
            <Row label={translate('contacts.contacts.fields.country')}>{c.country ? countryName(c.country, locale) : null}</Row>
            <Row label={translate('contacts.contacts.fields.timezone')}>{c.timezone}</Row>
            <Row label={translate('contacts.contacts.fields.operator')}>{c.operator}</Row>
            <Row label={translate('contacts.contacts.fields.created')}>{formatDate(c.createdAt, locale)}</Row>
            {c.optedOutAt && <Row label={translate('contacts.contacts.fields.optedOutAt')}>{formatDate(c.optedOutAt, locale)}</Row>}
            <Typography variant="subtitle2" sx={{ fontWeight: 700, mt: 3, mb: 1 }}>
              {translate('contacts.contacts.variables')}
            </Typography>
            {Object.keys(c.variables).length === 0 ? (
              <Typography variant="body2" color="text.secondary">
                {translate('contacts.contacts.noVariables')}
              </Typography>
            ) : (
              Object.entries(c.variables).map(([k, v]) => (
                <Row key={k} label={variableName(k)}>
                  {v}
                </Row>
              ))
            )}
            <Typography variant="subtitle2" sx={{ fontWeight: 700, mt: 3, mb: 1 }}>
              {translate('contacts.contacts.lists')}
            </Typography>
            {c.contactLists.length === 0 ? (
              <Typography variant="body2" color="text.secondary">
                {translate('contacts.contacts.noLists')}
              </Typography>
            ) : (
              <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.75 }}>
                {c.contactLists.map((id) => (
                  <Chip key={id} size="small" label={listName(id)} />
                ))}
              </Box>
            )}
          </Box>
        )}
      </RightSidebar>
      <ConfirmDialog
        open={!!confirm}
        title={translate(confirm === 'delete' ? 'contacts.contacts.deleteTitle' : 'contacts.contacts.optOutTitle')}
        text={translate(confirm === 'delete' ? 'contacts.contacts.deleteText' : 'contacts.contacts.optOutText', { phone: c?.phone ?? '' })}
        confirmLabel={translate(confirm === 'delete' ? 'contacts.actions.delete' : 'contacts.contacts.optOut')}
        danger={confirm === 'delete'}
        busy={busy}
        onConfirm={() => void act()}
        onClose={() => setConfirm(null)}
      />
    </>
  );
};
