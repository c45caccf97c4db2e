import ChevronRightRoundedIcon from '@mui/icons-material/ChevronRightRounded';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import FileDownloadOutlinedIcon from '@mui/icons-material/FileDownloadOutlined';
import FilterAltOutlinedIcon from '@mui/icons-material/FilterAltOutlined';
import { Alert, Box, Button, ButtonBase, CircularProgress, Skeleton, Tab, Tabs, TextField, Typography } from '@mui/material';
import { useEffect, useState, type ReactNode } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { RightSidebar } from '../../../ui/RightSidebar';
import { ListCampaignsTab } from '../../campaigns/list/ListCampaignsTab';
import { contactsApi } from '../api';
import { ListStatus, ListType, P, PATHS } from '../constants';
import { useExport } from '../exports/useExport';
import { FilterSummary } from '../segments/FilterSummary';
import type { ContactList } from '../types';
import { errorText, fieldErrors } from '../widgets/errors';
import { formatDate, formatNumber } from '../widgets/format';
import { GatedButton } from '../../../ui/Gated';
import { useCan } from '../../../ui/permissions';
import { useApi } from '../../../ui/useApi';
import { ListStatusCell, TypeChip } from './ListStatus';
import { RejectedRows, type RejectedKind } from './RejectedRows';

type Mode = 'view' | 'edit' | RejectedKind;

const Stat = ({ label, value, tone, onClick, testId }: { label: string; value: ReactNode; tone?: 'danger' | 'warning'; onClick?: () => void; testId?: string }) => {
  const translate = useTranslate();
  const color = tone === 'danger' ? '#b42318' : tone === 'warning' ? '#b54708' : 'text.primary';
  const body = (
    <>
      <Typography variant="caption" color="text.secondary" sx={{ fontWeight: 600, textTransform: 'uppercase', letterSpacing: '.04em' }}>
        {label}
      </Typography>
      <Typography sx={{ fontSize: 22, fontWeight: 700, color, fontVariantNumeric: 'tabular-nums', lineHeight: 1.3 }} data-testid={testId}>
        {value}
      </Typography>
      {onClick && (
        <Typography variant="caption" sx={{ color: 'primary.main', fontWeight: 600, display: 'inline-flex', alignItems: 'center' }}>
          {translate('contacts.actions.view')}
          <ChevronRightRoundedIcon sx={{ fontSize: 16 }} />
        </Typography>
      )}
    </>
  );
  const sx = { p: 1.75, border: 1, borderColor: 'divider', borderRadius: '10px', textAlign: 'left', display: 'flex', flexDirection: 'column', alignItems: 'flex-start' } as const;
  return onClick ? (
    <ButtonBase onClick={onClick} sx={{ ...sx, '&:hover': { borderColor: 'primary.light', bgcolor: '#fafaff' } }} data-testid={testId ? `${testId}-open` : undefined}>
      {body}
    </ButtonBase>
  ) : (
    <Box sx={sx}>{body}</Box>
  );
};

const Detail = ({ label, children }: { label: string; children: ReactNode }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: '150px 1fr', gap: 2, py: 1.25, borderBottom: 1, borderColor: 'divider', '&:last-of-type': { borderBottom: 0 } }}>
    <Typography variant="body2" color="text.secondary">
      {label}
    </Typography>
    <Box sx={{ fontSize: 14, minWidth: 0, overflowWrap: 'anywhere' }}>{children}</Box>
  </Box>
);

export interface ListSidePanelProps {
  listId: number | null;
  /** The table's row, kept live by realtime: its status and progress win over the panel's own copy. */
  live?: Pick<ContactList, 'status' | 'progress' | 'numOfContacts'>;
  onClose: () => void;
  onChanged: () => void;
}

/**
 * The contact list or segment side panel of spec 2: tab "list" and, with CAMPAIGN_VIEW, tab "campaigns"; a view mode
 * and an edit mode (name required, description optional; spec 5), and a drill-down of failed or duplicate contacts
 * with a Close button back.
 */
export const ListSidePanel = ({ listId, live, onClose, onChanged }: ListSidePanelProps) => {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const can = useCan();
  const locale = translate('contacts.locale');
  const exporter = useExport();
  const [tab, setTab] = useState<'list' | 'campaigns'>('list');
  const [mode, setMode] = useState<Mode>('view');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);

  const loaded = useApi(() => (listId ? contactsApi.contactList(listId) : Promise.resolve(null)), [listId], !!listId);
  const reload = loaded.reload;
  const liveStatus = live?.status;
  useEffect(() => {
    setTab('list');
    setMode('view');
    setErrors({});
  }, [listId]);
  // a list that just became ready has its final counts on the server
  useEffect(() => {
    if (liveStatus === ListStatus.Ready && loaded.data && loaded.data.status !== ListStatus.Ready) void reload();
  }, [liveStatus, loaded.data, reload]);

  const data = loaded.data && loaded.data.id === listId ? loaded.data : null;
  const list = data && live && data.status !== ListStatus.Ready ? { ...data, status: live.status, progress: live.progress } : data;
  const showCampaigns = can(P.CampaignView);

  const startEdit = () => {
    if (!list) return;
    setName(list.name);
    setDescription(list.description ?? '');
    setErrors({});
    setMode('edit');
  };

  const save = async () => {
    if (!list) return;
    if (!name.trim()) {
      setErrors({ name: translate('contacts.errors.client.required') });
      return;
    }
    setSaving(true);
    try {
      await contactsApi.updateContactList(list.id, { name: name.trim(), description: description.trim() || null });
      await reload();
      setMode('view');
      notify('contacts.notification.EditedSuccessfully', { type: 'success' });
      onChanged();
    } catch (e) {
      setErrors(fieldErrors(e, translate));
      notify(translate('contacts.notification.EditedFailed') + (fieldErrors(e, translate)._ ? '' : `: ${errorText(e, translate)}`), { type: 'error' });
    } finally {
      setSaving(false);
    }
  };

  const imp = list?.importList ?? null;
  const ready = list?.status === ListStatus.Ready;

  const viewBody = list && (
    <Box data-testid="list-panel-view">
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mb: 2.5, flexWrap: 'wrap' }}>
        <TypeChip type={list.type} />
        <ListStatusCell status={list.status} progress={list.progress} testId="panel-status" />
      </Box>
      <Box sx={{ display: 'grid', gridTemplateColumns: imp ? 'repeat(3, 1fr)' : '1fr', gap: 1.5, mb: 3 }}>
        <Stat label={translate('contacts.lists.stats.contacts')} value={ready ? formatNumber(list.numOfContacts, locale) : '—'} testId="panel-contacts" />
        {imp && (
          <Stat
            label={translate('contacts.lists.stats.failed')}
            value={formatNumber(imp.failed, locale)}
            tone={imp.failed ? 'danger' : undefined}
            onClick={ready && imp.failed > 0 ? () => setMode('failed') : undefined}
            testId="panel-failed"
          />
        )}
        {imp && (
          <Stat
            label={translate('contacts.lists.stats.duplicates')}
            value={formatNumber(imp.duplicates, locale)}
            tone={imp.duplicates ? 'warning' : undefined}
            onClick={ready && imp.duplicates > 0 ? () => setMode('duplicate') : undefined}
            testId="panel-duplicates"
          />
        )}
      </Box>
      <Box>
        <Detail label={translate('contacts.lists.fields.name')}>
          <Typography variant="body2" sx={{ fontWeight: 600 }} data-testid="panel-name">
            {list.name}
          </Typography>
        </Detail>
        <Detail label={translate('contacts.lists.fields.description')}>
          {list.description ? (
            <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap' }}>{list.description}</Typography>
          ) : (
            <Typography variant="body2" color="text.secondary">{translate('contacts.lists.noDescription')}</Typography>
          )}
        </Detail>
        {imp && (
          <Detail label={translate('contacts.lists.fields.import')}>
            <Box component="span" data-testid="list-import-file">{imp.fileName || imp.name}</Box> · {translate('contacts.lists.rowsRead', { smart_count: imp.parsed, count: formatNumber(imp.parsed, locale) })}
          </Detail>
        )}
        <Detail label={translate('contacts.lists.fields.created')}>{formatDate(list.createdAt, locale)}</Detail>
        <Detail label={translate('contacts.lists.fields.updated')}>{formatDate(list.updatedAt, locale)}</Detail>
      </Box>
      {list.type === ListType.Segment && (
        <Box sx={{ mt: 3 }}>
          <Box sx={{ display: 'flex', alignItems: 'center', mb: 1 }}>
            <Typography variant="subtitle2" sx={{ flex: 1, fontWeight: 700 }}>
              {translate('contacts.segments.filter')}
            </Typography>
            <GatedButton permission={P.ListEdit} size="small" startIcon={<FilterAltOutlinedIcon />} onClick={() => navigate(PATHS.segment(list.id))}>
              {translate('contacts.segments.editFilter')}
            </GatedButton>
          </Box>
          <FilterSummary filter={list.filter} />
        </Box>
      )}
    </Box>
  );

  const editBody = list && (
    <Box component="form" noValidate id="list-edit-form" onSubmit={(e) => {
        e.preventDefault();
        void save();
      }} sx={{ display: 'grid', gap: 2.5 }} data-testid="list-panel-edit">
      <TextField
        label={translate('contacts.lists.fields.name')}
        value={name}
        required
        autoFocus
        onChange={(e) => {
          setName(e.target.value);
          setErrors((x) => ({ ...x, name: '' }));
        }}
        error={!!errors.name}
        helperText={errors.name || ' '}
        inputProps={{ maxLength: 255, 'data-testid': 'list-edit-name' }}
      />
      <TextField
        label={translate('contacts.lists.fields.description')}
        value={description}
        multiline
        minRows={3}
        onChange={(e) => setDescription(e.target.value)}
        error={!!errors.description}
        helperText={errors.description || translate('contacts.lists.descriptionHint')}
        inputProps={{ maxLength: 2000, 'data-testid': 'list-edit-description' }}
      />
    </Box>
  );

  const campaigns = list && <ListCampaignsTab listId={list.id} />;

  let actions: ReactNode = null;
  if (list && tab === 'list' && mode === 'view') {
    actions = (
      <>
        <GatedButton
          permission={P.ListExport}
          variant="outlined"
          startIcon={exporter.busy ? <CircularProgress size={16} /> : <FileDownloadOutlinedIcon />}
          disabled={!ready || exporter.busy}
          onClick={() => void exporter.run({ contactList: list.id })}
          data-testid="panel-export"
        >
          {translate('contacts.actions.exportCsv')}
        </GatedButton>
        <GatedButton permission={P.ListEdit} variant="contained" startIcon={<EditOutlinedIcon />} onClick={startEdit} data-testid="panel-edit">
          {translate('contacts.actions.edit')}
        </GatedButton>
      </>
    );
  } else if (list && tab === 'list' && mode === 'edit') {
    actions = (
      <>
        <Button color="inherit" onClick={() => setMode('view')} disabled={saving}>
          {translate('contacts.actions.cancel')}
        </Button>
        <Button
          type="submit"
          form="list-edit-form"
          variant="contained"
          disabled={saving}
          startIcon={saving ? <CircularProgress size={16} color="inherit" /> : undefined}
          data-testid="panel-save"
        >
          {translate('contacts.actions.save')}
        </Button>
      </>
    );
  }

  return (
    <RightSidebar open={!!listId} onClose={onClose} title={list?.name ?? translate('contacts.lists.panelTitle')} actions={actions}>
      {loaded.error != null && !list ? (
        <Alert severity="error">{errorText(loaded.error, translate)}</Alert>
      ) : !list ? (
        <Box>
          <Skeleton height={40} width="50%" />
          <Skeleton variant="rounded" height={90} sx={{ my: 2 }} />
          <Skeleton height={28} />
          <Skeleton height={28} />
          <Skeleton height={28} />
        </Box>
      ) : mode === 'failed' || mode === 'duplicate' ? (
        <RejectedRows listId={list.id} kind={mode} total={mode === 'failed' ? (imp?.failed ?? 0) : (imp?.duplicates ?? 0)} onClose={() => setMode('view')} />
      ) : (
        <>
          <Tabs value={tab} onChange={(_e, v: 'list' | 'campaigns') => setTab(v)} sx={{ mt: -1.5, mb: 2.5, borderBottom: 1, borderColor: 'divider' }}>
            <Tab value="list" label={translate('contacts.lists.panelTabs.list')} data-testid="panel-tab-list" />
            {showCampaigns && <Tab value="campaigns" label={translate('contacts.lists.panelTabs.campaigns')} data-testid="panel-tab-campaigns" />}
          </Tabs>
          {tab === 'campaigns' && showCampaigns ? campaigns : mode === 'edit' ? editBody : viewBody}
        </>
      )}
    </RightSidebar>
  );
};
