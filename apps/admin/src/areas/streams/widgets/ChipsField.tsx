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
}

/**
 * Spec 5 chips: trimmed non-empty values only; added on Enter, blur or the plus button; a space or comma adds too
 * (IP lists have no spaces); pasting a list splits it. Duplicates are ignored.
 */
export const ChipsField = ({ label, values, onChange, placeholder, helperText, error, invalid, testId, addLabel, disabled, mono }: Props) => {
  const [draft, setDraft] = useState('');
  const add = (raw: string) => {
    const parts = raw
      .split(/[,\s]+/)
      .map((s) => s.trim())
      .filter(Boolean);
    if (parts.length) onChange([...values, ...parts.filter((p) => !values.includes(p))].filter((v, i, a) => a.indexOf(v) === i));
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
