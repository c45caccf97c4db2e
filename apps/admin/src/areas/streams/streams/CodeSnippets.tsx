import { Alert, Box, Skeleton, Tab, Tabs } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { DOCS_STREAMS_API, StreamType } from '../constants';
import type { CodeSnippets as Snippets } from '../types';
import { CodeBlock } from '../widgets/CodeBlock';
import { errorText } from '../widgets/errors';
import { InfoBox } from '../widgets/InfoBox';

const LANGS = ['curl', 'node', 'python', 'php'] as const;
export type SnippetLang = (typeof LANGS)[number];

/** Code snippets of a stream (GET /stream/code_snippet): curl, Node, Python and PHP tabs with the real URL and token. */
export const CodeSnippets = ({ snippets, loading, error, streamType, conceal }: { snippets: Snippets | undefined; loading: boolean; error: unknown; streamType: number; conceal?: (code: string) => string }) => {
  const translate = useTranslate();
  const [lang, setLang] = useState<SnippetLang>('curl');
  if (error) return <Alert severity="error">{errorText(error, translate)}</Alert>;
  return (
    <Box data-testid="code-snippets">
      <Tabs value={lang} onChange={(_e, v: SnippetLang) => setLang(v)} sx={{ minHeight: 40, mb: 1.5, '& .MuiTab-root': { minHeight: 40, px: 1.5, minWidth: 0 } }}>
        {LANGS.map((l) => (
          <Tab key={l} value={l} label={translate(`streams.snippets.${l}`)} data-testid={`snippet-tab-${l}`} />
        ))}
      </Tabs>
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
