import AddCommentRoundedIcon from '@mui/icons-material/AddCommentRounded';
import ArrowBackRoundedIcon from '@mui/icons-material/ArrowBackRounded';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import ForumRoundedIcon from '@mui/icons-material/ForumRounded';
import { Alert, Box, Button, Drawer, IconButton, Tooltip, Typography, useMediaQuery, useTheme } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { useTranslate } from 'react-admin';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { useProfile } from '../../ui/useProfile';
import { onboardingDone } from './OnboardingPage';
import { inboxApi } from './api';
import { P } from './constants';
import { Composer } from './Composer';
import { ContactPanel } from './ContactPanel';
import { ContactAvatar, ConversationList } from './ConversationList';
import { contactTitle, STATUS_COLOUR } from './format';
import { InboxFrame } from './InboxFrame';
import { NewConversationDialog, type NewConversationPreset } from './NewConversationDialog';
import { Timeline } from './Timeline';
import { InboxProvider, useInbox } from './useInbox';

/** A dialer's contact key (a uuid the integrations service issued for the caller). */
const DIALER_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isTyping = (t: EventTarget | null) => {
  const el = t as HTMLElement | null;
  return !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.isContentEditable || el.getAttribute('role') === 'combobox');
};

const ConversationHeader = ({ onBack, onInfo, narrow }: { onBack: () => void; onInfo: () => void; narrow: boolean }) => {
  const translate = useTranslate();
  const { active, can } = useInbox();
  if (!active) return null;
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.25, px: 1.5, py: 1, borderBottom: 1, borderColor: 'divider', bgcolor: '#fff', minHeight: 56 }} data-testid="conversation-header">
      {narrow && (
        <IconButton onClick={onBack} aria-label={translate('inbox.actions.back')} data-testid="conversation-back">
          <ArrowBackRoundedIcon />
        </IconButton>
      )}
      <ContactAvatar name={active.contact_name} phone={active.contact_phone_number} size={34} />
      <Box sx={{ minWidth: 0, flex: 1 }}>
        <Typography noWrap sx={{ fontWeight: 700, fontSize: 15 }} data-testid="conversation-title">
          {contactTitle(active, can(P.ShowPhone))}
        </Typography>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.75 }}>
          <Box sx={{ width: 7, height: 7, borderRadius: '50%', bgcolor: STATUS_COLOUR[active.conversation_status] }} />
          <Typography variant="caption" color="text.secondary" data-testid="conversation-status">
            {translate(`inbox.status.${active.conversation_status}`)}
          </Typography>
        </Box>
      </Box>
      <Tooltip title={translate('inbox.contact.details')}>
        <IconButton onClick={onInfo} aria-label={translate('inbox.contact.details')} data-testid="toggle-contact-panel">
          <InfoOutlinedIcon />
        </IconButton>
      </Tooltip>
    </Box>
  );
};

const LiveDot = () => {
  const translate = useTranslate();
  const { live } = useInbox();
  const colour = live === 'open' ? '#16a34a' : live === 'closed' ? '#98a2b3' : '#f59e0b';
  return (
    <Tooltip title={translate(`inbox.live.${live}`)}>
      <Box data-testid="live-state" data-state={live} sx={{ display: 'flex', alignItems: 'center', gap: 0.75, fontSize: 12, color: 'text.secondary' }}>
        <Box sx={{ width: 8, height: 8, borderRadius: '50%', bgcolor: colour, boxShadow: live === 'open' ? '0 0 0 3px #dcfce7' : 'none' }} />
        <Box component="span" sx={{ display: { xs: 'none', md: 'inline' } }}>{translate(`inbox.live.${live}`)}</Box>
      </Box>
    </Tooltip>
  );
};

/**
 * The working screen: the list, the conversation (header, timeline, composer) and the contact panel side by side;
 * on a narrow screen (390 px) one pane at a time, the contact panel as a drawer. Shortcuts: "/" search, "r" reply,
 * "n" new conversation, Escape back to the list.
 */
const Workspace = () => {
  const translate = useTranslate();
  const theme = useTheme();
  const narrow = useMediaQuery(theme.breakpoints.down('md'));
  const wide = useMediaQuery('(min-width:1280px)');
  const { active, open, space, spaceError, spacesLoaded, spaces, state, can } = useInbox();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const { profile } = useProfile();
  const [panel, setPanel] = useState(true);
  const [drawer, setDrawer] = useState(false);
  const [newConv, setNewConv] = useState<NewConversationPreset | null>(null);
  const composerRef = useRef<HTMLTextAreaElement | null>(null);
  const searchRef = useRef<HTMLInputElement | null>(null);
  const listRef = useRef<HTMLDivElement | null>(null);

  // spec 2: action=newDialerConv&contact_key=... opens a new conversation with that contact on load
  useEffect(() => {
    if (params.get('action') === 'newDialerConv' && space) {
      const key = params.get('contact_key') ?? '';
      params.delete('action');
      params.delete('contact_key');
      setParams(params, { replace: true });
      if (!DIALER_KEY.test(key)) {
        setNewConv({ phone: key.length > 30 ? '' : key, contactKey: key });
        return;
      }
      // the dialer's key names its caller: the dialog opens with the caller's number filled in (one click)
      inboxApi
        .dialerContact(key)
        .then((c) => setNewConv({ phone: c.phone, contactKey: key }))
        .catch(() => setNewConv({ phone: '', contactKey: key }));
    }
  }, [params, setParams, space]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.metaKey || e.ctrlKey || e.altKey) return;
      if (isTyping(e.target)) return;
      if (e.key === '/') {
        e.preventDefault();
        searchRef.current?.focus();
      } else if (e.key === 'r' && active) {
        e.preventDefault();
        composerRef.current?.focus();
      } else if (e.key === 'n' && can(P.NewConversation)) {
        e.preventDefault();
        setNewConv({});
      } else if (e.key === 'Escape' && active && narrow) {
        open(null);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active, can, narrow, open]);

  // a new inbox: the welcome and onboarding (spec 2) until it is done
  const noSpace = spacesLoaded && !spaceError && spaces.length === 0;
  useEffect(() => {
    if (noSpace && can(P.Admin) && !onboardingDone(profile?.preferences)) navigate('/inbox/onboarding', { replace: true });
  }, [noSpace, can, profile?.preferences, navigate]);

  if (noSpace) {
    return (
      <Box sx={{ p: 4, textAlign: 'center' }} data-testid="inbox-no-space">
        <ForumRoundedIcon sx={{ fontSize: 48, color: 'text.disabled' }} />
        <Typography variant="h6" sx={{ mt: 1 }}>{translate('inbox.noSpace.title')}</Typography>
        <Typography color="text.secondary">{translate('inbox.noSpace.text')}</Typography>
        {can(P.Admin) && (
          <Button variant="contained" sx={{ mt: 2 }} onClick={() => navigate('/inbox/onboarding')} data-testid="open-onboarding">
            {translate('inbox.sections.onboarding')}
          </Button>
        )}
      </Box>
    );
  }

  const showList = !narrow || !active;
  const showConversation = !narrow || !!active;

  return (
    <Box sx={{ display: 'flex', flex: 1, minHeight: 0, bgcolor: '#fff' }} data-testid="inbox-workspace">
      {spaceError && <Alert severity="error" sx={{ m: 2 }} data-testid="inbox-space-error">{spaceError}</Alert>}
      {showList && (
        <Box ref={listRef} sx={{ width: { xs: '100%', md: 340 }, flex: 'none', borderRight: { md: 1 }, borderColor: { md: 'divider' }, display: 'flex', flexDirection: 'column', minHeight: 0 }}>
          <ConversationList searchRef={searchRef} />
          {can(P.NewConversation) && (
            <Box sx={{ p: 1.25, borderTop: 1, borderColor: 'divider' }}>
              <Button fullWidth variant="contained" startIcon={<AddCommentRoundedIcon />} onClick={() => setNewConv({})} data-testid="new-conversation" sx={{ borderRadius: 5 }}>
                {translate('inbox.newConversation.button')}
              </Button>
            </Box>
          )}
        </Box>
      )}
      {showConversation && (
        <Box sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column', minHeight: 0 }} data-testid="conversation-pane">
          {active ? (
            <>
              <ConversationHeader narrow={narrow} onBack={() => open(null)} onInfo={() => (wide ? setPanel((p) => !p) : setDrawer(true))} />
              <Timeline />
              <Composer inputRef={composerRef} onOfferTemplate={() => setNewConv({ phone: active.contact_phone_number ?? '', stream: active.stream_uuid ?? undefined })} />
            </>
          ) : (
            <Box sx={{ flex: 1, display: 'grid', placeItems: 'center', bgcolor: '#f7f8fa' }} data-testid="no-conversation">
              <Box sx={{ textAlign: 'center', color: 'text.secondary', px: 3 }}>
                <ForumRoundedIcon sx={{ fontSize: 56, color: '#c7d2fe' }} />
                <Typography variant="h6" sx={{ color: 'text.primary', mt: 1 }}>
                  {translate('inbox.empty.title', { smart_count: state.conversations.length })}
                </Typography>
                <Typography variant="body2">{translate('inbox.empty.text')}</Typography>
                <Typography variant="caption" sx={{ display: 'block', mt: 2 }}>{translate('inbox.empty.keys')}</Typography>
              </Box>
            </Box>
          )}
        </Box>
      )}
      {active && wide && panel && (
        <Box sx={{ width: 320, flex: 'none', borderLeft: 1, borderColor: 'divider', minHeight: 0 }}>
          <ContactPanel />
        </Box>
      )}
      {active && !wide && (
        <Drawer anchor="right" open={drawer} onClose={() => setDrawer(false)} PaperProps={{ sx: { width: { xs: '100%', sm: 360 } } }}>
          <Box sx={{ display: 'flex', justifyContent: 'flex-end', p: 0.5 }}>
            <IconButton onClick={() => setDrawer(false)} aria-label={translate('ra.action.close')}>
              <ArrowBackRoundedIcon />
            </IconButton>
          </Box>
          <ContactPanel />
        </Drawer>
      )}
      <NewConversationDialog open={!!newConv} preset={newConv} onClose={() => setNewConv(null)} />
    </Box>
  );
};

/** /inbox and /inbox/conversation/:uuid: the frame (space switcher, sections) around the working screen. */
export const InboxPage = () => {
  const [params] = useSearchParams();
  return (
    <InboxProvider initialConversation={params.get('conversation')}>
      <InboxFrame section="main" right={<LiveDot />}>
        <Workspace />
      </InboxFrame>
    </InboxProvider>
  );
};
