import { Box, styled } from '@mui/material';
import { useEffect, useRef, type ChangeEvent, type ClipboardEvent, type FocusEvent, type KeyboardEvent } from 'react';
import { useTranslate } from 'react-admin';

/** Spec 4: the states of the verification code input. */
export type VerificationStatus = 'none' | 'loading' | 'success' | 'error' | 'resending';

export interface VerificationCodeInputProps {
  /** One character per box (spec 3, "verification value"). */
  value: string[];
  onChange: (next: string[]) => void;
  /** All boxes are filled by typing the last one or by a paste reaching it. */
  onComplete: (code: string[]) => void;
  /** Enter pressed in a box. */
  onSubmit: () => void;
  status: VerificationStatus;
  autoFocus?: boolean;
  resetSignal?: number;
}

const clean = (s: string) => s.replace(/\s+/g, '');
const isFull = (code: string[]) => code.every((c) => c.length === 1);

/**
 * Boxes of exactly one character (spec 5): typing moves forward, Backspace on an empty box or ArrowLeft moves back,
 * ArrowRight forward, Enter submits; a paste strips whitespace and fills from the current box on.
 */
export const VerificationCodeInput = ({ value, onChange, onComplete, onSubmit, status, autoFocus, resetSignal }: VerificationCodeInputProps) => {
  const translate = useTranslate();
  const refs = useRef<(HTMLInputElement | null)[]>([]);
  const length = value.length;
  const disabled = status === 'loading' || status === 'success' || status === 'resending';

  const focus = (index: number) => {
    const el = refs.current[Math.max(0, Math.min(length - 1, index))];
    if (el) {
      el.focus();
      el.select();
    }
  };

  useEffect(() => {
    // only on mount: later focus follows the user's typing
    if (autoFocus) focus(0);
  }, []);

  // the parent bumps resetSignal when it clears the code (resend): go back to the first box
  useEffect(() => {
    if (resetSignal) focus(0);
  }, [resetSignal]);

  const fill = (from: number, text: string) => {
    const chars = [...clean(text)];
    if (chars.length === 0) return;
    const next = [...value];
    let i = from;
    for (const ch of chars) {
      if (i >= length) break;
      next[i++] = ch;
    }
    onChange(next);
    focus(i >= length ? length - 1 : i);
    if (i >= length && isFull(next)) onComplete(next);
  };

  const handleChange = (index: number) => (e: ChangeEvent<HTMLInputElement>) => {
    const raw = clean(e.target.value);
    const previous = value[index];
    if (raw.length > 1) {
      // a caret after the existing character gives "old+new": keep the new one; longer input is an autofill
      if (raw.length === 2 && previous && raw.includes(previous)) {
        const typed = raw[0] === previous ? raw[1] : raw[0];
        fill(index, typed);
      } else {
        fill(index, raw);
      }
      return;
    }
    const next = [...value];
    next[index] = raw;
    onChange(next);
    if (raw) {
      if (index < length - 1) focus(index + 1);
      else if (isFull(next)) onComplete(next);
    }
  };

  const handleKeyDown = (index: number) => (e: KeyboardEvent<HTMLInputElement>) => {
    switch (e.key) {
      case 'Backspace':
        if (!value[index] && index > 0) {
          e.preventDefault();
          focus(index - 1);
        }
        break;
      case 'ArrowLeft':
        e.preventDefault();
        focus(index - 1);
        break;
      case 'ArrowRight':
        e.preventDefault();
        focus(index + 1);
        break;
      case 'Enter':
        e.preventDefault();
        onSubmit();
        break;
      default:
    }
  };

  const handlePaste = (index: number) => (e: ClipboardEvent<HTMLInputElement>) => {
    e.preventDefault();
    fill(index, e.clipboardData.getData('text'));
  };

  return (
    <Box
      role="group"
      data-testid="pin-input"
      data-status={status}
      sx={{ display: 'flex', gap: { xs: 1, sm: 1.25 }, justifyContent: 'center' }}
    >
      {value.map((ch, i) => (
        <DigitBox
          key={i}
          ref={(el) => {
            refs.current[i] = el;
          }}
          value={ch}
          onChange={handleChange(i)}
          onKeyDown={handleKeyDown(i)}
          onPaste={handlePaste(i)}
          onFocus={(e: FocusEvent<HTMLInputElement>) => e.target.select()}
          disabled={disabled}
          inputMode="numeric"
          autoComplete={i === 0 ? 'one-time-code' : 'off'}
          aria-label={translate('pin.digit', { index: i + 1 })}
          aria-invalid={status === 'error'}
          data-testid={`pin-digit-${i}`}
          data-filled={ch ? 'true' : undefined}
          data-state={status}
        />
      ))}
    </Box>
  );
};

const DigitBox = styled('input')(({ theme }) => ({
  width: 48,
  height: 58,
  [theme.breakpoints.down('sm')]: { width: 42, height: 52 },
  textAlign: 'center',
  fontSize: 24,
  fontWeight: 600,
  fontFamily: 'inherit',
  color: theme.palette.text.primary,
  borderRadius: 10,
  border: `1.5px solid ${theme.palette.divider}`,
  backgroundColor: theme.palette.background.paper,
  outline: 'none',
  transition: 'border-color .15s, box-shadow .15s',
  '&[data-filled]': { borderColor: theme.palette.primary.light },
  '&:focus': { borderColor: theme.palette.primary.main, boxShadow: `0 0 0 4px ${theme.palette.primary.main}22` },
  '&:disabled': { backgroundColor: theme.palette.action.hover },
  '&[data-state="error"]': { borderColor: theme.palette.error.main },
  '&[data-state="success"]': { borderColor: theme.palette.success.main, color: theme.palette.success.dark },
}));
