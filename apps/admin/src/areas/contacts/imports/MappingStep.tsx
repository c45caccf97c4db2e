import { Alert, Autocomplete, Box, Chip, FormControlLabel, ListSubheader, MenuItem, Paper, Switch, Table, TableBody, TableCell, TableHead, TableRow, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { ImportType, PHONE_VARIABLE_ID, StandardVariable, type ImportTypeValue } from '../constants';
import type { Country, ImportPreview, Variable } from '../types';
import { countryName } from '../widgets/format';
import { columnLetter, type Mapping, type MappingProblems } from './mapping';

/** The line numbers' column: wide enough for the header row's chip in full ("Header", "Заголовок"). */
const LINE_COLUMN = 120;

export interface MappingStepProps {
  type: ImportTypeValue;
  preview: ImportPreview;
  variables: Variable[];
  countries: Country[];
  name: string;
  onName: (name: string) => void;
  mapping: Mapping;
  onMapping: (m: Mapping) => void;
  ignoreFirstLine: boolean;
  onIgnoreFirstLine: (v: boolean) => void;
  defaultCountry: string | null;
  onDefaultCountry: (v: string | null) => void;
  problems: MappingProblems;
  /** Show the problems (after a first attempt to start). */
  showProblems: boolean;
  serverError?: string | null;
  nameError?: string;
  disabled?: boolean;
}

/**
 * Step 2 of the import: the first rows of the file, a variable chosen above each column, the "ignore first line"
 * toggle and the country of national numbers. Spec 5: the phone must be mapped (phoneVarMust) and no variable twice
 * (notSameVars).
 */
export const MappingStep = (props: MappingStepProps) => {
  const { type, preview, variables, countries, mapping, onMapping, ignoreFirstLine, problems, showProblems, disabled } = props;
  const translate = useTranslate();
  const locale = translate('contacts.locale');
  // a blacklist import takes the phone (and the country of national numbers) only
  const choices = variables.filter((v) => v.mappable && (type === ImportType.Contacts || v.id === StandardVariable.phone || v.id === StandardVariable.country));
  const standard = choices.filter((v) => v.isStandard);
  const custom = choices.filter((v) => !v.isStandard);
  const columns = Math.max(preview.columns, ...preview.rows.map((r) => r.cells.length));
  const countryOptions = countries.map((c) => c.iso2).sort((a, b) => countryName(a, locale).localeCompare(countryName(b, locale), locale));

  const setColumn = (column: number, value: string) => {
    const next = { ...mapping };
    if (value === '') delete next[column];
    else next[column] = Number(value);
    onMapping(next);
  };

  return (
    <Box sx={{ display: 'grid', gap: 3 }}>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: type === ImportType.Contacts ? '1fr 1fr' : '1fr' }, gap: 2 }}>
        {type === ImportType.Contacts && (
          <TextField
            label={translate('contacts.imports.listName')}
            value={props.name}
            required
            onChange={(e) => props.onName(e.target.value)}
            error={!!props.nameError}
            helperText={props.nameError || translate('contacts.imports.listNameHint')}
            disabled={disabled}
            inputProps={{ maxLength: 255, 'data-testid': 'import-name' }}
          />
        )}
        <Autocomplete
          options={countryOptions}
          value={props.defaultCountry}
          onChange={(_e, v) => props.onDefaultCountry(v)}
          getOptionLabel={(iso) => `${countryName(iso, locale)} (${iso})`}
          disabled={disabled}
          renderInput={(params) => <TextField {...params} label={translate('contacts.imports.defaultCountry')} helperText={translate('contacts.imports.defaultCountryHint')} />}
        />
      </Box>

      <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 2 }}>
        <Box sx={{ flex: 1, minWidth: 240 }}>
          <Typography variant="subtitle1" sx={{ fontWeight: 700 }}>
            {translate('contacts.imports.mapTitle')}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {translate('contacts.imports.mapHint', { smart_count: preview.rows.length })}
          </Typography>
        </Box>
        <FormControlLabel
          control={<Switch checked={ignoreFirstLine} onChange={(e) => props.onIgnoreFirstLine(e.target.checked)} disabled={disabled} slotProps={{ input: { 'data-testid': 'ignore-first-line' } as object }} />}
          label={translate('contacts.imports.ignoreFirstLine')}
        />
      </Box>

      {showProblems && problems.phoneMissing && (
        <Alert severity="error" data-testid="error-phoneVarMust">
          {translate('contacts.errors.client.phoneVarMust')}
        </Alert>
      )}
      {showProblems && problems.duplicates.size > 0 && (
        <Alert severity="error" data-testid="error-notSameVars">
          {translate('contacts.errors.client.notSameVars')}
        </Alert>
      )}
      {props.serverError && <Alert severity="error">{props.serverError}</Alert>}

      <Paper variant="outlined" sx={{ borderRadius: '12px', overflow: 'auto', maxHeight: 'calc(100vh - 300px)' }} data-testid="import-preview">
        <Table size="small" stickyHeader sx={{ minWidth: columns * 200 + LINE_COLUMN, tableLayout: 'fixed' }}>
          <TableHead>
            <TableRow>
              <TableCell sx={{ width: LINE_COLUMN, bgcolor: '#f9fafb' }} />
              {Array.from({ length: columns }, (_, column) => {
                const value = mapping[column];
                const duplicate = showProblems && problems.duplicates.has(column);
                const mapped = value !== undefined;
                return (
                  <TableCell key={column} sx={{ bgcolor: mapped ? '#eef2ff' : '#f9fafb', borderBottom: 1, borderColor: 'divider', verticalAlign: 'top', py: 1.5 }}>
                    <Typography variant="caption" sx={{ fontWeight: 700, color: 'text.secondary', letterSpacing: '.06em' }}>
                      {translate('contacts.imports.column', { letter: columnLetter(column) })}
                    </Typography>
                    <TextField
                      select
                      size="small"
                      fullWidth
                      value={value === undefined ? '' : String(value)}
                      onChange={(e) => setColumn(column, e.target.value)}
                      disabled={disabled}
                      error={duplicate || (showProblems && problems.phoneMissing && !mapped)}
                      sx={{ mt: 0.75, '& .MuiInputBase-root': { bgcolor: '#fff', fontWeight: mapped ? 600 : 400 } }}
                      slotProps={{
                        select: {
                          displayEmpty: true,
                          SelectDisplayProps: { 'data-testid': `map-col-${column}` } as object,
                          MenuProps: { slotProps: { paper: { sx: { maxHeight: 360 } } } },
                        },
                      }}
                    >
                      <MenuItem value="" data-testid="map-option-skip">
                        <Typography color="text.secondary">{translate('contacts.imports.skipColumn')}</Typography>
                      </MenuItem>
                      <ListSubheader>{translate('contacts.imports.standardFields')}</ListSubheader>
                      {standard.map((v) => (
                        <MenuItem key={v.id} value={String(v.id)} data-testid={`map-option-${v.name}`}>
                          {v.UIname || v.name}
                          {v.id === PHONE_VARIABLE_ID && (
                            <Chip size="small" label={translate('contacts.imports.required')} sx={{ ml: 1, height: 20, fontSize: 11 }} />
                          )}
                        </MenuItem>
                      ))}
                      {custom.length > 0 && <ListSubheader>{translate('contacts.imports.customFields')}</ListSubheader>}
                      {custom.map((v) => (
                        <MenuItem key={v.id} value={String(v.id)} data-testid={`map-option-${v.name}`}>
                          {v.UIname || v.name}
                        </MenuItem>
                      ))}
                    </TextField>
                  </TableCell>
                );
              })}
            </TableRow>
          </TableHead>
          <TableBody>
            {preview.rows.map((row, i) => {
              const header = i === 0 && ignoreFirstLine;
              return (
                <TableRow key={row.line} sx={{ bgcolor: header ? '#f9fafb' : undefined }} data-testid="preview-row">
                  <TableCell sx={{ color: 'text.secondary', fontSize: 12, lineHeight: '20px', fontVariantNumeric: 'tabular-nums' }}>
                    {header ? <Chip size="small" label={translate('contacts.imports.headerRow')} sx={{ height: 20, fontSize: 11, maxWidth: 'none', '& .MuiChip-label': { px: 0.75, overflow: 'visible' } }} data-testid="preview-header-chip" /> : row.line}
                  </TableCell>
                  {Array.from({ length: columns }, (_, column) => (
                    <TableCell
                      key={column}
                      sx={{
                        maxWidth: 260,
                        overflow: 'hidden',
                        textOverflow: 'ellipsis',
                        whiteSpace: 'nowrap',
                        color: header ? 'text.secondary' : mapping[column] === undefined ? '#98a2b3' : 'text.primary',
                        fontWeight: header ? 600 : 400,
                        textDecoration: header ? 'line-through' : undefined,
                      }}
                      title={row.cells[column] ?? ''}
                    >
                      {row.cells[column] ?? ''}
                    </TableCell>
                  ))}
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      </Paper>
    </Box>
  );
};
