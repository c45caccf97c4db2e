import { Alert, Box, Button, FormControlLabel, MenuItem, Radio, RadioGroup, Table, TableBody, TableCell, TableHead, TableRow, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { isApiError } from '../../providers/http';
import { CopyButton } from '../../ui/CopyButton';
import { AppModal } from '../../ui/modal/AppModal';
import { ConfirmDialog } from '../../ui/modal/ConfirmDialog';
import { FormDialog } from '../../ui/modal/FormDialog';
import { ChipsField, withDraft } from '../streams/widgets/ChipsField';
import { linksApi } from './api';
import { isDomainName, normalizeDomainName, type CampaignAddDomainResult, type Domain, type DomainPoolOption } from './types';
import { DomainStateChip, mono } from './widgets';
import { dnsNoteKey } from './dns-note';

const errText = (e: unknown) => (isApiError(e) ? (e.body?.message ?? e.message) : String(e));

/**
 * The domain names' chips field of both add-domain dialogs (spec 2: the format rule, no slash): a name that breaks
 * the rule is marked and listed under the field; `requiredError` (the form was sent empty) shows when none does.
 * The text typed and not yet a chip (`draft`) counts as names: the dialogs send it with the chips (`withDraft`).
 */
const DomainNamesField = ({ names, onChange, draft, onDraftChange, testId, requiredError = null }: { names: string[]; onChange: (names: string[]) => void; draft: string; onDraftChange: (draft: string) => void; testId: string; requiredError?: string | null }) => {
  const translate = useTranslate();
  const invalid = withDraft(names, draft).filter((n) => !isDomainName(n));
  const error = invalid.length ? translate('links.addDomains.invalid', { names: invalid.join(', ') }) : requiredError;
  return (
    <ChipsField
      label={translate('links.addDomains.field')}
      values={names}
      onChange={onChange}
      draft={draft}
      onDraftChange={onDraftChange}
      placeholder="go.example.com click.example.com"
      invalid={(v) => !isDomainName(v)}
      error={!!error}
      helperText={error ?? translate('links.addDomains.help')}
      testId={testId}
      addLabel={translate('links.addDomains.add')}
      mono
    />
  );
};

/**
 * Spec 2: the add domain modal (chips: required, format rule, no slash), the duplicateDomainsFound confirm popup
 * listing the names the account already has, then the DNS instructions for the domains added.
 */
export const AddDomainsDialog = ({ open, onClose, onAdded }: { open: boolean; onClose: () => void; onAdded: (added: Domain[]) => void }) => {
  const translate = useTranslate();
  const [names, setNames] = useState<string[]>([]);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [duplicates, setDuplicates] = useState<string[] | null>(null);
  useEffect(() => {
    if (open) {
      setNames([]);
      setDraft('');
      setError(null);
      setDuplicates(null);
    }
  }, [open]);
  // a name typed without Enter counts: "Add domains" turns it into a chip and sends it in the same click
  const all = withDraft(names, draft);
  const invalid = all.filter((n) => !isDomainName(n));

  const send = async (skipDuplicates: boolean) => {
    setNames(all);
    setDraft('');
    if (all.length === 0 || invalid.length > 0) return;
    setBusy(true);
    setError(null);
    try {
      const r = await linksApi.addDomains(all.map(normalizeDomainName), skipDuplicates);
      if (r.duplicates.length && !skipDuplicates) {
        setDuplicates(r.duplicates);
        return;
      }
      setDuplicates(null);
      onAdded(r.data);
    } catch (e) {
      setError(errText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <FormDialog
        open={open && !duplicates}
        onClose={onClose}
        title={translate('links.addDomains.title')}
        size="m"
        testId="add-domains-dialog"
        busy={busy}
        error={error}
        submitLabel={translate('links.addDomains.submit')}
        submitTestId="add-domains-submit"
        submitDisabled={all.length === 0 || invalid.length > 0}
        onSubmit={() => void send(false)}
        intro={<Typography color="text.secondary" sx={{ mb: 2 }}>{translate('links.addDomains.intro')}</Typography>}
      >
        <DomainNamesField names={names} onChange={setNames} draft={draft} onDraftChange={setDraft} testId="add-domains-input" />
      </FormDialog>
      <ConfirmDialog
        open={!!duplicates}
        testId="duplicate-domains"
        title={translate('links.addDomains.duplicatesTitle')}
        text={
          <Box>
            <Typography sx={{ mb: 1 }}>{translate('links.addDomains.duplicatesText')}</Typography>
            <Box component="ul" sx={{ m: 0, pl: 2.5, ...mono }} data-testid="duplicate-domains-list">
              {(duplicates ?? []).map((d) => <li key={d}>{d}</li>)}
            </Box>
          </Box>
        }
        confirmLabel={translate('links.addDomains.addOthers')}
        busy={busy}
        onConfirm={() => void send(true)}
        onClose={() => setDuplicates(null)}
      />
    </>
  );
};

/** Spec 2: the DNS instructions shown after adding domains (and from a domain's row): the CNAME or A, and the TXT. */
export const DnsInstructionsModal = ({ domains, onClose }: { domains: Domain[] | null; onClose: () => void }) => {
  const translate = useTranslate();
  return (
    <AppModal
      open={!!domains}
      onClose={onClose}
      size="l"
      title={translate('links.dns.title')}
      subtitle={translate('links.dns.subtitle')}
      testId="dns-instructions"
      actions={<Button onClick={onClose} data-testid="dns-instructions-close">{translate('ui.actions.close')}</Button>}
    >
      {domains?.length === 0 ? <Alert severity="info">{translate('links.dns.none')}</Alert> : null}
      {(domains ?? []).map((d) => (
        <Box key={d.id} sx={{ mb: 2.5 }} data-testid="dns-domain">
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mb: 1 }}>
            <Typography sx={{ fontWeight: 700, ...mono }}>{d.name}</Typography>
            <DomainStateChip state={d.state} />
          </Box>
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell>{translate('links.dns.type')}</TableCell>
                <TableCell>{translate('links.dns.host')}</TableCell>
                <TableCell>{translate('links.dns.value')}</TableCell>
                <TableCell>{translate('links.dns.purpose')}</TableCell>
                <TableCell />
              </TableRow>
            </TableHead>
            <TableBody>
              {d.dns.map((r) => (
                <TableRow key={`${r.type}-${r.host}-${r.value}`} data-testid={`dns-record-${r.type}`}>
                  <TableCell sx={{ fontWeight: 700 }}>{r.type}</TableCell>
                  <TableCell sx={mono}>{r.host}</TableCell>
                  <TableCell sx={{ ...mono, wordBreak: 'break-all' }}>{r.value}</TableCell>
                  <TableCell>{translate(`links.dns.purposes.${r.purpose}`)}</TableCell>
                  <TableCell align="right"><CopyButton value={r.value} variant="text" testId="dns-copy" /></TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Box>
      ))}
      <Typography variant="body2" color="text.secondary" data-testid="dns-note">{translate(dnsNoteKey(domains ?? []))}</Typography>
    </AppModal>
  );
};

const parseLimit = (s: string): number | null | 'bad' => (s.trim() === '' ? null : /^\d{1,15}$/.test(s.trim()) ? Number(s.trim()) : 'bad');

/** Spec 2: the global limit modal: every domain's messages_limit, and new domains'. */
export const GlobalLimitDialog = ({ open, onClose, onSaved }: { open: boolean; onClose: () => void; onSaved: () => void }) => {
  const translate = useTranslate();
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!open) return;
    setError(null);
    void linksApi.getLimit().then((r) => setValue(r.limit === null ? '' : String(r.limit)), () => setValue(''));
  }, [open]);
  const parsed = parseLimit(value);
  return (
    <FormDialog
      open={open}
      onClose={onClose}
      title={translate('links.limit.title')}
      testId="global-limit-dialog"
      busy={busy}
      error={error}
      submitLabel={translate('links.actions.save')}
      submitTestId="global-limit-save"
      submitDisabled={parsed === 'bad'}
      onSubmit={() => {
        if (parsed === 'bad') return;
        setBusy(true);
        void linksApi.setLimit(parsed).then(
          () => {
            setBusy(false);
            onSaved();
          },
          (e: unknown) => {
            setBusy(false);
            setError(errText(e));
          },
        );
      }}
      intro={<Typography color="text.secondary" sx={{ mb: 2 }}>{translate('links.limit.intro')}</Typography>}
    >
      <TextField
        fullWidth
        label={translate('links.fields.messagesLimit')}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        error={parsed === 'bad'}
        helperText={parsed === 'bad' ? translate('errors.client.onlyPositive', { _: 'A whole number from 0' }) : translate('links.limit.help')}
        slotProps={{ htmlInput: { 'data-testid': 'global-limit-input', inputMode: 'numeric' } }}
      />
    </FormDialog>
  );
};

export type BulkAction = 'archive' | 'restore' | 'delete' | 'check' | 'set_limit';

/** Spec 2: the bulk domain action modal, for the domains chosen in the table. */
export const BulkActionDialog = ({ ids, archiveView, onClose, onDone }: { ids: number[] | null; archiveView: boolean; onClose: () => void; onDone: (affected: number) => void }) => {
  const translate = useTranslate();
  const [action, setAction] = useState<BulkAction>(archiveView ? 'restore' : 'check');
  const [limit, setLimit] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (ids) {
      setAction(archiveView ? 'restore' : 'check');
      setError(null);
      setLimit('');
    }
  }, [ids, archiveView]);
  const actions: BulkAction[] = archiveView ? ['restore', 'delete'] : ['check', 'archive', 'set_limit', 'delete'];
  const parsed = parseLimit(limit);
  return (
    <FormDialog
      open={!!ids}
      onClose={onClose}
      title={translate('links.bulk.title', { count: ids?.length ?? 0 })}
      testId="bulk-action-dialog"
      busy={busy}
      error={error}
      submitLabel={translate('links.bulk.apply')}
      submitTestId="bulk-action-apply"
      submitDisabled={action === 'set_limit' && parsed === 'bad'}
      onSubmit={() => {
        if (!ids) return;
        setBusy(true);
        void linksApi.bulkAction(action, ids, parsed === 'bad' ? null : parsed).then(
          (r) => {
            setBusy(false);
            onDone(r.affected);
          },
          (e: unknown) => {
            setBusy(false);
            setError(errText(e));
          },
        );
      }}
    >
      <TextField select fullWidth label={translate('links.bulk.action')} value={action} onChange={(e) => setAction(e.target.value as BulkAction)} slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'bulk-action-select' } as object } }} sx={{ mb: 2 }}>
        {actions.map((a) => (
          <MenuItem key={a} value={a} data-testid={`bulk-action-${a}`}>{translate(`links.bulk.actions.${a}`)}</MenuItem>
        ))}
      </TextField>
      {action === 'set_limit' && (
        <TextField fullWidth label={translate('links.fields.messagesLimit')} value={limit} onChange={(e) => setLimit(e.target.value)} error={parsed === 'bad'} helperText={translate('links.limit.help')} />
      )}
    </FormDialog>
  );
};

/** Spec 2/5: add domain to pool: an existing pool (disabled when there is none) or a new pool with name and description. */
export const AddToPoolDialog = ({ ids, onClose, onDone }: { ids: number[] | null; onClose: () => void; onDone: () => void }) => {
  const translate = useTranslate();
  const [pools, setPools] = useState<DomainPoolOption[]>([]);
  const [mode, setMode] = useState<'existing' | 'new'>('existing');
  const [pool, setPool] = useState<number | ''>('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [touched, setTouched] = useState(false);
  useEffect(() => {
    if (!ids) return;
    setError(null);
    setTouched(false);
    setPool('');
    setName('');
    setDescription('');
    void linksApi.poolsDropdown().then(
      (r) => {
        setPools(r.items);
        setMode(r.items.length ? 'existing' : 'new');
      },
      () => setMode('new'),
    );
  }, [ids]);
  const missing = mode === 'existing' ? pool === '' : !name.trim() || !description.trim();
  return (
    <FormDialog
      open={!!ids}
      onClose={onClose}
      title={translate('links.addToPool.title', { count: ids?.length ?? 0 })}
      testId="add-to-pool-dialog"
      busy={busy}
      error={error}
      submitLabel={translate('links.addToPool.submit')}
      submitTestId="add-to-pool-submit"
      onSubmit={() => {
        setTouched(true);
        if (!ids || missing) return;
        setBusy(true);
        const done = mode === 'existing' ? linksApi.addToPool(pool as number, ids) : linksApi.createPool({ name: name.trim(), description: description.trim(), domains: ids });
        void done.then(
          () => {
            setBusy(false);
            onDone();
          },
          (e: unknown) => {
            setBusy(false);
            setError(errText(e));
          },
        );
      }}
    >
      <RadioGroup row value={mode} onChange={(e) => setMode(e.target.value as 'existing' | 'new')} sx={{ mb: 1.5 }}>
        <FormControlLabel value="existing" control={<Radio />} label={translate('links.addToPool.existing')} disabled={!pools.length} data-testid="pool-mode-existing" />
        <FormControlLabel value="new" control={<Radio />} label={translate('links.addToPool.new')} data-testid="pool-mode-new" />
      </RadioGroup>
      {mode === 'existing' ? (
        <TextField select fullWidth label={translate('links.addToPool.pool')} value={pool} onChange={(e) => setPool(Number(e.target.value))} error={touched && pool === ''} helperText={touched && pool === '' ? translate('errors.client.required', { _: 'Required' }) : ' '}>
          {pools.map((p) => (
            <MenuItem key={p.id} value={p.id}>{`${p.name} (${p.totalDomains})`}</MenuItem>
          ))}
        </TextField>
      ) : (
        <Box sx={{ display: 'grid', gap: 2 }}>
          <TextField label={translate('links.fields.poolName')} value={name} onChange={(e) => setName(e.target.value)} error={touched && !name.trim()} slotProps={{ htmlInput: { 'data-testid': 'new-pool-name' } }} />
          <TextField label={translate('links.fields.description')} value={description} onChange={(e) => setDescription(e.target.value)} error={touched && !description.trim()} slotProps={{ htmlInput: { 'data-testid': 'new-pool-description' } }} />
        </Box>
      )}
    </FormDialog>
  );
};

/**
 * Spec 2 and 7: the campaign wizard's add domain (`POST /campaigns/add/domain`). The chips field (required, format
 * rule, no duplicate of existing names: the duplicateDomainsFound popup lists them), then the pool the new domains
 * go to: an existing pool (disabled when there is none) or a new pool with its name and description (both required).
 * Nothing is added when the pool part is wrong. `onAdded` gets the answer; the wizard then uses the pool and shows
 * the DNS instructions.
 */
export const CampaignAddDomainDialog = ({
  open,
  pools,
  onClose,
  onAdded,
}: {
  open: boolean;
  pools: DomainPoolOption[];
  onClose: () => void;
  onAdded: (r: CampaignAddDomainResult) => void;
}) => {
  const translate = useTranslate();
  const [names, setNames] = useState<string[]>([]);
  const [draft, setDraft] = useState('');
  const [mode, setMode] = useState<'existing' | 'new'>('new');
  const [pool, setPool] = useState<number | ''>('');
  const [poolName, setPoolName] = useState('');
  const [poolDescription, setPoolDescription] = useState('');
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [duplicates, setDuplicates] = useState<string[] | null>(null);
  useEffect(() => {
    if (!open) return;
    setNames([]);
    setDraft('');
    setMode(pools.length ? 'existing' : 'new');
    setPool('');
    setPoolName('');
    setPoolDescription('');
    setTried(false);
    setError(null);
    setDuplicates(null);
    // the form starts afresh each time it opens
  }, [open]);
  // a name typed without Enter counts, as in the add domains dialog
  const all = withDraft(names, draft);
  const invalid = all.filter((n) => !isDomainName(n));
  const required = translate('errors.client.required');
  const errors = {
    names: all.length === 0 ? required : invalid.length ? translate('links.addDomains.invalid', { names: invalid.join(', ') }) : null,
    pool: mode === 'existing' && pool === '' ? required : null,
    poolName: mode === 'new' && !poolName.trim() ? required : null,
    poolDescription: mode === 'new' && !poolDescription.trim() ? required : null,
  };
  const shown = (k: keyof typeof errors) => (tried ? errors[k] : null);

  const send = async (skipDuplicates: boolean) => {
    setTried(true);
    setNames(all);
    setDraft('');
    if (Object.values(errors).some(Boolean)) return;
    setBusy(true);
    setError(null);
    try {
      const r = await linksApi.campaignAddDomain({
        domains: all.map(normalizeDomainName),
        skipDuplicates,
        ...(mode === 'existing' ? { pool: pool as number } : { newPool: { name: poolName.trim(), description: poolDescription.trim() } }),
      });
      if (r.duplicates.length && !skipDuplicates) {
        setDuplicates(r.duplicates);
        return;
      }
      setDuplicates(null);
      onAdded(r);
    } catch (e) {
      setError(errText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <FormDialog
        open={open && !duplicates}
        onClose={onClose}
        title={translate('links.wizardDomain.title')}
        size="m"
        testId="campaign-add-domain-dialog"
        busy={busy}
        error={error}
        submitLabel={translate('links.addDomains.submit')}
        submitTestId="campaign-add-domain-submit"
        onSubmit={() => void send(false)}
        intro={<Typography color="text.secondary" sx={{ mb: 2 }}>{translate('links.wizardDomain.intro')}</Typography>}
      >
        <DomainNamesField names={names} onChange={setNames} draft={draft} onDraftChange={setDraft} testId="campaign-add-domain-input" requiredError={tried && all.length === 0 ? required : null} />
        <Typography variant="subtitle2" sx={{ mt: 2 }}>{translate('links.wizardDomain.pool')}</Typography>
        <RadioGroup row value={mode} onChange={(e) => setMode(e.target.value === 'existing' ? 'existing' : 'new')}>
          <FormControlLabel value="existing" control={<Radio />} label={translate('links.wizardDomain.existing')} disabled={pools.length === 0} data-testid="campaign-add-domain-existing" />
          <FormControlLabel value="new" control={<Radio />} label={translate('links.wizardDomain.new')} data-testid="campaign-add-domain-new" />
        </RadioGroup>
        {mode === 'existing' ? (
          <TextField
            select
            fullWidth
            size="small"
            sx={{ mt: 1 }}
            label={translate('links.wizardDomain.existingPool')}
            value={pool === '' ? '' : String(pool)}
            onChange={(e) => setPool(e.target.value === '' ? '' : Number(e.target.value))}
            error={!!shown('pool')}
            helperText={shown('pool') ?? ' '}
            slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'campaign-add-domain-pool' } as object } }}
          >
            {pools.map((p) => (
              <MenuItem key={p.id} value={String(p.id)}>
                {p.name}
              </MenuItem>
            ))}
          </TextField>
        ) : (
          <Box sx={{ display: 'grid', gap: 1.5, mt: 1 }}>
            <TextField size="small" label={translate('links.wizardDomain.poolName')} value={poolName} onChange={(e) => setPoolName(e.target.value)} error={!!shown('poolName')} helperText={shown('poolName') ?? ' '} slotProps={{ htmlInput: { maxLength: 255, 'data-testid': 'campaign-add-domain-pool-name' } }} />
            <TextField size="small" label={translate('links.wizardDomain.poolDescription')} value={poolDescription} onChange={(e) => setPoolDescription(e.target.value)} error={!!shown('poolDescription')} helperText={shown('poolDescription') ?? ' '} slotProps={{ htmlInput: { maxLength: 1000, 'data-testid': 'campaign-add-domain-pool-description' } }} />
          </Box>
        )}
      </FormDialog>
      <ConfirmDialog
        open={!!duplicates}
        testId="duplicate-domains"
        title={translate('links.addDomains.duplicatesTitle')}
        text={
          <Box>
            <Typography sx={{ mb: 1 }}>{translate('links.addDomains.duplicatesText')}</Typography>
            <Box component="ul" sx={{ m: 0, pl: 2.5, ...mono }} data-testid="duplicate-domains-list">
              {(duplicates ?? []).map((d) => <li key={d}>{d}</li>)}
            </Box>
          </Box>
        }
        confirmLabel={translate('links.addDomains.addOthers')}
        busy={busy}
        onConfirm={() => void send(true)}
        onClose={() => setDuplicates(null)}
      />
    </>
  );
};
