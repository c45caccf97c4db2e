import { Box } from '@mui/material';
import { CopyButton } from '../../../ui/CopyButton';

/** A dark code panel with a copy button in its corner (snippets, tokens). */
/** `display` is what shows (a secret masked) when it differs from what the copy button copies. */
export const CodeBlock = ({ code, display, testId, maxHeight = 320, wrap = false }: { code: string; display?: string; testId?: string; maxHeight?: number; wrap?: boolean }) => (
  <Box sx={{ position: 'relative', borderRadius: '8px', bgcolor: '#0f172a', border: '1px solid #1e293b' }}>
    <Box sx={{ position: 'absolute', top: 6, right: 6, zIndex: 1 }}>
      <CopyButton value={code} dark testId={testId ? `${testId}-copy` : undefined} />
    </Box>
    <Box
      component="pre"
      data-testid={testId}
      sx={{
        m: 0,
        p: 2,
        pr: 6,
        maxHeight,
        overflow: 'auto',
        color: '#e2e8f0',
        fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
        fontSize: 12.5,
        lineHeight: 1.65,
        whiteSpace: wrap ? 'pre-wrap' : 'pre',
        wordBreak: wrap ? 'break-all' : 'normal',
      }}
    >
      {display ?? code}
    </Box>
  </Box>
);
