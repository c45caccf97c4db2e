import AddRoundedIcon from '@mui/icons-material/AddRounded';
import GppBadRoundedIcon from '@mui/icons-material/GppBadRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import SearchRoundedIcon from '@mui/icons-material/SearchRounded';
import { Alert, Box, Button, CircularProgress, FormControlLabel, IconButton, InputAdornment, Radio, RadioGroup, TextField, Tooltip, Typography } from '@mui/material';
import { useEffect, useState, type FormEvent } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { mono } from '../streams/labels';
import { AppModal } from '../../ui/modal/AppModal';
import { ConfirmDialog } from '../../ui/modal/ConfirmDialog';
import { DataTable, NoResults, type Column } from '../../ui/table/DataTable';
import { errorText, fieldErrors } from '../streams/widgets/errors';
import { PageHeading } from '../../ui/PageHeading';
import { pageRoot } from '../streams/widgets/page';
import { useIsSuperAdmin } from '../../ui/permissions';
import { StatusChip } from '../../ui/StatusChip';
import { useServerTable } from '../../ui/table/useTable';
import { keywordsApi, type MaliciousKeyword } from './api';

const WORD_LIMIT = 100;

const KeywordDialog = ({ open, keyword, onClose, onSaved }: { open: boolean; keyword: MaliciousKeyword | null; onClose: () => void; onSaved: () => void }) => {
  const translate = useTranslate();
  const [word, setWord] = useState('');
  const [type, setType] = useState(1);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!open) return;
    setWord(keyword?.word ?? '');
    setType(keyword?.type ?? 1);
    setError(null);
  }, [open, keyword]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!word.trim()) return setError(translate('streams.errors.client.required'));
    if (word.trim().length > WORD_LIMIT) return setError(translate('streams.errors.client.charLimit', { limit: WORD_LIMIT + 1 }));
    setBusy(true);
    setError(null);
    try {
      if (keyword) await keywordsApi.update(keyword.id, { word: word.trim(), type });
      else await keywordsApi.create({ word: word.trim(), type });
      onSaved();
    } catch (err) {
      setError(fieldErrors(err, translate).word ?? errorText(err, translate));
    } finally {
      setBusy(false);
    }
  };
  return (
    <AppModal
      open={open}
      onClose={onClose}
      icon={<GppBadRoundedIcon fontSize="small" />}
      title={translate(keyword ? 'routing.keywords.edit' : 'routing.keywords.add')}
      testId="keyword-dialog"
      dismissible={!busy}
      actions={
        <>
          <Button color="inherit" onClick={onClose} disabled={busy}>{translate('streams.ui.cancel')}</Button>
          <Button type="submit" form="keyword-form" variant="contained" disabled={busy} data-testid="keyword-submit" startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}>
            {translate('streams.ui.save')}
          </Button>
        </>
      }
    >
      <Box component="form" id="keyword-form" noValidate onSubmit={submit}>
        <TextField label={translate('routing.keywords.word')} value={word} autoFocus required onChange={(e) => setWord(e.target.value)} error={!!error} helperText={error ?? translate('routing.keywords.wordHint')} slotProps={{ htmlInput: { 'data-testid': 'keyword-word' } }} />
        <Typography sx={{ fontWeight: 600, fontSize: 14, mt: 2, mb: 0.5 }}>{translate('routing.keywords.match')}</Typography>
        <RadioGroup value={type} onChange={(e) => setType(Number(e.target.value))}>
          <FormControlLabel value={1} control={<Radio size="small" />} label={<Typography variant="body2">{translate('routing.keywords.types.1')}</Typography>} />
          <FormControlLabel value={2} control={<Radio size="small" />} label={<Typography variant="body2">{translate('routing.keywords.types.2')}</Typography>} />
        </RadioGroup>
      </Box>
    </AppModal>
  );
};

/** /superadmin/keywords: the global malicious keyword list; a message holding one is refused (spec 6, 7). */
export const KeywordsPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const superAdmin = useIsSuperAdmin();
  const [search, setSearch] = useState('');
  const [dialog, setDialog] = useState<{ keyword: MaliciousKeyword | null } | null>(null);
  const [removing, setRemoving] = useState<MaliciousKeyword | null>(null);
  const [busy, setBusy] = useState(false);
  const table = useServerTable<MaliciousKeyword>('keywords', (q) => keywordsApi.list({ page: q.page, perPage: q.perPage, sort: q.sort, search: q.filter.search as string | undefined }), { field: 'word', order: 'asc' }, {}, superAdmin);
  const { setFilter } = table;
  useEffect(() => {
    const t = window.setTimeout(() => setFilter({ search: search.trim() || undefined }), 300);
    return () => window.clearTimeout(t);
  }, [search, setFilter]);

  const columns: Column<MaliciousKeyword>[] = [
    { key: 'word', label: translate('routing.keywords.word'), sortable: true, render: (k) => <Box component="span" sx={{ ...mono, fontWeight: 600, fontSize: 14 }} data-testid="keyword-row-word">{k.word}</Box> },
    { key: 'type', label: translate('routing.keywords.match'), sortable: true, render: (k) => <StatusChip tone={k.type === 2 ? 'warning' : 'neutral'}>{translate(`routing.keywords.types.${k.type}`, { _: String(k.type) })}</StatusChip> },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 96,
      render: (k) => (
        <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
          <Tooltip title={translate('routing.keywords.edit')}>
            <IconButton size="small" onClick={() => setDialog({ keyword: k })} aria-label={translate('routing.keywords.edit')}><EditRoundedIcon fontSize="small" /></IconButton>
          </Tooltip>
          <Tooltip title={translate('routing.keywords.delete')}>
            <IconButton size="small" onClick={() => setRemoving(k)} aria-label={translate('routing.keywords.delete')}><DeleteOutlineRoundedIcon fontSize="small" /></IconButton>
          </Tooltip>
        </Box>
      ),
    },
  ];

  const remove = async () => {
    if (!removing) return;
    setBusy(true);
    try {
      await keywordsApi.remove(removing.id);
      await table.refresh();
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    } finally {
      setBusy(false);
      setRemoving(null);
    }
  };

  if (!superAdmin) return <Alert severity="warning">{translate('routing.superAdminOnly')}</Alert>;
  return (
    <Box sx={pageRoot(1040)} data-testid="keywords-page">
      <PageHeading
        title={translate('routing.keywords.title')}
        subtitle={translate('routing.keywords.subtitle')}
        icon={<GppBadRoundedIcon />}
        actions={<Button variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setDialog({ keyword: null })} data-testid="keyword-add">{translate('routing.keywords.add')}</Button>}
      />
      {table.error ? <Alert severity="error" sx={{ mb: 2 }}>{errorText(table.error, translate)}</Alert> : null}
      <DataTable
        testId="keywords-table"
        rowTestId="keyword-row"
        columns={columns}
        rows={table.rows}
        rowKey={(k) => k.id}
        loading={table.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        toolbar={
          <Box sx={{ px: 2, py: 1, borderBottom: 1, borderColor: 'divider' }}>
            <TextField size="small" value={search} onChange={(e) => setSearch(e.target.value)} placeholder={translate('routing.keywords.search')} sx={{ width: 280 }} slotProps={{ input: { startAdornment: <InputAdornment position="start"><SearchRoundedIcon fontSize="small" /></InputAdornment> } }} />
          </Box>
        }
        empty={<NoResults icon={<GppBadRoundedIcon />} title={translate(search ? 'routing.keywords.noMatch' : 'routing.keywords.empty')} text={search ? undefined : translate('routing.keywords.emptyText')} />}
      />
      <KeywordDialog
        open={!!dialog}
        keyword={dialog?.keyword ?? null}
        onClose={() => setDialog(null)}
        onSaved={() => {
          setDialog(null);
          notify('routing.keywords.saved', { type: 'success' });
          void table.refresh();
        }}
      />
      <ConfirmDialog
        open={!!removing}
        busy={busy}
        danger
        title={translate('routing.keywords.confirmDelete')}
        text={removing ? translate('routing.keywords.confirmDeleteText', { word: removing.word }) : ''}
        confirmLabel={translate('routing.keywords.delete')}
        onConfirm={() => void remove()}
        onClose={() => setRemoving(null)}
      />
    </Box>
  );
};
