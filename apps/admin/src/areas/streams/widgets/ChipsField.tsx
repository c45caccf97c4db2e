import AddRoundedIcon from '@mui/icons-material/AddRounded';
import { Box, Chip, IconButton, InputAdornment, TextField } from '@mui/material';
import { useState, type KeyboardEvent } from 'react';

interface Props {
  label: string;
  values: string[];
  onChange: (values: string[]) => void;
  placeholder?: string;
  helperText?: string;
  error?: boolean;
  /** Marks an entry as invalid (shown red). */
  invalid?: (value: string) => boolean;
  testId?: string;
  addLabel: string;
  disabled?: boolean;
  mono?: boolean;
  /** The text typed and not yet a chip, when the form keeps it (to count it on submit: `withDraft`). */
  draft?: string;
  onDraftChange?: (draft: string) => void;
}

/** `values` with the chips `raw` makes added (split at commas and spaces, trimmed, no repeats): what adding it gives. */
export function withDraft(values: string[], raw: string): string[] {
  const parts = raw
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  return [...values, ...parts].filter((v, i, a) => a.indexOf(v) === i);
}

/**
 * Spec 5 chips: trimmed non-empty values only; added on Enter, blur or the plus button; a space or comma adds too
 * (IP lists have no spaces); pasting a list splits it. Duplicates are ignored.
 */
export const ChipsField = ({ label, values, onChange, placeholder, helperText, error, invalid, testId, addLabel, disabled, mono, draft: keptDraft, onDraftChange }: Props) => {
  const [ownDraft, setOwnDraft] = useState('');
  const draft = keptDraft ?? ownDraft;
  const setDraft = (d: string) => (onDraftChange ? onDraftChange(d) : setOwnDraft(d));
  const add = (raw: string) => {
    const next = withDraft(values, raw);
    if (next.length !== values.length) onChange(next);
    setDraft('');
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' || e.key === ',' || e.key === ' ') {
      e.preventDefault();
      add(draft);
    } else if (e.key === 'Backspace' && draft === '' && values.length) {
      onChange(values.slice(0, -1));
    }
  };
  const font = mono ? { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 12.5 } : {};
  return (
    <Box data-enter-picks>
      <TextField
        label={label}
        value={draft}
        disabled={disabled}
        placeholder={values.length ? undefined : placeholder}
        onChange={(e) => (/[,\s]/.test(e.target.value) ? add(e.target.value) : setDraft(e.target.value))}
        onKeyDown={onKey}
        onBlur={() => draft.trim() && add(draft)}
        error={error}
        helperText={helperText}
        slotProps={{
          htmlInput: { 'data-testid': testId },
          inputLabel: { shrink: true },
          input: {
            sx: { flexWrap: 'wrap', gap: 0.5, py: values.length ? 0.75 : undefined, '& input': { minWidth: 120, flex: 1 } },
            startAdornment: values.length ? (
              <>
                {values.map((v) => (
                  <Chip
                    key={v}
                    size="small"
                    label={v}
                    onDelete={disabled ? undefined : () => onChange(values.filter((x) => x !== v))}
                    color={invalid?.(v) ? 'error' : 'default'}
                    variant={invalid?.(v) ? 'outlined' : 'filled'}
                    sx={{ ...font, height: 24 }}
                    data-testid={testId ? `${testId}-chip` : undefined}
                  />
                ))}
              </>
            ) : undefined,
            endAdornment: (
              <InputAdornment position="end">
                <IconButton size="small" edge="end" aria-label={addLabel} onClick={() => add(draft)} disabled={disabled || !draft.trim()}>
                  <AddRoundedIcon fontSize="small" />
                </IconButton>
              </InputAdornment>
            ),
          },
        }}
      />
    </Box>
  );
};
