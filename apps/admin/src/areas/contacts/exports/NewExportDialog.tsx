import { Autocomplete, Box, Button, FormControlLabel, Radio, RadioGroup, TextField } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import type { Lookups } from '../segments/lookups';
import type { TaskParams } from '../types';
import { AppModal } from '../../../ui/modal/AppModal';

/** Which contacts to export: all of them, or those of one list or segment. */
export const NewExportDialog = ({ open, lookups, onClose, onStart }: { open: boolean; lookups: Lookups | null; onClose: () => void; onStart: (params: TaskParams) => void }) => {
  const translate = useTranslate();
  const [scope, setScope] = useState<'all' | 'list'>('list');
  const [listId, setListId] = useState<number | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    if (open) {
      setScope('list');
      setListId(null);
      setError('');
    }
  }, [open]);
  const lists = [...(lookups?.lists ?? []), ...(lookups?.segments ?? [])].filter((l) => l.status === 2);
  const start = () => {
    if (scope === 'list' && !listId) {
      setError(translate('contacts.errors.client.required'));
      return;
    }
    onStart(scope === 'list' && listId ? { contactList: listId } : {});
    onClose();
  };
  return (
    <AppModal
      open={open}
      onClose={onClose}
      title={translate('contacts.exports.newTitle')}
      testId="new-export-dialog"
      actions={
        <>
          <Button color="inherit" onClick={onClose}>
            {translate('contacts.actions.cancel')}
          </Button>
          <Button variant="contained" onClick={start} data-testid="new-export-start">
            {translate('contacts.exports.start')}
          </Button>
        </>
      }
    >
      <Box sx={{ display: 'grid', gap: 2 }}>
        <RadioGroup value={scope} onChange={(e) => setScope(e.target.value as 'all' | 'list')}>
          <FormControlLabel value="list" control={<Radio />} label={translate('contacts.exports.scopeList')} />
          <FormControlLabel value="all" control={<Radio />} label={translate('contacts.exports.scopeAll')} />
        </RadioGroup>
        {scope === 'list' && (
          <Autocomplete
            options={lists.map((l) => l.id)}
            value={listId}
            onChange={(_e, v) => {
              setListId(v);
              setError('');
            }}
            getOptionLabel={(id) => lists.find((l) => l.id === id)?.name ?? `#${id}`}
            renderInput={(params) => <TextField {...params} label={translate('contacts.exports.list')} error={!!error} helperText={error || ' '} />}
          />
        )}
      </Box>
    </AppModal>
  );
};
