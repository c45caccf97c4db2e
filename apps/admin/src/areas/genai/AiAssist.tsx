import AutoAwesomeRoundedIcon from '@mui/icons-material/AutoAwesomeRounded';
import { Alert, Box, Button, CircularProgress, Dialog, DialogActions, DialogContent, DialogTitle, Divider, ListSubheader, Menu, MenuItem, TextField, Tooltip } from '@mui/material';
import StopRoundedIcon from '@mui/icons-material/StopRounded';
import { useRef, useState } from 'react';
import { useTranslate } from 'react-admin';
import { GENAI_LIMITS, GENAI_TONES } from '@switchboard/contracts/src/genai';
import { aiErrorKey, genaiApi, type GenAiTone, type OnText } from './api';

/**
 * The inbox composer's AI menu (docs/decisions/0041): rephrase the draft in a tone, write a message from an idea, or
 * answer toward one of the space's conversation goals. The answer streams into the draft as the provider writes it
 * (docs/decisions/0050); Stop ends it there (the provider's request is aborted) and keeps the text so far. A failure
 * puts the draft back. The agent still sends it.
 */
export const AiAssist = ({ text, conversationUuid, spaceId, goals: spaceGoals, disabled, onText }: { text: string; conversationUuid: string; spaceId: number | null; goals: Array<{ id: number; name: string }>; disabled?: boolean; onText: (t: string) => void }) => {
  const translate = useTranslate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  // the goals this agent may aim at (GET genai/team_goals); the space's list until they are known
  const [teamGoals, setTeamGoals] = useState<{ space: number; items: Array<{ id: number; name: string }> } | null>(null);
  const goals = teamGoals && teamGoals.space === spaceId ? teamGoals.items : spaceGoals;
  const open = (el: HTMLElement) => {
    setAnchor(el);
    if (spaceId !== null) genaiApi.teamGoals(spaceId).then((r) => setTeamGoals({ space: spaceId, items: r.items }), () => undefined);
  };
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [ideaOpen, setIdeaOpen] = useState(false);
  const [idea, setIdea] = useState('');
  const [maxLength, setMaxLength] = useState(160);

  const stopper = useRef<AbortController | null>(null);

  const run = async (call: (onText: OnText, signal: AbortSignal) => Promise<{ text: string }>) => {
    setAnchor(null);
    setBusy(true);
    setError(null);
    const draft = text;
    const abort = new AbortController();
    stopper.current = abort;
    try {
      onText((await call(onText, abort.signal)).text);
    } catch (e) {
      // stopped by the agent: the text so far stays
      if (!abort.signal.aborted) {
        onText(draft);
        setError(translate(aiErrorKey(e)));
      }
    } finally {
      stopper.current = null;
      setBusy(false);
    }
  };

  return (
    <>
      {busy ? (
        <Tooltip title={translate('genai.assist.stopHint')}>
          <Button size="small" color="warning" onClick={() => stopper.current?.abort()} data-testid="composer-ai-stop" aria-busy startIcon={<StopRoundedIcon fontSize="small" />} sx={{ minWidth: 0, borderRadius: 5, textTransform: 'none', fontWeight: 600 }}>
            <CircularProgress size={12} sx={{ mr: 0.75 }} aria-label={translate('genai.assist.working')} />
            {translate('genai.assist.stop')}
          </Button>
        </Tooltip>
      ) : (
        <Tooltip title={translate('genai.assist.button')}>
          <span>
            <Button size="small" onClick={(e) => open(e.currentTarget)} disabled={disabled} data-testid="composer-ai" startIcon={<AutoAwesomeRoundedIcon fontSize="small" />} sx={{ minWidth: 0, borderRadius: 5, textTransform: 'none', fontWeight: 600 }}>
              {translate('genai.assist.button')}
            </Button>
          </span>
        </Tooltip>
      )}
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)} anchorOrigin={{ vertical: 'top', horizontal: 'left' }} transformOrigin={{ vertical: 'bottom', horizontal: 'left' }} data-testid="ai-menu">
        <ListSubheader sx={{ lineHeight: '32px' }}>{translate('genai.assist.rephrase')}</ListSubheader>
        {GENAI_TONES.map((tone) => (
          <MenuItem key={tone} disabled={!text.trim()} onClick={() => void run((on, signal) => genaiApi.rephrase(text, tone as GenAiTone, spaceId, on, signal))} data-testid={`ai-rephrase-${tone}`}>
            {translate(`genai.assist.tone.${tone}`)}
          </MenuItem>
        ))}
        {!text.trim() && <MenuItem disabled sx={{ fontSize: 12 }}>{translate('genai.assist.needText')}</MenuItem>}
        <Divider />
        <MenuItem onClick={() => { setAnchor(null); setIdeaOpen(true); }} data-testid="ai-generate">{translate('genai.assist.generate')}</MenuItem>
        <Divider />
        <ListSubheader sx={{ lineHeight: '32px' }}>{translate('genai.assist.respond')}</ListSubheader>
        {goals.length === 0 && <MenuItem disabled>{translate('genai.assist.noGoals')}</MenuItem>}
        {goals.map((g) => (
          <MenuItem key={g.id} onClick={() => void run((on, signal) => genaiApi.respond(conversationUuid, g.id, on, signal))} data-testid={`ai-respond-${g.id}`}>
            {g.name}
          </MenuItem>
        ))}
      </Menu>
      <Dialog open={ideaOpen} onClose={() => setIdeaOpen(false)} fullWidth maxWidth="sm">
        <DialogTitle>{translate('genai.assist.generate')}</DialogTitle>
        <DialogContent>
          <Box sx={{ display: 'grid', gap: 2, pt: 1 }}>
            <TextField autoFocus multiline minRows={2} label={translate('genai.assist.idea')} value={idea} onChange={(e) => setIdea(e.target.value)} slotProps={{ htmlInput: { maxLength: GENAI_LIMITS.text, 'data-testid': 'ai-idea' } }} />
            <TextField type="number" label={translate('genai.assist.maxLength')} value={maxLength} onChange={(e) => setMaxLength(Math.max(10, Math.min(GENAI_LIMITS.maxLength, Number(e.target.value) || 160)))} slotProps={{ htmlInput: { min: 10, max: GENAI_LIMITS.maxLength, 'data-testid': 'ai-max-length' } }} />
          </Box>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setIdeaOpen(false)}>{translate('genai.assist.cancel')}</Button>
          <Button variant="contained" disabled={!idea.trim()} onClick={() => { setIdeaOpen(false); void run((on, signal) => genaiApi.generate(idea, maxLength, spaceId, on, signal)); }} data-testid="ai-idea-write">
            {translate('genai.assist.write')}
          </Button>
        </DialogActions>
      </Dialog>
      {error && (
        <Alert severity="error" onClose={() => setError(null)} data-testid="ai-error" sx={{ position: 'absolute', bottom: '100%', left: 12, right: 12, mb: 1, zIndex: 2 }}>
          {error}
        </Alert>
      )}
    </>
  );
};

/** The campaign message step's AI spintax: the variant's text rewritten as spintax the campaigns parser reads. */
export const AiSpintaxButton = ({ text, disabled, onText }: { text: string; disabled?: boolean; onText: (t: string) => void }) => {
  const translate = useTranslate();
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ severity: 'success' | 'error'; text: string } | null>(null);
  const run = async () => {
    setBusy(true);
    setNotice(null);
    try {
      onText((await genaiApi.spintax(text)).text);
      setNotice({ severity: 'success', text: translate('genai.spintax.done') });
    } catch (e) {
      setNotice({ severity: 'error', text: translate(aiErrorKey(e)) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button size="small" startIcon={busy ? <CircularProgress size={14} /> : <AutoAwesomeRoundedIcon />} onClick={() => void run()} disabled={disabled || busy || !text.trim()} data-testid="variant-ai-spintax">
        {translate('genai.spintax.button')}
      </Button>
      {notice && (
        <Alert severity={notice.severity} onClose={() => setNotice(null)} sx={{ width: '100%', py: 0 }} data-testid={`variant-ai-spintax-${notice.severity}`}>
          {notice.text}
        </Alert>
      )}
    </>
  );
};
