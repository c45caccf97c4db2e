import { Autocomplete, Chip, TextField, createFilterOptions } from '@mui/material';
import { useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { campaignsApi } from '../api';
import type { Tag } from '../types';
import { errorText } from './errors';

/** Spec 5: a tag name is at most 64 characters. */
export const TAG_MAX = 64;

type Option = Tag | { id: 0; value: string; create: true };
const filter = createFilterOptions<Option>({ stringify: (o) => o.value });

/**
 * The campaign tags dropdown: pick existing tags, or type a new one and add it (created on the server, which answers
 * its id). Spec 5: empty and duplicate values are ignored, a name is at most 64 characters.
 */
export const TagsDropdown = ({ tags, value, onChange, onCreated, disabled }: { tags: Tag[]; value: number[]; onChange: (ids: number[]) => void; onCreated: (t: Tag) => void; disabled?: boolean }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const [input, setInput] = useState('');
  const [error, setError] = useState('');
  const selected = value.map((id) => tags.find((t) => t.id === id)).filter((t): t is Tag => !!t);

  const create = async (raw: string) => {
    const text = raw.trim();
    if (!text) return;
    const existing = tags.find((t) => t.value.toLowerCase() === text.toLowerCase());
    if (existing) {
      if (!value.includes(existing.id)) onChange([...value, existing.id]);
      setInput('');
      return;
    }
    if (text.length > TAG_MAX) {
      setError(translate('campaigns.errors.client.charLimit', { limit: TAG_MAX }));
      return;
    }
    try {
      const tag = await campaignsApi.createTag(text);
      onCreated(tag);
      onChange([...value, tag.id]);
      setInput('');
      setError('');
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    }
  };

  return (
    <Autocomplete<Option, true, false, false>
      multiple
      disabled={disabled}
      options={tags as Option[]}
      value={selected}
      inputValue={input}
      onInputChange={(_e, v, reason) => {
        if (reason !== 'reset') setInput(v);
        setError('');
      }}
      getOptionLabel={(o) => o.value}
      isOptionEqualToValue={(a, b) => a.id === b.id}
      filterOptions={(options, state) => {
        const found = filter(options, state);
        const text = state.inputValue.trim();
        if (text && !options.some((o) => o.value.toLowerCase() === text.toLowerCase())) found.push({ id: 0, value: text, create: true });
        return found;
      }}
      renderOption={(props, o) => {
        const { key, ...rest } = props as typeof props & { key: string };
        return (
          <li key={key} {...rest} data-testid={'create' in o ? 'tag-create' : 'tag-option'}>
            {'create' in o ? translate('campaigns.tags.add', { value: o.value }) : o.value}
          </li>
        );
      }}
      onChange={(_e, next) => {
        const made = next.find((o): o is Extract<Option, { create: true }> => 'create' in o);
        if (made) void create(made.value);
        else onChange(next.map((t) => t.id));
      }}
      renderValue={(items, getItemProps) => items.map((t, index) => { const { key, ...p } = getItemProps({ index }); return <Chip key={key} {...p} size="small" label={t.value} />; })}
      noOptionsText={translate('campaigns.tags.none')}
      renderInput={(params) => (
        <TextField {...params} label={translate('campaigns.fields.tags')} error={!!error} helperText={error || translate('campaigns.tags.hint')} slotProps={{ htmlInput: { ...params.inputProps, 'data-testid': 'campaign-tags', maxLength: TAG_MAX + 1 } }} />
      )}
    />
  );
};
