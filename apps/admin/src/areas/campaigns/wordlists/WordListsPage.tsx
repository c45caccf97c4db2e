import AddRoundedIcon from '@mui/icons-material/AddRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import ShuffleRoundedIcon from '@mui/icons-material/ShuffleRounded';
import { Alert, Box, Chip, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { GatedButton, GatedIconButton } from '../../../ui/Gated';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { FormDialog } from '../../../ui/modal/FormDialog';
import { PageHeading } from '../../../ui/PageHeading';
import { useCan } from '../../../ui/permissions';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { useClientTable } from '../../../ui/table/useTable';
import { useApi } from '../../../ui/useApi';
import { campaignsApi, P } from '../api';
import type { WordList } from '../types';
import { clientError, errorText, fieldErrors } from '../widgets/errors';

/** Spec 5 chips: trimmed, non-empty, no duplicates; added on Enter, comma, blur or paste of several lines. */
export function addWords(current: string[], input: string): string[] {
  const out = [...current];
  for (const w of input.split(/[\n,]+/).map((x) => x.trim())) if (w && !out.includes(w)) out.push(w);
  return out;
}

const WordListDialog = ({ open, list, onClose, onSubmit }: { open: boolean; list: WordList | null; onClose: () => void; onSubmit: (body: { name: string; words: string[] }) => Promise<void> }) => {
  const translate = useTranslate();
  const [name, setName] = useState('');
  const [words, setWords] = useState<string[]>([]);
  const [input, setInput] = useState('');
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  useEffect(() => {
    if (!open) return;
    setName(list?.name ?? '');
    setWords(list?.words.map((w) => w.value) ?? []);
    setInput('');
    setTried(false);
    setError(null);
    setFields({});
  }, [open, list]);
  const all = addWords(words, input);
  const submit = async () => {
    setTried(true);
    setWords(all);
    setInput('');
    if (!name.trim() || all.length === 0) return;
    setBusy(true);
    try {
      await onSubmit({ name: name.trim(), words: all });
    } catch (e) {
      setFields(fieldErrors(e, translate));
      setError(errorText(e, translate));
    } finally {
      setBusy(false);
    }
  };
  return (
    <FormDialog
      open={open}
      onClose={onClose}
      size="m"
      title={translate(list ? 'campaigns.wordLists.editTitle' : 'campaigns.wordLists.createTitle')}
      submitLabel={translate(list ? 'campaigns.ui.save' : 'campaigns.wordLists.create')}
      onSubmit={() => void submit()}
      busy={busy}
      error={error}
      testId="word-list-dialog"
      submitTestId="word-list-submit"
    >
      <Box sx={{ display: 'grid', gap: 2 }}>
        <TextField label={translate('campaigns.wordLists.name')} required autoFocus value={name} onChange={(e) => setName(e.target.value)} error={tried && (!name.trim() || !!fields.name)} helperText={(tried && !name.trim() ? clientError('errors.client.required', translate) : fields.name) || translate('campaigns.wordLists.nameHint')} slotProps={{ htmlInput: { maxLength: 100, 'data-testid': 'word-list-name' } }} />
        <TextField
          label={translate('campaigns.wordLists.words')}
          value={input}
          onChange={(e) => {
            const text = e.target.value;
            if (/[\n,]/.test(text)) {
              setWords((w) => addWords(w, text));
              setInput('');
            } else setInput(text);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              setWords((w) => addWords(w, input));
              setInput('');
            }
          }}
          onBlur={() => {
            setWords((w) => addWords(w, input));
            setInput('');
          }}
          error={tried && all.length === 0}
          helperText={tried && all.length === 0 ? clientError('errors.client.required', translate) : translate('campaigns.wordLists.wordsHint')}
          slotProps={{ htmlInput: { 'data-testid': 'word-input', 'data-enter-picks': true } }}
        />
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.75, maxHeight: 240, overflowY: 'auto' }} data-testid="word-chips">
          {words.map((w) => (
            <Chip key={w} label={w} size="small" onDelete={() => setWords((ws) => ws.filter((x) => x !== w))} data-testid="word-chip" />
          ))}
        </Box>
      </Box>
    </FormDialog>
  );
};

/** /word-lists: word lists for spintax (a list's words are alternatives a message can pick from). */
export const WordListsPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const can = useCan();
  const allowed = can(P.TemplateView);
  const list = useApi(() => campaignsApi.wordLists(), [], allowed);
  const [dialog, setDialog] = useState<{ list: WordList | null } | null>(null);
  const [removing, setRemoving] = useState<WordList | null>(null);
  const columns: Column<WordList>[] = [
    { key: 'name', label: translate('campaigns.wordLists.name'), sortable: true, sortValue: (w) => w.name.toLowerCase(), render: (w) => <Typography sx={{ fontWeight: 600 }} data-testid="word-list-row-name">{w.name}</Typography> },
    {
      key: 'words',
      label: translate('campaigns.wordLists.words'),
      hideOnPhone: true,
      render: (w) => (
        <Typography variant="body2" color="text.secondary" sx={{ maxWidth: 520, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
          {w.words.map((x) => x.value).join(', ')}
        </Typography>
      ),
    },
    { key: 'count', label: translate('campaigns.wordLists.count'), align: 'right', render: (w) => <span data-testid="word-list-count">{w.words.length}</span> },
    {
      key: 'actions',
      label: '',
      align: 'right',
      render: (w) => (
        <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
          <GatedIconButton permission={P.TemplateAddEdit} title={translate('campaigns.actions.edit')} onClick={() => setDialog({ list: w })} data-testid="word-list-edit">
            <EditRoundedIcon fontSize="small" />
          </GatedIconButton>
          <GatedIconButton permission={P.TemplateRemove} title={translate('campaigns.actions.delete')} onClick={() => setRemoving(w)} data-testid="word-list-delete">
            <DeleteOutlineRoundedIcon fontSize="small" />
          </GatedIconButton>
        </Box>
      ),
    },
  ];
  const table = useClientTable(list.data?.items ?? [], columns, 'word_lists', { field: 'name', order: 'asc' });
  const submit = async (body: { name: string; words: string[] }) => {
    const editing = dialog?.list;
    if (editing) await campaignsApi.updateWordList(editing.id, body);
    else await campaignsApi.createWordList(body);
    notify('campaigns.wordLists.saved', { type: 'success' });
    setDialog(null);
    await list.refresh();
  };
  if (!allowed) {
    return (
      <Box>
        <PageHeading title={translate('campaigns.wordLists.title')} icon={<ShuffleRoundedIcon />} />
        <Alert severity="warning">{translate('ui.permission.missing', { permission: P.TemplateView })}</Alert>
      </Box>
    );
  }
  return (
    <Box sx={{ maxWidth: 1280 }} data-testid="word-lists-page">
      <PageHeading
        title={translate('campaigns.wordLists.title')}
        subtitle={translate('campaigns.wordLists.subtitle')}
        icon={<ShuffleRoundedIcon />}
        actions={
          <GatedButton permission={P.TemplateAddEdit} variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setDialog({ list: null })} data-testid="new-word-list">
            {translate('campaigns.wordLists.create')}
          </GatedButton>
        }
      />
      {list.error != null && <Alert severity="error" sx={{ mb: 2 }}>{errorText(list.error, translate)}</Alert>}
      <DataTable
        testId="word-lists-table"
        rowTestId="word-list-row"
        columns={columns}
        rows={table.pageRows}
        rowKey={(w) => w.id}
        loading={list.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        empty={<NoResults title={translate('campaigns.wordLists.empty')} text={can(P.TemplateAddEdit) ? translate('campaigns.wordLists.emptyText') : translate('campaigns.noData.missingAddPermission')} icon={<ShuffleRoundedIcon />} />}
      />
      <WordListDialog open={!!dialog} list={dialog?.list ?? null} onClose={() => setDialog(null)} onSubmit={submit} />
      <ConfirmDialog
        open={!!removing}
        danger
        title={translate('campaigns.wordLists.deleteTitle')}
        text={translate('campaigns.wordLists.deleteText', { name: removing?.name ?? '' })}
        confirmLabel={translate('campaigns.actions.delete')}
        onClose={() => setRemoving(null)}
        onConfirm={() => {
          const w = removing;
          setRemoving(null);
          if (w) void campaignsApi.removeWordList(w.id).then(() => list.refresh(), (e: unknown) => notify(errorText(e, translate), { type: 'error' }));
        }}
      />
    </Box>
  );
};
