import type { Stream } from '../types';
import type { StreamField, StreamFormValues } from './stream-form';

/** What the sections of the stream modal share: the values, a setter, and the shown (translated) error of a field. */
export interface FormKit {
  values: StreamFormValues;
  set: (patch: Partial<StreamFormValues>) => void;
  /** The error to show now (touched or submitted), translated. */
  error: (f: StreamField) => string | undefined;
  touch: (f: StreamField) => void;
  /** Puts a server-side error on a field (token previews). */
  setServerError: (f: StreamField, message: string | null) => void;
  editing: boolean;
  stream: Stream | null;
}

/** The common props of a text field bound to the form. */
export function bind(kit: FormKit, f: StreamField, hint?: string) {
  const shown = kit.error(f);
  return {
    value: String(kit.values[f] ?? ''),
    onChange: (e: { target: { value: string } }) => {
      kit.set({ [f]: e.target.value } as Partial<StreamFormValues>);
      kit.setServerError(f, null);
    },
    onBlur: () => kit.touch(f),
    error: !!shown,
    helperText: shown ?? hint ?? ' ',
    slotProps: { htmlInput: { 'data-testid': `stream-${f}` } },
  };
}
