import AddRoundedIcon from '@mui/icons-material/AddRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import { Alert, Autocomplete, Box, Button, Chip, FormControlLabel, IconButton, List, ListItemButton, ListItemText, MenuItem, Switch, TextField, Tooltip, Typography } from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { useNavigate, useParams } from 'react-router-dom';
import { isApiError } from '../../../providers/http';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { FormDialog } from '../../../ui/modal/FormDialog';
import { useCan } from '../../../ui/permissions';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { useApi } from '../../../ui/useApi';
import { messageText } from '../../streams/widgets/errors';
import { inboxApi, settingsApi } from '../api';
import { P, TAG_NAME_MAX } from '../constants';
import { InboxFrame } from '../InboxFrame';
import { InboxProvider, useInbox } from '../useInbox';
import { FIELDS, SECTIONS, validateField, type FieldDef, type SectionKey, type Row } from './sections';

const errText = (e: unknown) => (isApiError(e) ? (e.body?.message ?? e.message) : e instanceof Error ? e.message : String(e));

/** The options of a relation field (teams, agents, streams) from the current space and the inbox streams. */
function useOptions() {
  const { space } = useInbox();
  const streams = useApi(() => inboxApi.inboxStreams().catch(() => ({ items: [], total: 0 })), []);
  return useMemo(
    () => ({
      teams: (space?.teams ?? []).map((t) => ({ value: `/api/teams/${t.id}`, label: t.name })),
      agents: (space?.agents ?? []).map((a) => ({ value: `/api/agents/${a.id}`, label: `${a.firstname} ${a.lastname}`.trim() || a.email })),
      streams: (streams.data?.items ?? []).map((s) => ({ value: s.streamUid, label: s.name })),
    }),
    [space, streams.data],
  );
}

const cell = (row: Row, f: FieldDef, options: ReturnType<typeof useOptions>): string => {
  const v = row[f.key];
  if (v === null || v === undefined) return '';
  if (f.type === 'switch') return v ? '✓' : '—';
  const opts = f.options ? options[f.options] : null;
  const label = (x: unknown) => (opts ? (opts.find((o) => o.value === x || o.value.endsWith(`/${String(x).split('/').pop()}`))?.label ?? String(x)) : typeof x === 'object' ? JSON.stringify(x) : String(x));
  return Array.isArray(v) ? v.map(label).join(', ') : label(v);
};

const SectionList = ({ section }: { section: SectionKey }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const { space } = useInbox();
  const def = SECTIONS.find((s) => s.key === section)!;
  const options = useOptions();
  const api = settingsApi[section];
  const whatsapp = useApi(() => inboxApi.inboxStreams().then((r) => r.items.filter((x) => x.streamType === 5)).catch(() => []), [], !!def.streamScoped);
  const [streamId, setStreamId] = useState<number | ''>('');
  useEffect(() => {
    if (def.streamScoped && streamId === '' && whatsapp.data?.[0]) setStreamId(whatsapp.data[0].id);
  }, [def.streamScoped, streamId, whatsapp.data]);
  const query = def.spaceScoped && space ? { space: space.space.id } : def.streamScoped ? { streamId: streamId === '' ? undefined : streamId, itemsPerPage: 500 } : {};
  const list = useApi(() => api.list(query), [section, space?.space.id, streamId], (!def.spaceScoped || !!space) && (!def.streamScoped || streamId !== ''));
  const [editing, setEditing] = useState<Row | null>(null);
  const [removing, setRemoving] = useState<Row | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const fields = FIELDS[section];
  const writable = 'create' in api;

  const columns: Column<Row>[] = [
    ...def.columns.map((k) => {
      const f = fields.find((x) => x.key === k) ?? { key: k, type: 'text' as const };
      return {
        key: k,
        label: translate(`inbox.settings.fields.${k}`),
        render: (r: Row) => (
          <Typography component="span" sx={{ fontSize: 14, fontWeight: k === 'name' ? 600 : 400, wordBreak: 'break-word' }} data-testid={`cell-${k}`}>
            {cell(r, f, options)}
          </Typography>
        ),
      };
    }),
    ...(writable
      ? [
          {
            key: 'actions',
            label: '',
            align: 'right' as const,
            render: (r: Row) => (
              <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
                <Tooltip title={translate('ra.action.edit')}>
                  <IconButton size="small" onClick={() => setEditing(r)} data-testid="settings-edit" aria-label={translate('ra.action.edit')}>
                    <EditRoundedIcon fontSize="small" />
                  </IconButton>
                </Tooltip>
                <Tooltip title={translate('ra.action.delete')}>
                  <IconButton size="small" onClick={() => setRemoving(r)} data-testid="settings-delete" aria-label={translate('ra.action.delete')}>
                    <DeleteOutlineRoundedIcon fontSize="small" />
                  </IconButton>
                </Tooltip>
              </Box>
            ),
          },
        ]
      : []),
  ];

  return (
    <Box sx={{ flex: 1, minWidth: 0 }} data-testid={`settings-${section}`}>
      <Box sx={{ display: 'flex', alignItems: 'center', mb: 2, gap: 2 }}>
        <Box sx={{ flex: 1 }}>
          <Typography variant="h6">{translate(`inbox.settings.sections.${section}`)}</Typography>
          <Typography variant="body2" color="text.secondary">{translate(`inbox.settings.hints.${section}`)}</Typography>
        </Box>
        {writable && (
          <Button variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setEditing({})} data-testid="settings-add">
            {translate('inbox.settings.add')}
          </Button>
        )}
      </Box>
      {def.streamScoped && (
        <TextField select size="small" fullWidth={false} sx={{ minWidth: 260, mb: 2 }} label={translate('inbox.settings.fields.stream')} value={streamId} onChange={(e) => setStreamId(Number(e.target.value))} helperText={whatsapp.data && whatsapp.data.length === 0 ? translate('inbox.settings.noWhatsApp') : undefined}>
          {(whatsapp.data ?? []).map((w) => (
            <MenuItem key={w.id} value={w.id}>{w.name}</MenuItem>
          ))}
        </TextField>
      )}
      {list.error ? <Alert severity="error" sx={{ mb: 2 }}>{errText(list.error)}</Alert> : null}
      <DataTable
        testId="settings-table"
        rowTestId="settings-row"
        columns={columns}
        rows={list.data?.items ?? []}
        rowKey={(r) => String(r.id ?? JSON.stringify(r))}
        loading={list.loading}
        empty={<NoResults title={translate('inbox.settings.empty')} text={translate(`inbox.settings.hints.${section}`)} />}
      />
      {editing && (
        <EditDialog
          section={section}
          streamId={streamId === '' ? undefined : streamId}
          row={editing}
          options={options}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setEditing(null);
            if (section === 'api_keys' && typeof saved?.apiKey === 'string' && !editing.id) setSecret(saved.apiKey);
            notify('inbox.settings.saved', { type: 'success' });
            void list.reload();
          }}
        />
      )}
      <FormDialog open={!!secret} onClose={() => setSecret(null)} onSubmit={() => setSecret(null)} busy={false} title={translate('inbox.settings.apiKeyOnce')} submitLabel={translate('ra.action.close')}>
        <Box component="pre" sx={{ p: 1.5, bgcolor: '#f6f7f9', borderRadius: 1, wordBreak: 'break-all', whiteSpace: 'pre-wrap' }} data-testid="api-key-value">{secret}</Box>
      </FormDialog>
      <ConfirmDialog
        open={!!removing}
        danger
        title={translate('inbox.settings.deleteTitle')}
        text={translate('inbox.settings.deleteText', { name: String(removing?.name ?? '') })}
        onClose={() => setRemoving(null)}
        onConfirm={() => {
          const r = removing;
          setRemoving(null);
          if (r?.id !== undefined && 'remove' in api) void api.remove(r.id as number).then(() => list.reload(), (e: unknown) => notify(errText(e), { type: 'error' }));
        }}
      />
    </Box>
  );
};

const EditDialog = ({ section, row, options, onClose, onSaved, streamId }: { section: SectionKey; row: Row; options: ReturnType<typeof useOptions>; onClose: () => void; onSaved: (r: Row | null) => void; streamId?: number }) => {
  const translate = useTranslate();
  const { space } = useInbox();
  const fields = FIELDS[section];
  const def = SECTIONS.find((s) => s.key === section)!;
  const [form, setForm] = useState<Row>(() => Object.fromEntries(fields.map((f) => [f.key, row[f.key] ?? (f.type === 'multi' || f.type === 'chips' ? [] : f.type === 'switch' ? true : '')])));
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const errors = Object.fromEntries(fields.map((f) => [f.key, validateField(f, form[f.key])]));
  const invalid = Object.values(errors).some(Boolean);
  const api = settingsApi[section];

  const save = async () => {
    setSubmitted(true);
    if (invalid || !('create' in api)) return;
    setBusy(true);
    setError(null);
    try {
      const body: Row = { ...form };
      if (def.spaceScoped && space) body.space = `/api/spaces/${space.space.id}`;
      if (def.streamScoped && streamId !== undefined) body.stream = streamId;
      if (section === 'api_keys') {
        body.ipAcl = Array.isArray(form.ipAcl) ? (form.ipAcl as string[]).join(',') : form.ipAcl;
        body.active = form.active ? 1 : 0;
      }
      const saved = row.id !== undefined ? await api.update(row.id as number, body) : await api.create(body);
      onSaved(saved as Row);
    } catch (e) {
      if (isApiError(e) && Array.isArray(e.body?.violations)) {
        setServerErrors(Object.fromEntries(e.body.violations.map((v: { propertyPath: string; message: string }) => [v.propertyPath, v.message])));
      }
      setError(errText(e));
    } finally {
      setBusy(false);
    }
  };

  const show = (k: string) => (submitted && errors[k] ? messageText(errors[k] as string, translate, { limit: (fields.find((f) => f.key === k)?.max ?? TAG_NAME_MAX) + 1 }) : serverErrors[k]);

  return (
    <FormDialog
      open
      size="m"
      onClose={onClose}
      title={translate(row.id !== undefined ? 'inbox.settings.editTitle' : 'inbox.settings.addTitle', { section: translate(`inbox.settings.singular.${section}`) })}
      submitLabel={translate('ra.action.save')}
      onSubmit={() => void save()}
      busy={busy}
      error={error}
      formId={`settings-form-${section}`}
      submitTestId="settings-submit"
      testId="settings-dialog"
    >
      <Box sx={{ display: 'grid', gap: 2, pt: 1 }}>
        {fields.map((f) => {
          const label = translate(`inbox.settings.fields.${f.key}`);
          const err = show(f.key);
          const testId = `settings-field-${f.key}`;
          if (f.type === 'switch') {
            return <FormControlLabel key={f.key} control={<Switch checked={!!form[f.key]} onChange={(e) => setForm({ ...form, [f.key]: e.target.checked })} inputProps={{ 'data-testid': testId } as object} />} label={label} />;
          }
          if (f.type === 'select' && f.options) {
            return (
              <TextField key={f.key} select label={label} value={(form[f.key] as string) ?? ''} onChange={(e) => setForm({ ...form, [f.key]: e.target.value })} error={!!err} helperText={err ?? ' '} slotProps={{ select: { SelectDisplayProps: { 'data-testid': testId } as object } }}>
                {options[f.options].map((o) => (
                  <MenuItem key={o.value} value={o.value}>{o.label}</MenuItem>
                ))}
              </TextField>
            );
          }
          if ((f.type === 'multi' && f.options) || f.type === 'chips') {
            const opts = f.options ? options[f.options] : [];
            return (
              <Autocomplete
                key={f.key}
                multiple
                freeSolo={f.type === 'chips'}
                options={opts.map((o) => o.value)}
                getOptionLabel={(v) => opts.find((o) => o.value === v)?.label ?? v}
                value={(form[f.key] as string[]) ?? []}
                onChange={(_, v) => setForm({ ...form, [f.key]: v.map((x) => String(x).trim()).filter(Boolean) })}
                renderTags={(value, getTagProps) => value.map((v, i) => <Chip {...getTagProps({ index: i })} key={v} size="small" label={opts.find((o) => o.value === v)?.label ?? v} />)}
                renderInput={(params) => <TextField {...params} label={label} error={!!err} helperText={err ?? (f.type === 'chips' ? translate('inbox.settings.chipsHint') : ' ')} inputProps={{ ...params.inputProps, 'data-testid': testId }} />}
              />
            );
          }
          return (
            <TextField
              key={f.key}
              label={label}
              value={(form[f.key] as string) ?? ''}
              onChange={(e) => setForm({ ...form, [f.key]: e.target.value })}
              multiline={f.type === 'textarea'}
              minRows={f.type === 'textarea' ? 3 : undefined}
              error={!!err}
              helperText={err ?? (f.max ? `${String(form[f.key] ?? '').length} / ${f.max}` : ' ')}
              inputProps={{ 'data-testid': testId }}
            />
          );
        })}
      </Box>
    </FormDialog>
  );
};

const Settings = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const can = useCan();
  const { section } = useParams<{ section?: string }>();
  const visible = SECTIONS.filter((s) => can(s.permission) || can(P.Admin));
  const current = (visible.find((s) => s.key === section) ?? visible[0])?.key;
  useEffect(() => {
    if (current && section !== current) navigate(`/inbox/settings/${current}`, { replace: true });
  }, [current, section, navigate]);
  return (
    <Box sx={{ display: 'flex', flexDirection: { xs: 'column', md: 'row' }, gap: 2, p: { xs: 1.5, md: 3 }, overflow: 'auto', flex: 1 }}>
      <Box sx={{ width: { md: 230 }, flex: 'none' }}>
        <List dense sx={{ display: { xs: 'flex', md: 'block' }, overflowX: 'auto', bgcolor: '#fff', borderRadius: 2, border: 1, borderColor: 'divider' }} data-testid="settings-nav">
          {visible.map((s) => (
            <ListItemButton key={s.key} selected={s.key === current} onClick={() => navigate(`/inbox/settings/${s.key}`)} data-testid={`settings-nav-${s.key}`} sx={{ flex: 'none' }}>
              <ListItemText primary={translate(`inbox.settings.sections.${s.key}`)} primaryTypographyProps={{ fontSize: 14, fontWeight: s.key === current ? 700 : 500, noWrap: true }} />
            </ListItemButton>
          ))}
        </List>
      </Box>
      {current ? <SectionList key={current} section={current} /> : <Alert severity="warning">{translate('ui.permission.missing', { permission: P.ManagerSettings })}</Alert>}
    </Box>
  );
};

/** /inbox/settings/:section: every settings list of the inbox (spec 2 "Inbox"). */
export const InboxSettingsPage = () => (
  <InboxProvider workspace={false}>
    <InboxFrame section="settings">
      <Settings />
    </InboxFrame>
  </InboxProvider>
);
