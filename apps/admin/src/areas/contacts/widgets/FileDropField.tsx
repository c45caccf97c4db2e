import CheckCircleRoundedIcon from '@mui/icons-material/CheckCircleRounded';
import CloseRoundedIcon from '@mui/icons-material/CloseRounded';
import CloudUploadOutlinedIcon from '@mui/icons-material/CloudUploadOutlined';
import InsertDriveFileOutlinedIcon from '@mui/icons-material/InsertDriveFileOutlined';
import { Box, Button, IconButton, LinearProgress, Typography } from '@mui/material';
import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { useTranslate } from 'react-admin';
import { UPLOAD_ACCEPT, UPLOAD_EXTENSIONS, UPLOAD_LIMIT_BYTES, UPLOAD_LIMIT_MB } from '../constants';
import { formatBytes } from './format';

export type FileFieldState = 'empty' | 'chosen' | 'uploaded';

export interface FileDropFieldProps {
  state: FileFieldState;
  file: { name: string; size: number } | null;
  /** Real progress of the transfer, 0..1, when the browser reports it. */
  progress?: number;
  error?: string | null;
  disabled?: boolean;
  onSelect: (file: File) => void;
  /** Cancels a transfer (chosen) or clears the uploaded file. */
  onClear: () => void;
  maxBytes?: number;
  accept?: string;
  testId?: string;
}

/**
 * The progress shown while a file is "chosen": it creeps towards 90 % on its own (spec 2: "fake progress") and
 * follows the real transfer when that is ahead; it completes only when the file is uploaded.
 */
function useFakeProgress(active: boolean, real: number): number {
  const [fake, setFake] = useState(0);
  useEffect(() => {
    if (!active) {
      setFake(0);
      return undefined;
    }
    const timer = window.setInterval(() => setFake((f) => (f >= 90 ? f : f + Math.max(0.5, (90 - f) / 12))), 150);
    return () => window.clearInterval(timer);
  }, [active]);
  return Math.min(95, Math.max(fake, real * 95));
}

/**
 * The drag-and-drop file field of spec 2: one file, at most 100 MB, .csv or .xlsx (spec 9); states empty, chosen
 * (name, size, progress) and uploaded. Dropping or browsing several files is refused with a message.
 */
export const FileDropField = ({
  state,
  file,
  progress = 0,
  error,
  disabled,
  onSelect,
  onClear,
  maxBytes = UPLOAD_LIMIT_BYTES,
  accept = UPLOAD_ACCEPT,
  testId = 'file-drop',
}: FileDropFieldProps) => {
  const translate = useTranslate();
  const locale = translate('contacts.locale');
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [localError, setLocalError] = useState<string | null>(null);
  const shown = useFakeProgress(state === 'chosen', progress);

  const pick = (files: FileList | null) => {
    setLocalError(null);
    if (!files || files.length === 0) return;
    if (files.length > 1) return setLocalError(translate('contacts.fileField.single'));
    const f = files[0];
    if (!UPLOAD_EXTENSIONS.test(f.name)) return setLocalError(translate('contacts.fileField.type'));
    if (f.size > maxBytes) return setLocalError(translate('contacts.fileField.tooLarge', { limit: UPLOAD_LIMIT_MB }));
    if (f.size === 0) return setLocalError(translate('contacts.fileField.empty'));
    onSelect(f);
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    if (disabled || state === 'chosen') return;
    pick(e.dataTransfer.files);
  };
  const browse = () => {
    if (!disabled && state !== 'chosen') input.current?.click();
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      browse();
    }
  };

  const message = localError ?? error ?? null;
  const hiddenInput = (
    <input
      ref={input}
      type="file"
      hidden
      accept={accept}
      data-testid={`${testId}-input`}
      onChange={(e) => {
        pick(e.target.files);
        e.target.value = '';
      }}
    />
  );

  return (
    <Box data-testid={testId} data-state={state}>
      {hiddenInput}
      {state === 'empty' ? (
        <Box
          role="button"
          tabIndex={disabled ? -1 : 0}
          aria-disabled={disabled}
          onClick={browse}
          onKeyDown={onKey}
          onDragOver={(e) => {
            e.preventDefault();
            if (!disabled) setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={onDrop}
          data-testid={`${testId}-zone`}
          sx={{
            border: '2px dashed',
            borderColor: message ? 'error.main' : over ? 'primary.main' : '#cfd4dc',
            bgcolor: over ? '#eef2ff' : '#fafbfc',
            borderRadius: '12px',
            px: 3,
            py: 5,
            textAlign: 'center',
            cursor: disabled ? 'default' : 'pointer',
            transition: 'all 150ms ease',
            outline: 'none',
            '&:hover': disabled ? undefined : { borderColor: 'primary.main', bgcolor: '#f5f7ff' },
            '&:focus-visible': { boxShadow: '0 0 0 3px rgba(79,70,229,.25)' },
          }}
        >
          <Box sx={{ width: 56, height: 56, borderRadius: '50%', bgcolor: over ? '#fff' : '#eef2ff', color: 'primary.main', display: 'inline-grid', placeItems: 'center', mb: 1.5 }}>
            <CloudUploadOutlinedIcon />
          </Box>
          <Typography sx={{ fontWeight: 600 }}>
            {translate('contacts.fileField.drop')}{' '}
            <Box component="span" sx={{ color: 'primary.main', textDecoration: 'underline', textUnderlineOffset: 3 }}>
              {translate('contacts.fileField.browse')}
            </Box>
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }}>
            {translate('contacts.fileField.hint', { limit: UPLOAD_LIMIT_MB })}
          </Typography>
        </Box>
      ) : (
        <Box
          sx={{
            display: 'flex',
            alignItems: 'center',
            gap: 2,
            p: 2,
            border: 1,
            borderColor: state === 'uploaded' ? '#abefc6' : 'divider',
            bgcolor: state === 'uploaded' ? '#f6fef9' : '#fff',
            borderRadius: '12px',
          }}
          data-testid={`${testId}-file`}
        >
          <Box
            sx={{
              width: 44,
              height: 44,
              borderRadius: '10px',
              display: 'grid',
              placeItems: 'center',
              flexShrink: 0,
              bgcolor: state === 'uploaded' ? '#dcfae6' : '#eef2ff',
              color: state === 'uploaded' ? 'success.main' : 'primary.main',
            }}
          >
            {state === 'uploaded' ? <CheckCircleRoundedIcon /> : <InsertDriveFileOutlinedIcon />}
          </Box>
          <Box sx={{ flex: 1, minWidth: 0 }}>
            <Box sx={{ display: 'flex', alignItems: 'baseline', gap: 1 }}>
              <Typography sx={{ fontWeight: 600, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} data-testid={`${testId}-name`}>
                {file?.name}
              </Typography>
              <Typography variant="body2" color="text.secondary" sx={{ whiteSpace: 'nowrap' }}>
                {file ? formatBytes(file.size, locale) : ''}
              </Typography>
            </Box>
            {state === 'chosen' ? (
              <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mt: 0.75 }}>
                <LinearProgress variant="determinate" value={shown} sx={{ flex: 1, height: 6, borderRadius: 3 }} />
                <Typography variant="caption" color="text.secondary" sx={{ fontVariantNumeric: 'tabular-nums', minWidth: 34 }}>
                  {Math.round(shown)}%
                </Typography>
              </Box>
            ) : (
              <Typography variant="body2" sx={{ color: 'success.main', fontWeight: 500, mt: 0.25 }}>
                {translate('contacts.fileField.uploaded')}
              </Typography>
            )}
          </Box>
          {state === 'uploaded' && !disabled && (
            <Button size="small" variant="text" onClick={() => input.current?.click()} data-testid={`${testId}-replace`}>
              {translate('contacts.fileField.replace')}
            </Button>
          )}
          {!disabled && (
            <IconButton size="small" onClick={onClear} aria-label={translate(state === 'chosen' ? 'contacts.fileField.cancel' : 'contacts.fileField.remove')}>
              <CloseRoundedIcon fontSize="small" />
            </IconButton>
          )}
        </Box>
      )}
      {message && (
        <Typography variant="body2" color="error" sx={{ mt: 1 }} role="alert" data-testid={`${testId}-error`}>
          {message}
        </Typography>
      )}
    </Box>
  );
};
