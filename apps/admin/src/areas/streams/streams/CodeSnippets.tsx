import VisibilityOffRoundedIcon from '@mui/icons-material/VisibilityOffRounded';
import VisibilityRoundedIcon from '@mui/icons-material/VisibilityRounded';
import { Alert, Box, Button, Skeleton, Tab, Tabs } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { DOCS_STREAMS_API, StreamType } from '../constants';
import type { CodeSnippets as Snippets } from '../types';
import { CodeBlock } from '../widgets/CodeBlock';
import { errorText } from '../widgets/errors';
import { InfoBox } from '../widgets/InfoBox';

const LANGS = ['curl', 'node', 'python', 'php'] as const;
export type SnippetLang = (typeof LANGS)[number];

/** The one rule for a stream token on screen (decision 0026): its first 6 and last 4 characters, dots between. */
export const maskToken = (t: string) => (t.length <= 10 ? '••••••••' : `${t.slice(0, 6)}${'•'.repeat(Math.min(24, t.length - 10))}${t.slice(-4)}`);

/**
 * Code snippets of a stream (GET /stream/code_snippet): curl, Node, Python and PHP tabs with the real URL and token.
 * The token is masked on screen until revealed, the copy buttons copy the real code: `revealed` comes from the token
 * modal's own show button; without it the snippets have a show button of their own (the stream page's API tab).
 */
export const CodeSnippets = ({ snippets, loading, error, streamType, revealed }: { snippets: Snippets | undefined; loading: boolean; error: unknown; streamType: number; revealed?: boolean }) => {
  const translate = useTranslate();
  const [lang, setLang] = useState<SnippetLang>('curl');
  const [own, setOwn] = useState(false);
  const visible = revealed ?? own;
  const token = snippets?.token ?? '';
  const conceal = visible || !token ? undefined : (code: string) => code.split(token).join(maskToken(token));
  if (error) return <Alert severity="error">{errorText(error, translate)}</Alert>;
  return (
    <Box data-testid="code-snippets">
      <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 1, mb: 1.5 }}>
        <Tabs value={lang} onChange={(_e, v: SnippetLang) => setLang(v)} variant="scrollable" sx={{ flex: 1, minHeight: 40, '& .MuiTab-root': { minHeight: 40, px: 1.5, minWidth: 0 } }}>
          {LANGS.map((l) => (
            <Tab key={l} value={l} label={translate(`streams.snippets.${l}`)} data-testid={`snippet-tab-${l}`} />
          ))}
        </Tabs>
        {revealed === undefined && (
          <Button size="small" color="inherit" startIcon={own ? <VisibilityOffRoundedIcon /> : <VisibilityRoundedIcon />} onClick={() => setOwn((v) => !v)} data-testid="snippet-token-toggle">
            {translate(own ? 'streams.token.hide' : 'streams.token.show')}
          </Button>
        )}
      </Box>
      {loading || !snippets ? <Skeleton variant="rounded" height={200} /> : <CodeBlock code={snippets[lang]} display={conceal?.(snippets[lang])} testId={`snippet-${lang}`} />}
      {snippets && streamType === StreamType.Otp && snippets.verifyCurl && (
        <Box sx={{ mt: 2 }}>
          <Box sx={{ fontWeight: 600, fontSize: 14, mb: 1 }}>{translate('streams.snippets.verify')}</Box>
          <CodeBlock code={snippets.verifyCurl} display={conceal?.(snippets.verifyCurl)} testId="snippet-verify" />
        </Box>
      )}
      <Box sx={{ mt: 2 }}>
        <InfoBox title={translate('streams.info.apiTitle')} text={translate('streams.info.apiText')} cta={translate('streams.info.apiDocs')} href={DOCS_STREAMS_API} />
      </Box>
    </Box>
  );
};
