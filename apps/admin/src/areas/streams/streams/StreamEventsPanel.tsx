import AddRoundedIcon from '@mui/icons-material/AddRounded';
import BoltRoundedIcon from '@mui/icons-material/BoltRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import { Alert, Box, Button, CircularProgress, FormControlLabel, Stack, Switch, TextField, Typography } from '@mui/material';
import { useEffect, useState, type FormEvent } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { streamsApi } from '../api';
import { NAME_LIMIT, P } from '../constants';
import { mono } from '../labels';
import { charLimit, check, eventKey, noXss, required } from '../rules';
import type { StreamEvent } from '../types';
import { AppModal } from '../../../ui/modal/AppModal';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { errorText, fieldErrors, messageText } from '../widgets/errors';
import { GatedButton, GatedIconButton } from '../../../ui/Gated';
import { useCan } from '../../../ui/permissions';
import { StatusChip } from '../../../ui/StatusChip';
import { useApi } from '../../../ui/useApi';
import { useClientTable } from '../../../ui/table/useTable';

interface EventValues {
  name: string;
  eventKey: string;
  text: string;
  active: boolean;
}

const EventDialog = ({ open, event, streamId, onClose, onSaved }: { open: boolean; event: StreamEvent | null; streamId: number; onClose: () => void; onSaved: () => void }) => {
  const translate = useTranslate();
  const [v, setV] = useState<EventValues>({ name: '', eventKey: '', text: '', active: true });
  const [submitted, setSubmitted] = useState(false);
  const [server, setServer] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!open) return;
    setV(event ? { name: event.name, eventKey: event.eventKey, text: event.text, active: event.active } : { name: '', eventKey: '', text: '', active: true });
    setSubmitted(false);
    setServer({});
    setBanner(null);
  }, [open, event]);
  const errors: Record<string, string | undefined> = { name: check(v.name, required, charLimit(NAME_LIMIT), noXss), eventKey: check(v.eventKey, eventKey) };
  const shown = (f: string) => server[f] || (submitted && errors[f] ? messageText(errors[f] as string, translate, { limit: NAME_LIMIT }) : undefined);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (Object.values(errors).some(Boolean) || busy) return;
    setBusy(true);
    setBanner(null);
    try {
      const body = { name: v.name.trim(), eventKey: v.eventKey.trim(), text: v.text, active: v.active };
      if (event) await streamsApi.updateEvent(event.id, body);
      else await streamsApi.createEvent({ ...body, stream: streamId });
      onSaved();
    } catch (error) {
      const f = fieldErrors(error, translate);
      setServer(f);
      if (!f.name && !f.eventKey) setBanner(errorText(error, translate));
    } finally {
      setBusy(false);
    }
  };
  return (
    <AppModal
      open={open}
      onClose={onClose}
      icon={<BoltRoundedIcon fontSize="small" />}
      title={translate(event ? 'streams.events.edit' : 'streams.events.add')}
      testId="event-dialog"
      dismissible={!busy}
      actions={
        <>
          <Button color="inherit" onClick={onClose} disabled={busy}>{translate('streams.ui.cancel')}</Button>
          <Button type="submit" form="event-form" variant="contained" disabled={busy} data-testid="event-submit" startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}>
            {translate('streams.ui.save')}
          </Button>
        </>
      }
    >
      <Box component="form" id="event-form" noValidate onSubmit={submit}>
        {banner && <Alert severity="error" sx={{ mb: 2 }}>{banner}</Alert>}
        <Stack spacing={1}>
          <TextField label={translate('streams.events.name')} value={v.name} required autoFocus onChange={(e) => setV({ ...v, name: e.target.value })} error={!!shown('name')} helperText={shown('name') ?? ' '} slotProps={{ htmlInput: { 'data-testid': 'event-name' } }} />
          <TextField label={translate('streams.events.key')} value={v.eventKey} required onChange={(e) => setV({ ...v, eventKey: e.target.value })} error={!!shown('eventKey')} helperText={shown('eventKey') ?? translate('streams.events.keyHint')} slotProps={{ htmlInput: { 'data-testid': 'event-key', style: mono } }} />
          <TextField label={translate('streams.events.text')} value={v.text} multiline minRows={3} onChange={(e) => setV({ ...v, text: e.target.value })} helperText={translate('streams.events.textHint')} slotProps={{ htmlInput: { 'data-testid': 'event-text' } }} />
          <FormControlLabel control={<Switch checked={v.active} onChange={(e) => setV({ ...v, active: e.target.checked })} />} label={translate('streams.events.active')} />
        </Stack>
      </Box>
    </AppModal>
  );
};

/** The stream events of a stream (spec 3: name, text, eventKey, active), 500 per page (spec 9). */
export const StreamEventsPanel = ({ streamId }: { streamId: number }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const can = useCan();
  const events = useApi(() => streamsApi.events(streamId), [streamId]);
  const [dialog, setDialog] = useState<{ event: StreamEvent | null } | null>(null);
  const [removing, setRemoving] = useState<StreamEvent | null>(null);
  const [busy, setBusy] = useState(false);

  const toggle = async (e: StreamEvent, active: boolean) => {
    try {
      await streamsApi.updateEvent(e.id, { active });
      await events.refresh();
    } catch (error) {
      notify(errorText(error, translate), { type: 'error' });
    }
  };
  const columns: Column<StreamEvent>[] = [
    { key: 'name', label: translate('streams.events.name'), sortable: true, sortValue: (e) => e.name.toLowerCase(), render: (e) => <Typography sx={{ fontWeight: 600, fontSize: 14 }} data-testid="event-row-name">{e.name}</Typography> },
    { key: 'eventKey', label: translate('streams.events.key'), sortable: true, sortValue: (e) => e.eventKey, render: (e) => <Box component="span" sx={{ ...mono, fontSize: 13, px: 0.75, py: 0.25, bgcolor: '#f2f4f7', borderRadius: '6px' }}>{e.eventKey}</Box> },
    { key: 'text', label: translate('streams.events.text'), render: (e) => <Typography variant="body2" color="text.secondary" sx={{ maxWidth: 380 }} noWrap title={e.text}>{e.text || '—'}</Typography> },
    {
      key: 'active',
      label: translate('streams.events.status'),
      render: (e) => (
        <Box sx={{ display: 'flex', alignItems: 'center' }}>
          <Switch size="small" checked={e.active} disabled={!can(P.StreamAddEdit)} onChange={(ev) => void toggle(e, ev.target.checked)} />
          <StatusChip tone={e.active ? 'success' : 'neutral'}>{translate(e.active ? 'streams.events.on' : 'streams.events.off')}</StatusChip>
        </Box>
      ),
    },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 96,
      render: (e) => (
        <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
          <GatedIconButton permission={P.StreamAddEdit} title={translate('streams.events.edit')} onClick={() => setDialog({ event: e })}>
            <EditRoundedIcon fontSize="small" />
          </GatedIconButton>
          <GatedIconButton permission={P.StreamRemove} title={translate('streams.events.delete')} onClick={() => setRemoving(e)}>
            <DeleteOutlineRoundedIcon fontSize="small" />
          </GatedIconButton>
        </Box>
      ),
    },
  ];
  const table = useClientTable(events.data?.items ?? [], columns, 'streamEvents', { field: 'name', order: 'asc' });

  const remove = async () => {
    if (!removing) return;
    setBusy(true);
    try {
      await streamsApi.deleteEvent(removing.id);
      await events.refresh();
    } catch (error) {
      notify(errorText(error, translate), { type: 'error' });
    } finally {
      setBusy(false);
      setRemoving(null);
    }
  };

  return (
    <Box>
      <Box sx={{ display: 'flex', alignItems: 'center', mb: 2, gap: 2 }}>
        <Typography variant="body2" color="text.secondary" sx={{ flex: 1 }}>
          {translate('streams.events.subtitle')}
        </Typography>
        <GatedButton permission={P.StreamAddEdit} variant="outlined" startIcon={<AddRoundedIcon />} onClick={() => setDialog({ event: null })} data-testid="add-event">
          {translate('streams.events.add')}
        </GatedButton>
      </Box>
      {events.error ? <Alert severity="error" sx={{ mb: 2 }}>{errorText(events.error, translate)}</Alert> : null}
      <DataTable
        testId="events-table"
        rowTestId="event-row"
        columns={columns}
        rows={table.pageRows}
        rowKey={(e) => e.id}
        loading={events.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        maxHeight={520}
        empty={<NoResults icon={<BoltRoundedIcon />} title={translate('streams.events.empty')} text={translate(can(P.StreamAddEdit) ? 'streams.events.emptyText' : 'streams.noData.missingAddPermission')} />}
      />
      <EventDialog
        open={!!dialog}
        event={dialog?.event ?? null}
        streamId={streamId}
        onClose={() => setDialog(null)}
        onSaved={() => {
          setDialog(null);
          notify('streams.events.saved', { type: 'success' });
          void events.refresh();
        }}
      />
      <ConfirmDialog
        open={!!removing}
        busy={busy}
        danger
        title={translate('streams.events.confirmDelete')}
        text={removing ? translate('streams.events.confirmDeleteText', { name: removing.name }) : ''}
        confirmLabel={translate('streams.events.delete')}
        onConfirm={() => void remove()}
        onClose={() => setRemoving(null)}
      />
    </Box>
  );
};
