import AddRoundedIcon from '@mui/icons-material/AddRounded';
import CalendarMonthOutlinedIcon from '@mui/icons-material/CalendarMonthOutlined';
import CampaignOutlinedIcon from '@mui/icons-material/CampaignOutlined';
import CellTowerRoundedIcon from '@mui/icons-material/CellTowerRounded';
import CloseRoundedIcon from '@mui/icons-material/CloseRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import FilterAltOutlinedIcon from '@mui/icons-material/FilterAltOutlined';
import LocalOfferOutlinedIcon from '@mui/icons-material/LocalOfferOutlined';
import ListAltRoundedIcon from '@mui/icons-material/ListAltRounded';
import PublicRoundedIcon from '@mui/icons-material/PublicRounded';
import TuneRoundedIcon from '@mui/icons-material/TuneRounded';
import UploadFileRoundedIcon from '@mui/icons-material/UploadFileRounded';
import { Autocomplete, Box, Button, Chip, IconButton, MenuItem, Paper, TextField, ToggleButton, ToggleButtonGroup, Tooltip, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { CUSTOM_OPERATORS, PENDING_GROUPS, VALUELESS_OPERATORS, type CustomOperator, type FilterGroupType } from '../constants';
import type { CustomCondition, SetOperator } from '../types';
import { countryName } from '../widgets/format';
import { valueLabel } from './FilterSummary';
import type { Lookups } from './lookups';
import { isComplete, isDateGroup, type DraftGroup } from './model';

export const GROUP_ICONS: Record<FilterGroupType, ReactNode> = {
  country: <PublicRoundedIcon fontSize="small" />,
  operator: <CellTowerRoundedIcon fontSize="small" />,
  import_list: <UploadFileRoundedIcon fontSize="small" />,
  segment: <FilterAltOutlinedIcon fontSize="small" />,
  contact_list: <ListAltRoundedIcon fontSize="small" />,
  campaign_clickers: <CampaignOutlinedIcon fontSize="small" />,
  campaign_register: <CampaignOutlinedIcon fontSize="small" />,
  campaign_ftd: <CampaignOutlinedIcon fontSize="small" />,
  offers_clickers: <LocalOfferOutlinedIcon fontSize="small" />,
  offers_register: <LocalOfferOutlinedIcon fontSize="small" />,
  offers_ftd: <LocalOfferOutlinedIcon fontSize="small" />,
  custom_fields: <TuneRoundedIcon fontSize="small" />,
  created_before: <CalendarMonthOutlinedIcon fontSize="small" />,
  created_after: <CalendarMonthOutlinedIcon fontSize="small" />,
};

interface Option {
  value: string;
  label: string;
}

function optionsFor(type: FilterGroupType, lookups: Lookups | null, locale: string, excludeId?: number): Option[] | null {
  if (!lookups) return [];
  switch (type) {
    case 'country':
      return lookups.countries
        .map((c) => ({ value: c.iso2, label: countryName(c.iso2, locale, c.name) }))
        .sort((a, b) => a.label.localeCompare(b.label, locale));
    case 'contact_list':
      return lookups.lists.map((l) => ({ value: String(l.id), label: l.name }));
    case 'segment':
      return lookups.segments.filter((s) => s.id !== excludeId).map((s) => ({ value: String(s.id), label: s.name }));
    case 'import_list':
      return lookups.imports.map((i) => ({ value: String(i.id), label: i.name }));
    default:
      // operators and campaign or offer ids are typed in
      return null;
  }
}

const SetEditor = ({ group, lookups, excludeId, onChange }: { group: Extract<DraftGroup, { values: string[] }>; lookups: Lookups | null; excludeId?: number; onChange: (g: DraftGroup) => void }) => {
  const translate = useTranslate();
  const locale = translate('contacts.locale');
  const options = optionsFor(group.type, lookups, locale, excludeId);
  const idsOnly = group.type !== 'operator' && options === null;
  const label = (v: string) => valueLabel(group.type, v, lookups, locale, translate);
  return (
    <Box sx={{ display: 'flex', gap: 1.5, alignItems: 'flex-start', flexWrap: { xs: 'wrap', sm: 'nowrap' } }}>
      <ToggleButtonGroup
        exclusive
        size="small"
        value={group.operator}
        onChange={(_e, v: SetOperator | null) => v && onChange({ ...group, operator: v })}
        sx={{ flexShrink: 0, '& .MuiToggleButton-root': { px: 1.5, textTransform: 'none', fontWeight: 600, height: 40 } }}
      >
        <ToggleButton value="in">{translate('contacts.segments.operators.in')}</ToggleButton>
        <ToggleButton value="not_in">{translate('contacts.segments.operators.not_in')}</ToggleButton>
      </ToggleButtonGroup>
      {options ? (
        <Autocomplete
          multiple
          fullWidth
          size="small"
          options={options.map((o) => o.value)}
          value={group.values}
          getOptionLabel={label}
          onChange={(_e, values) => onChange({ ...group, values })}
          filterSelectedOptions
          noOptionsText={translate('contacts.segments.noOptions')}
          renderInput={(params) => <TextField {...params} placeholder={group.values.length ? '' : translate(`contacts.segments.groups.${group.type}.placeholder`)} />}
          data-testid={`group-values-${group.type}`}
        />
      ) : (
        <Autocomplete
          multiple
          freeSolo
          fullWidth
          size="small"
          options={[] as string[]}
          value={group.values}
          getOptionLabel={label}
          onChange={(_e, values) => {
            const clean = values.map((v) => v.trim()).filter((v) => v && (!idsOnly || /^\d{1,18}$/.test(v)));
            onChange({ ...group, values: [...new Set(clean)] });
          }}
          renderValue={(values, getItemProps) => values.map((v, index) => <Chip size="small" label={label(v)} {...getItemProps({ index })} key={v} />)}
          renderInput={(params) => (
            <TextField
              {...params}
              placeholder={group.values.length ? '' : translate(`contacts.segments.groups.${group.type}.placeholder`)}
              helperText={translate(idsOnly ? 'contacts.segments.enterIds' : 'contacts.segments.enterValues')}
            />
          )}
          data-testid={`group-values-${group.type}`}
        />
      )}
    </Box>
  );
};

const ConditionRow = ({ condition, lookups, onChange, onRemove, canRemove }: { condition: CustomCondition; lookups: Lookups | null; onChange: (c: CustomCondition) => void; onRemove: () => void; canRemove: boolean }) => {
  const translate = useTranslate();
  const variable = lookups?.variables.find((v) => String(v.id) === condition.variable || v.name === condition.variable);
  const inputType = variable?.type === 'date' ? 'date' : variable?.type === 'number' ? 'number' : 'text';
  const ops = CUSTOM_OPERATORS.filter((op) => !['gt', 'gte', 'lt', 'lte'].includes(op) || inputType !== 'text');
  return (
    <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1.2fr 1fr 1.2fr 36px' }, gap: 1, alignItems: 'center' }} data-testid="custom-condition">
      <TextField
        select
        size="small"
        label={translate('contacts.segments.field')}
        value={variable ? String(variable.id) : ''}
        onChange={(e) => onChange({ ...condition, variable: e.target.value })}
        slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'condition-variable' } as object } }}
      >
        {(lookups?.variables ?? []).map((v) => (
          <MenuItem key={v.id} value={String(v.id)} data-testid={`condition-variable-option-${v.name}`}>
            {v.UIname || v.name}
          </MenuItem>
        ))}
      </TextField>
      <TextField select size="small" label={translate('contacts.segments.condition')} value={condition.operator} onChange={(e) => onChange({ ...condition, operator: e.target.value as CustomOperator })}>
        {ops.map((op) => (
          <MenuItem key={op} value={op}>
            {translate(`contacts.segments.customOperators.${op}`)}
          </MenuItem>
        ))}
      </TextField>
      {VALUELESS_OPERATORS.has(condition.operator) ? (
        <Box />
      ) : (
        <TextField
          size="small"
          type={inputType}
          label={translate('contacts.segments.value')}
          value={condition.value ?? ''}
          onChange={(e) => onChange({ ...condition, value: e.target.value })}
          slotProps={{ inputLabel: inputType === 'date' ? { shrink: true } : undefined }}
          inputProps={{ 'data-testid': 'condition-value' }}
        />
      )}
      <IconButton size="small" onClick={onRemove} disabled={!canRemove} aria-label={translate('contacts.actions.remove')}>
        <CloseRoundedIcon fontSize="small" />
      </IconButton>
    </Box>
  );
};

export interface GroupEditorProps {
  group: DraftGroup;
  lookups: Lookups | null;
  /** The segment being edited: it cannot refer to itself. */
  segmentId?: number;
  onChange: (g: DraftGroup) => void;
  onRemove: () => void;
}

/** One filter group of the segment builder (spec 3 "Filter groups"), with its own editor per type. */
export const GroupEditor = ({ group, lookups, segmentId, onChange, onRemove }: GroupEditorProps) => {
  const translate = useTranslate();
  const complete = isComplete(group);
  let body: ReactNode;
  if (group.type === 'custom_fields') {
    body = (
      <Box sx={{ display: 'grid', gap: 1.25 }}>
        <ToggleButtonGroup
          exclusive
          size="small"
          value={group.match}
          onChange={(_e, v: 'all' | 'any' | null) => v && onChange({ ...group, match: v })}
          sx={{ '& .MuiToggleButton-root': { px: 1.5, textTransform: 'none', fontWeight: 600 } }}
        >
          <ToggleButton value="all">{translate('contacts.segments.matchAll')}</ToggleButton>
          <ToggleButton value="any">{translate('contacts.segments.matchAny')}</ToggleButton>
        </ToggleButtonGroup>
        {group.conditions.map((c, i) => (
          <ConditionRow
            key={i}
            condition={c}
            lookups={lookups}
            canRemove={group.conditions.length > 1}
            onChange={(next) => onChange({ ...group, conditions: group.conditions.map((x, j) => (j === i ? next : x)) })}
            onRemove={() => onChange({ ...group, conditions: group.conditions.filter((_x, j) => j !== i) })}
          />
        ))}
        <Box>
          <Button size="small" startIcon={<AddRoundedIcon />} onClick={() => onChange({ ...group, conditions: [...group.conditions, { variable: '', operator: 'eq', value: '' }] })}>
            {translate('contacts.segments.addCondition')}
          </Button>
        </Box>
      </Box>
    );
  } else if (isDateGroup(group)) {
    body = (
      <TextField
        size="small"
        type="date"
        value={group.value}
        onChange={(e) => onChange({ ...group, value: e.target.value })}
        sx={{ maxWidth: 220 }}
        inputProps={{ 'data-testid': `group-date-${group.type}` }}
      />
    );
  } else {
    body = <SetEditor group={group} lookups={lookups} excludeId={segmentId} onChange={onChange} />;
  }
  return (
    <Paper variant="outlined" sx={{ p: 2, borderRadius: '12px', borderColor: complete ? 'divider' : '#fedf89' }} data-testid={`group-${group.type}`}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.25, mb: 1.5 }}>
        <Box sx={{ width: 30, height: 30, borderRadius: '8px', display: 'grid', placeItems: 'center', bgcolor: '#eef2ff', color: 'primary.main' }}>{GROUP_ICONS[group.type]}</Box>
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Typography sx={{ fontWeight: 600, fontSize: 14.5 }}>{translate(`contacts.segments.groups.${group.type}.title`)}</Typography>
          <Typography variant="caption" color="text.secondary">
            {translate(`contacts.segments.groups.${group.type}.hint`)}
          </Typography>
        </Box>
        {!complete && (
          <Typography variant="caption" sx={{ color: '#b54708', fontWeight: 600 }}>
            {translate('contacts.segments.incomplete')}
          </Typography>
        )}
        {PENDING_GROUPS.has(group.type) && (
          <Tooltip title={translate('contacts.segments.pendingData')} arrow>
            <Chip size="small" label={translate('contacts.segments.pendingChip')} sx={{ bgcolor: '#fffaeb', color: '#b54708', fontWeight: 600 }} />
          </Tooltip>
        )}
        <IconButton size="small" onClick={onRemove} aria-label={translate('contacts.segments.removeGroup')} data-testid="group-remove">
          <DeleteOutlineRoundedIcon fontSize="small" />
        </IconButton>
      </Box>
      {body}
    </Paper>
  );
};
