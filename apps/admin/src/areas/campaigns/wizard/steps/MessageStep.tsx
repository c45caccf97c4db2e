import AddRoundedIcon from '@mui/icons-material/AddRounded';
import AutoAwesomeRoundedIcon from '@mui/icons-material/AutoAwesomeRounded';
import BalanceRoundedIcon from '@mui/icons-material/BalanceRounded';
import DataObjectRoundedIcon from '@mui/icons-material/DataObjectRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import { Alert, Box, Button, IconButton, Menu, MenuItem, Paper, TextField, Tooltip, Typography } from '@mui/material';
import type { TextFieldProps } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { useTranslate } from 'react-admin';
import { AiSpintaxButton } from '../../../genai/AiAssist';
import { campaignsApi } from '../../api';
import { parseRatio, variablesIn, type WordLists } from '../../rules';
import { VariantCounter } from '../../widgets/VariantCounter';
import { rebalance, rowKey, usedLinks, usedVariables, VARIANT_COLOURS, withVariableRows, type LinkRow, type VariableRow, type VariantRow } from '../model';
import { LinksPanel } from './LinksPanel';
import type { StepProps } from './types';

const PREVIEW_SAMPLES = 3;

/** The variables a message may name: the contact fields plus the special phone, short URL and opt-out ones (spec 3). */
const SPECIAL = ['phone', 'shorturl', 'optout'];

/**
 * Samples of a variant's spintax as the service draws them (POST /campaigns/spintax_preview, asked 300 ms after typing
 * stops): the account's word lists and the service's own parser, so the preview is what recipients get.
 */
const SpintaxPreview = ({ text }: { text: string }) => {
  const translate = useTranslate();
  const [answer, setAnswer] = useState<{ text: string; samples: string[] | null } | null>(null);
  useEffect(() => {
    if (!text.trim()) return undefined;
    let live = true;
    const t = window.setTimeout(() => {
      campaignsApi.spintaxPreview(text, PREVIEW_SAMPLES).then(
        (r) => live && setAnswer({ text, samples: [...new Set(r.samples)] }),
        () => live && setAnswer({ text, samples: null }),
      );
    }, 300);
    return () => {
      live = false;
      window.clearTimeout(t);
    };
  }, [text]);
  const current = answer && answer.text === text ? answer : null;
  return (
    <Box sx={{ mt: 1, display: 'grid', gap: 0.75 }} data-testid="spintax-preview" aria-busy={!!text.trim() && !current}>
      {!text.trim() ? (
        <Typography variant="body2" color="text.secondary">{translate('campaigns.message.noPreview')}</Typography>
      ) : current && current.samples === null ? (
        <Typography variant="body2" color="error" data-testid="spintax-preview-error">{translate('campaigns.message.previewInvalid')}</Typography>
      ) : (
        current?.samples?.map((s) => (
          <Box key={s} sx={{ p: 1.25, borderRadius: '8px', bgcolor: '#f6f7f9', fontSize: 14, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} data-testid="spintax-sample">
            {s}
          </Box>
        ))
      )}
    </Box>
  );
};

const VariantCard = ({
  row,
  index,
  count,
  onChange,
  onRemove,
  errors,
  variables,
  maxLengths,
  words,
  ratiosOnly,
}: {
  row: VariantRow;
  index: number;
  count: number;
  onChange: (patch: Partial<VariantRow>) => void;
  onRemove: () => void;
  errors: Record<string, string>;
  variables: Array<{ token: string; label: string }>;
  maxLengths: Record<string, number>;
  words: WordLists;
  ratiosOnly?: boolean;
}) => {
  const translate = useTranslate();
  const input = useRef<HTMLTextAreaElement | null>(null);
  const [menu, setMenu] = useState<HTMLElement | null>(null);
  const [preview, setPreview] = useState(false);
  const insert = (token: string) => {
    const el = input.current;
    const at = el?.selectionStart ?? row.text.length;
    const end = el?.selectionEnd ?? at;
    onChange({ text: row.text.slice(0, at) + token + row.text.slice(end) });
    setMenu(null);
    window.setTimeout(() => {
      el?.focus();
      el?.setSelectionRange(at + token.length, at + token.length);
    });
  };
  return (
    <Paper variant="outlined" sx={{ p: 2, borderLeft: 4, borderLeftColor: row.color }} data-testid="variant-card">
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr 90px', sm: '1fr 110px auto auto' }, gap: 1.5, alignItems: 'start' }}>
        <TextField size="small" label={translate('campaigns.message.variantName')} value={row.name} disabled={ratiosOnly} onChange={(e) => onChange({ name: e.target.value })} slotProps={{ htmlInput: { maxLength: 100, 'data-testid': 'variant-name' } }} />
        <TextField
          size="small"
          label={translate('campaigns.message.ratio')}
          value={row.ratio}
          onChange={(e) => onChange({ ratio: e.target.value.replace(/[^\d]/g, '').slice(0, 3) })}
          error={!!errors[`variants.${index}.ratio`]}
          slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'variant-ratio', 'aria-label': translate('campaigns.message.ratioOf', { name: row.name }) }, input: { endAdornment: <Typography variant="body2" color="text.secondary">%</Typography> } }}
        />
        <Box sx={{ display: 'flex', gap: 0.5, alignItems: 'center', gridColumn: { xs: '1 / -1', sm: 'auto' } }} role="radiogroup" aria-label={translate('campaigns.message.colour')}>
          {VARIANT_COLOURS.slice(0, 4).map((c) => (
            <Box
              key={c}
              component="button"
              type="button"
              role="radio"
              aria-checked={row.color === c}
              aria-label={c}
              disabled={ratiosOnly}
              onClick={() => onChange({ color: c })}
              sx={{ width: 22, height: 22, borderRadius: '50%', bgcolor: c, border: 2, borderColor: row.color === c ? 'text.primary' : 'transparent', cursor: 'pointer', p: 0, '&:focus-visible': { outline: '2px solid', outlineOffset: 2 } }}
            />
          ))}
        </Box>
        <Tooltip title={translate('campaigns.message.removeVariant')}>
          <span>
            <IconButton aria-label={translate('campaigns.message.removeVariant')} onClick={onRemove} disabled={count <= 1 || ratiosOnly} data-testid="variant-remove" sx={{ display: { xs: 'none', sm: 'inline-flex' } }}>
              <DeleteOutlineRoundedIcon fontSize="small" />
            </IconButton>
          </span>
        </Tooltip>
      </Box>
      <TextField
        fullWidth
        multiline
        minRows={3}
        sx={{ mt: 1.5 }}
        label={translate('campaigns.message.text')}
        placeholder={translate('campaigns.message.placeholder')}
        value={row.text}
        disabled={ratiosOnly}
        inputRef={input}
        onChange={(e) => onChange({ text: e.target.value })}
        error={!!errors[`variants.${index}.text`]}
        helperText={errors[`variants.${index}.text`] || ' '}
        slotProps={{ htmlInput: { 'data-testid': 'variant-text' } }}
      />
      <VariantCounter text={row.text} maxLengths={maxLengths} words={words} />
      <Box sx={{ display: 'flex', gap: 1, mt: 1, flexWrap: 'wrap' }}>
        <Button size="small" startIcon={<DataObjectRoundedIcon />} onClick={(e) => setMenu(e.currentTarget)} disabled={ratiosOnly} data-testid="variant-variables">
          {translate('campaigns.message.insertVariable')}
        </Button>
        <Button size="small" startIcon={<AutoAwesomeRoundedIcon />} onClick={() => setPreview((p) => !p)} aria-expanded={preview} data-testid="variant-preview-toggle">
          {translate(preview ? 'campaigns.message.hidePreview' : 'campaigns.message.preview')}
        </Button>
        {/* AI spintax (docs/decisions/0041): only spintax the campaigns parser reads comes back */}
        <AiSpintaxButton text={row.text} disabled={ratiosOnly} onText={(text) => onChange({ text })} />
        {count > 1 && !ratiosOnly && (
          <Button size="small" color="error" startIcon={<DeleteOutlineRoundedIcon />} onClick={onRemove} sx={{ display: { sm: 'none' } }}>
            {translate('campaigns.message.removeVariant')}
          </Button>
        )}
      </Box>
      <Menu anchorEl={menu} open={!!menu} onClose={() => setMenu(null)}>
        {variables.map((x) => (
          <MenuItem key={x.token} onClick={() => insert(x.token)} data-testid={`insert-${x.token}`}>
            {x.label} <Typography variant="caption" color="text.secondary" sx={{ ml: 1 }}>{x.token}</Typography>
          </MenuItem>
        ))}
      </Menu>
      {preview && <SpintaxPreview text={row.text} />}
    </Paper>
  );
};

/**
 * What a recipient without a value gets, per variable the texts use (spec 3 campaign variable link): skip the
 * recipient, or use the default value (then required).
 */
const VariablesPanel = ({ rows, labels, errors, onChange, disabled }: { rows: VariableRow[]; labels: Record<string, string>; errors: Record<string, string>; onChange: (name: string, patch: Partial<VariableRow>) => void; disabled?: boolean }) => {
  const translate = useTranslate();
  if (!rows.length) return null;
  const select: TextFieldProps['slotProps'] = { select: { native: true } };
  return (
    <Paper variant="outlined" sx={{ p: 2, display: 'grid', gap: 1.5 }} data-testid="campaign-variables">
      <Box>
        <Typography variant="subtitle2">{translate('campaigns.message.variables.title')}</Typography>
        <Typography variant="caption" color="text.secondary">{translate('campaigns.message.variables.hint')}</Typography>
      </Box>
      {rows.map((r) => (
        <Box key={r.name} sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '160px 1fr 1fr' }, gap: 1.5, alignItems: 'start' }} data-testid={`campaign-variable-${r.name}`}>
          <Typography variant="body2" sx={{ pt: { sm: 1 }, fontWeight: 600, overflowWrap: 'anywhere' }}>
            {labels[r.name] ?? r.name} <Typography component="span" variant="caption" color="text.secondary">{`{{${r.name}}}`}</Typography>
          </Typography>
          <TextField
            select
            size="small"
            label={translate('campaigns.message.variables.missingRule')}
            value={String(r.missingRule)}
            disabled={disabled}
            onChange={(e) => onChange(r.name, { missingRule: e.target.value === '1' ? 1 : 0 })}
            slotProps={{ ...select, htmlInput: { 'data-testid': 'variable-missing-rule' } }}
          >
            <option value="0">{translate('campaigns.message.variables.skip')}</option>
            <option value="1">{translate('campaigns.message.variables.useDefault')}</option>
          </TextField>
          <TextField
            size="small"
            label={translate('campaigns.message.variables.defaultValue')}
            value={r.defaultValue}
            disabled={disabled}
            onChange={(e) => onChange(r.name, { defaultValue: e.target.value })}
            error={!!errors[`variables.${r.name}.defaultValue`]}
            helperText={errors[`variables.${r.name}.defaultValue`] || ' '}
            slotProps={{ htmlInput: { maxLength: 1000, 'data-testid': 'variable-default' } }}
          />
        </Box>
      ))}
    </Paper>
  );
};

/**
 * Message: variants with ratios (whole numbers summing to 100; an even split by default, remainder on the last),
 * spintax preview, variables, and a live character and part count per variant; a template's variants can be loaded.
 */
export const MessageStep = ({ v, set, errors, lookups, ratiosOnly }: StepProps) => {
  const translate = useTranslate();
  const [maxLengths, setMaxLengths] = useState<Record<string, number>>({});
  const [templateMenu, setTemplateMenu] = useState<HTMLElement | null>(null);
  // the lengths the server assumes for the variables the texts use (get_vars_max_length), asked 400 ms after typing
  const names = [...new Set(v.variants.flatMap((x) => variablesIn(x.text)))].sort().join(',');
  useEffect(() => {
    if (!names) return undefined;
    let live = true;
    const t = window.setTimeout(() => {
      campaignsApi.varsMaxLength(names.split(',').map((n) => `{{${n}}}`).join(' ')).then(
        (r) => live && setMaxLengths((m) => ({ ...m, ...(r && typeof r.variables === 'object' ? r.variables : {}) })),
        () => undefined,
      );
    }, 400);
    return () => {
      live = false;
      window.clearTimeout(t);
    };
  }, [names]);

  const variables = [
    ...SPECIAL.map((name) => ({ token: `{{${name}}}`, label: translate(`campaigns.message.special.${name}`) })),
    ...lookups.variables.filter((x) => !SPECIAL.includes(x.name)).map((x) => ({ token: `{{${x.name}}}`, label: x.UIname || x.name })),
    ...lookups.wordLists.map((w) => ({ token: `[[${w.name}]]`, label: translate('campaigns.message.wordList', { name: w.name }) })),
  ];
  const words: WordLists = Object.fromEntries(lookups.wordLists.map((w) => [w.name.toLowerCase(), w.words.map((x) => x.value)]));
  const update = (i: number, patch: Partial<VariantRow>) => set({ variants: v.variants.map((row, j) => (j === i ? { ...row, ...patch } : row)) });
  const add = () => {
    const n = v.variants.length;
    set({ variants: rebalance([...v.variants, { key: rowKey(), name: `${translate('campaigns.message.variantWord')} ${n + 1}`, text: '', color: VARIANT_COLOURS[n % VARIANT_COLOURS.length], ratio: '0' }]) });
  };
  const remove = (i: number) => set({ variants: rebalance(v.variants.filter((_r, j) => j !== i)) });
  // every contact variable the texts use gets its link (skip the recipient by default), shown and saved as it is
  const texts = v.variants.map((x) => x.text).join('\u0000');
  useEffect(() => {
    const rows = withVariableRows(v, lookups.variables);
    if (rows) set({ variables: rows });
    // only when the texts or the known variables change
  }, [texts, lookups.variables]);
  const used = usedVariables(v);
  const variableLabels = Object.fromEntries(lookups.variables.map((x) => [x.name, x.UIname || x.name]));
  const changeVariable = (name: string, patch: Partial<VariableRow>) => set({ variables: v.variables.map((r) => (r.name === name ? { ...r, ...patch } : r)) });
  const changeLink = (row: LinkRow) => set({ links: [...v.links.filter((r) => r.name !== row.name), row] });
  const total = v.variants.reduce((n, r) => n + (Number.isNaN(parseRatio(r.ratio)) ? 0 : parseRatio(r.ratio)), 0);

  return (
    <Box sx={{ display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)', gap: 2 }} data-testid="wizard-step-message">
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
        <Typography variant="body2" sx={{ flex: 1, minWidth: 160 }} color={total === 100 ? 'text.secondary' : 'error'} data-testid="ratio-total">
          {translate('campaigns.message.ratioTotal', { total })}
        </Typography>
        {!ratiosOnly && lookups.templates.length > 0 && (
          <Button size="small" variant="outlined" onClick={(e) => setTemplateMenu(e.currentTarget)} data-testid="load-template">
            {translate('campaigns.message.fromTemplate')}
          </Button>
        )}
        <Button size="small" variant="outlined" startIcon={<BalanceRoundedIcon />} onClick={() => set({ variants: rebalance(v.variants) })} data-testid="split-evenly">
          {translate('campaigns.message.splitEvenly')}
        </Button>
      </Box>
      <Menu anchorEl={templateMenu} open={!!templateMenu} onClose={() => setTemplateMenu(null)}>
        {lookups.templates.map((t) => (
          <MenuItem
            key={t.id}
            data-testid="template-option"
            onClick={() => {
              setTemplateMenu(null);
              if (t.variants.length)
                set({ variants: t.variants.map((x, i) => ({ key: rowKey(), name: x.name, text: x.text, color: x.color || VARIANT_COLOURS[i % VARIANT_COLOURS.length], ratio: String(x.ratio) })) });
            }}
          >
            {t.name}
          </MenuItem>
        ))}
      </Menu>
      {errors.variants && (
        <Alert severity="error" data-testid={`variants-error`} data-key={errors.variantsKey}>
          {errors.variants}
        </Alert>
      )}
      {v.variants.map((row, i) => (
        <VariantCard key={row.key} row={row} index={i} count={v.variants.length} onChange={(p) => update(i, p)} onRemove={() => remove(i)} errors={errors} variables={variables} maxLengths={maxLengths} words={words} ratiosOnly={ratiosOnly} />
      ))}
      <VariablesPanel rows={v.variables.filter((r) => used.includes(r.name))} labels={variableLabels} errors={errors} onChange={changeVariable} disabled={ratiosOnly} />
      <LinksPanel names={usedLinks(v)} rows={v.links} errors={errors} onChange={changeLink} disabled={ratiosOnly} />
      {!ratiosOnly && (
        <Button startIcon={<AddRoundedIcon />} onClick={add} sx={{ justifySelf: 'start' }} data-testid="add-variant">
          {translate('campaigns.message.addVariant')}
        </Button>
      )}
      <Typography variant="caption" color="text.secondary">{translate('campaigns.message.spintaxHint')}</Typography>
    </Box>
  );
};

