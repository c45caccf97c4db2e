import { Box, Chip, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { VALUELESS_OPERATORS } from '../constants';
import type { FilterGroup } from '../types';
import { countryName } from '../widgets/format';
import { useLookups, type Lookups } from './lookups';
import { fromFilterText, isDateGroup } from './model';

/** The display name of a group's value: a country, a list, an import, or the id itself. */
export function valueLabel(type: FilterGroup['type'], value: string, lookups: Lookups | null, locale: string, translate: (k: string, o?: object) => string): string {
  const byId = <T extends { id: number; name: string }>(items: T[] | undefined) => items?.find((i) => String(i.id) === value)?.name;
  switch (type) {
    case 'country':
      return countryName(value, locale, lookups?.countries.find((c) => c.iso2 === value)?.name);
    case 'contact_list':
      return byId(lookups?.lists) ?? `#${value}`;
    case 'segment':
      return byId(lookups?.segments) ?? `#${value}`;
    case 'import_list':
      return byId(lookups?.imports) ?? `#${value}`;
    case 'operator':
      return value;
    default:
      return translate('contacts.segments.idValue', { id: value });
  }
}

export const variableLabel = (ref: string, lookups: Lookups | null): string => {
  const v = lookups?.variables.find((x) => String(x.id) === ref || x.name === ref);
  return v ? v.UIname || v.name : ref;
};

/** A segment's filter in words: "all/any of", then one line per group with its values as chips. */
export const FilterSummary = ({ filter }: { filter: string | null }) => {
  const translate = useTranslate();
  const locale = translate('contacts.locale');
  const lookups = useLookups();
  const { match, groups } = fromFilterText(filter);
  if (!groups.length) {
    return (
      <Typography variant="body2" color="text.secondary">
        {translate('contacts.segments.noFilters')}
      </Typography>
    );
  }
  return (
    <Box data-testid="filter-summary" sx={{ border: 1, borderColor: 'divider', borderRadius: '10px', p: 1.5, bgcolor: '#fcfcfd' }}>
      <Typography variant="caption" color="text.secondary" sx={{ fontWeight: 600 }}>
        {translate(`contacts.segments.matchSummary.${match}`)}
      </Typography>
      {groups.map((g) => (
        <Box key={g.key} sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 0.75, mt: 1 }}>
          <Typography variant="body2" sx={{ fontWeight: 600 }}>
            {translate(`contacts.segments.groups.${g.type}.title`)}
          </Typography>
          {g.type === 'custom_fields' ? (
            g.conditions.map((c, i) => (
              <Chip
                key={i}
                size="small"
                label={`${variableLabel(c.variable, lookups)} ${translate(`contacts.segments.customOperators.${c.operator}`)}${VALUELESS_OPERATORS.has(c.operator) ? '' : ` “${c.value ?? ''}”`}`}
              />
            ))
          ) : isDateGroup(g) ? (
            <Chip size="small" label={g.value} />
          ) : (
            <>
              <Typography variant="body2" color="text.secondary">
                {translate(`contacts.segments.operators.${g.operator}`)}
              </Typography>
              {g.values.map((v) => (
                <Chip key={v} size="small" label={valueLabel(g.type, v, lookups, locale, translate)} />
              ))}
            </>
          )}
        </Box>
      ))}
    </Box>
  );
};
