import ArrowBackRoundedIcon from '@mui/icons-material/ArrowBackRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import HealthAndSafetyRoundedIcon from '@mui/icons-material/HealthAndSafetyRounded';
import SendRoundedIcon from '@mui/icons-material/SendRounded';
import StarRoundedIcon from '@mui/icons-material/StarRounded';
import TelegramIcon from '@mui/icons-material/Telegram';
import VpnKeyRoundedIcon from '@mui/icons-material/VpnKeyRounded';
import { Alert, Box, Button, Chip, Link, Paper, Skeleton, Tab, Tabs, Typography } from '@mui/material';
import { useState, type ReactNode } from 'react';
import { Title, useTranslate } from 'react-admin';
import { Link as RouterLink, useNavigate, useParams } from 'react-router-dom';
import { useProfile } from '../../../ui/useProfile';
import { streamsApi } from '../api';
import { OTP_GENERATOR_KEY, P, StreamStatus, StreamType, isSmsType, type TimeSlice } from '../constants';
import { StreamStatusChip, TypeTile, mono, useDateFormat, useTypeLabel } from '../labels';
import type { Stream } from '../types';
import { CopyButton } from '../../../ui/CopyButton';
import { errorText } from '../widgets/errors';
import { GatedButton } from '../../../ui/Gated';
import { DetailRow } from '../widgets/InfoBox';
import { useCan } from '../../../ui/permissions';
import { useApi } from '../../../ui/useApi';
import { useInterval } from '../../../ui/useInterval';
import { CodeSnippets } from './CodeSnippets';
import { SliceToggle, StatsCards } from './StatsCards';
import { useStreamActions } from './StreamActions';
import { SenderStateAlert, useSenderStates } from '../widgets/SenderState';
import { StreamEventsPanel } from './StreamEventsPanel';
import { StreamMessagesPanel } from './StreamMessagesPanel';
import { pageRoot } from '../widgets/page';

const TABS = ['overview', 'messages', 'events', 'api'] as const;
type TabKey = (typeof TABS)[number];

const Section = ({ title, children, action }: { title: string; children: ReactNode; action?: ReactNode }) => (
  <Paper sx={{ p: 2.5 }}>
    <Box sx={{ display: 'flex', alignItems: 'center', mb: 1 }}>
      <Typography sx={{ fontWeight: 700, flex: 1 }}>{title}</Typography>
      {action}
    </Box>
    {children}
  </Paper>
);

/** The settings of a stream, by type, as label/value rows. */
const Settings = ({ s }: { s: Stream }) => {
  const translate = useTranslate();
  const date = useDateFormat();
  const p = s.params;
  const minutes = (sec: number) => translate('streams.otp.minutes', { smart_count: sec / 60 });
  return (
    <Box>
      <DetailRow label={translate('streams.detail.uid')}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5 }}>
          <Box component="span" sx={{ ...mono, fontSize: 13 }}>{s.streamUid}</Box>
          <CopyButton value={s.streamUid} />
        </Box>
      </DetailRow>
      {isSmsType(s.streamType) && <DetailRow label={translate('streams.form.sender')} testId="detail-sender">{s.sender ? <Box component="span" sx={mono}>{s.sender}</Box> : translate('streams.detail.noSender')}</DetailRow>}
      {s.streamType === StreamType.Otp && (
        <>
          <DetailRow label={translate('streams.otp.generator')}>{translate(`streams.otp.generators.${OTP_GENERATOR_KEY[p.code_generator ?? 2]}`)}</DetailRow>
          <DetailRow label={translate('streams.otp.length')}>{translate('streams.otp.digits', { smart_count: p.code_length ?? 5 })}</DetailRow>
          <DetailRow label={translate('streams.otp.ttl')}>{translate('streams.detail.seconds', { smart_count: p.ttl ?? 300 })}</DetailRow>
          <DetailRow label={translate('streams.detail.attempts')}>{translate('streams.detail.attemptsValue', { attempts: p.max_attempts ?? 10, ip: p.max_attempts_ip ?? 10, failures: p.max_failures ?? 10 })}</DetailRow>
          <DetailRow label={translate('streams.otp.coolDown')}>{minutes(p.cool_down_time ?? 1800)}</DetailRow>
          <DetailRow label={translate('streams.otp.message')}>{p.otp_message}</DetailRow>
        </>
      )}
      {s.streamType === StreamType.WhatsApp && (
        <>
          <DetailRow label={translate('streams.provider.businessId')}><Box component="span" sx={mono}>{p.business_id ?? '—'}</Box></DetailRow>
          <DetailRow label={translate('streams.provider.phoneNumberId')}><Box component="span" sx={mono}>{p.phone_number ?? '—'}</Box></DetailRow>
          <DetailRow label={translate('streams.provider.accessToken')}><Box component="span" sx={mono}>{p.auth_token ?? translate('streams.detail.notSet')}</Box></DetailRow>
        </>
      )}
      {s.streamType === StreamType.TelegramBot && <DetailRow label={translate('streams.provider.botToken')}><Box component="span" sx={mono}>{p.auth_token ?? translate('streams.detail.notSet')}</Box></DetailRow>}
      {s.streamType === StreamType.TelegramPrivate && (
        <>
          <DetailRow label={translate('streams.provider.accountPhone')}>{p.phone_number ?? '—'}</DetailRow>
          <DetailRow label={translate('streams.detail.telegramLogin')}>{p.otp_code ? translate('streams.detail.telegramLoggedIn') : translate('streams.detail.telegramPending')}</DetailRow>
        </>
      )}
      <DetailRow label={translate('streams.form.ipAcl')}>
        {s.ipAcl.length ? (
          <Box sx={{ display: 'flex', gap: 0.5, flexWrap: 'wrap' }}>
            {s.ipAcl.map((ip) => <Chip key={ip} size="small" label={ip} sx={{ ...mono, fontSize: 12, height: 22 }} />)}
            {p.check_ip_acl === 0 && <Chip size="small" color="warning" variant="outlined" label={translate('streams.detail.notEnforced')} sx={{ height: 22 }} />}
          </Box>
        ) : (
          translate('streams.detail.anyAddress')
        )}
      </DetailRow>
      <DetailRow label={translate('streams.form.tps')}>{p.tps ? translate('streams.detail.tpsValue', { tps: p.tps }) : translate('streams.detail.accountTps')}</DetailRow>
      <DetailRow label={translate('streams.form.enableSending')}>{translate(s.enableSending ? 'streams.detail.yes' : 'streams.detail.no')}</DetailRow>
      <DetailRow label={translate('streams.detail.created')}>{date(s.createdAt)}</DetailRow>
      <DetailRow label={translate('streams.list.columns.lastSent')} testId="detail-last-sent">{s.lastSentTime ? date(s.lastSentTime) : translate('streams.list.never')}</DetailRow>
    </Box>
  );
};

/** /streams/:id: a stream's figures, settings, messages, events and API snippets, with its actions. */
export const StreamDetailPage = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const typeLabel = useTypeLabel();
  const can = useCan();
  const { profile } = useProfile();
  const { id } = useParams();
  const [tab, setTab] = useState<TabKey>('overview');
  const [slice, setSlice] = useState<TimeSlice>('day');
  const [sent, setSent] = useState(0);
  const stream = useApi(() => streamsApi.stream(id ?? ''), [id], can(P.StreamView));
  const s = stream.data;
  const stats = useApi(() => streamsApi.statistics(slice, s?.id), [slice, s?.id], !!s);
  const senderStates = useSenderStates();
  // the stream too: its status and "Last sent" follow the messages sent from elsewhere (the list, the API), like the figures
  useInterval(
    () => {
      void stats.refresh();
      void stream.refresh();
    },
    5000,
    !!s && tab === 'overview',
    true,
  );
  const snippets = useApi(() => streamsApi.snippets(s?.id as number), [s?.id], !!s && tab === 'api' && can(P.StreamToken));
  const actions = useStreamActions((action) => {
    if (action === 'delete') navigate('/streams');
    else void stream.refresh();
    void senderStates.reload();
    if (action === 'send') {
      setSent((n) => n + 1);
      void stats.refresh();
    }
  });

  const back = (
    <Link component={RouterLink} to="/streams" underline="hover" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, mb: 1.5, fontSize: 14, fontWeight: 600 }}>
      <ArrowBackRoundedIcon sx={{ fontSize: 18 }} />
      {translate('streams.list.title')}
    </Link>
  );

  if (stream.error) {
    return (
      <Box>
        {back}
        <Alert severity="error">{errorText(stream.error, translate)}</Alert>
      </Box>
    );
  }
  if (!s) {
    return (
      <Box sx={{ maxWidth: 1280 }}>
        {back}
        <Skeleton variant="rounded" height={64} sx={{ mb: 3 }} />
        <Skeleton variant="rounded" height={120} />
      </Box>
    );
  }
  const sendable = s.status === StreamStatus.Ready || s.status === StreamStatus.Sending;
  const telegramPending = s.streamType === StreamType.TelegramPrivate && s.status === StreamStatus.Draft && !!s.params.phone_number;

  return (
    <Box sx={pageRoot(1280)} data-testid="stream-detail-page">
      <Title title={s.name} />
      {back}
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap', mb: 2 }}>
        <TypeTile type={s.streamType} size={48} />
        <Box sx={{ flex: 1, minWidth: 240 }}>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
            <Typography variant="h5" component="h1" data-testid="page-title">{s.name}</Typography>
            <StreamStatusChip status={s.status} />
            {s.isDefault && <Chip size="small" icon={<StarRoundedIcon sx={{ color: '#f59e0b !important' }} />} label={translate('streams.list.default')} variant="outlined" />}
          </Box>
          <Typography variant="body2" color="text.secondary">
            {typeLabel(s.streamType)}
            {s.description ? ` · ${s.description}` : ''}
          </Typography>
        </Box>
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
          <Button variant="outlined" color="inherit" startIcon={<HealthAndSafetyRoundedIcon />} onClick={() => actions.open('diagnostics', s)} sx={{ borderColor: 'divider' }} data-testid="detail-diagnostics">
            {translate('streams.list.diagnostics')}
          </Button>
          <GatedButton permission={P.StreamToken} variant="outlined" color="inherit" startIcon={<VpnKeyRoundedIcon />} onClick={() => actions.open('token', s)} sx={{ borderColor: 'divider' }} data-testid="detail-token">
            {translate('streams.list.token')}
          </GatedButton>
          <GatedButton permission={P.StreamAddEdit} variant="outlined" color="inherit" startIcon={<EditRoundedIcon />} onClick={() => actions.open('edit', s)} sx={{ borderColor: 'divider' }} data-testid="detail-edit">
            {translate('streams.list.edit')}
          </GatedButton>
          <GatedButton permission={P.StreamTester} variant="contained" startIcon={<SendRoundedIcon />} onClick={() => actions.open('send', s)} disabled={!sendable} data-testid="detail-send">
            {translate('streams.list.sendTest')}
          </GatedButton>
        </Box>
      </Box>
      {telegramPending && (
        <Alert severity="info" icon={<TelegramIcon />} sx={{ mb: 2 }} action={<Button color="inherit" size="small" onClick={() => actions.open('otp', s)} data-testid="detail-telegram-code">{translate('streams.telegramAuth.enterCode')}</Button>}>
          {translate('streams.telegramAuth.pending', { phone: s.params.phone_number ?? '' })}
        </Alert>
      )}
      <SenderStateAlert state={senderStates.stateOf(s)} sender={s.sender} />
      {!sendable && !telegramPending && (
        <Alert severity="warning" sx={{ mb: 2 }} action={<Button color="inherit" size="small" onClick={() => actions.open('diagnostics', s)}>{translate('streams.list.diagnostics')}</Button>}>
          {translate('streams.detail.notSendable')}
        </Alert>
      )}
      <Tabs value={tab} onChange={(_e, v: TabKey) => setTab(v)} sx={{ mb: 2.5, borderBottom: 1, borderColor: 'divider' }}>
        {TABS.map((t) => (
          <Tab key={t} value={t} label={translate(`streams.detail.tabs.${t}`)} data-testid={`detail-tab-${t}`} disabled={t === 'api' && !can(P.StreamToken)} />
        ))}
      </Tabs>
      {tab === 'overview' && (
        <Box>
          <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', gap: 1, mb: 1.5 }}>
            <Typography sx={{ fontWeight: 700 }}>{translate('streams.stats.title')}</Typography>
            <SliceToggle value={slice} onChange={setSlice} />
          </Box>
          <StatsCards stats={stats.data} loading={stats.loading} currency={profile?.customer?.currency} showBar />
          <Box sx={{ mt: 2.5 }}>
            <Section title={translate('streams.detail.settings')}>
              <Settings s={s} />
            </Section>
          </Box>
        </Box>
      )}
      {tab === 'messages' && <StreamMessagesPanel streamId={s.id} version={sent} />}
      {tab === 'events' && <StreamEventsPanel streamId={s.id} />}
      {tab === 'api' && (
        <Section title={translate('streams.snippets.title')} action={<Button size="small" startIcon={<VpnKeyRoundedIcon />} onClick={() => actions.open('token', s)}>{translate('streams.token.title')}</Button>}>
          <CodeSnippets snippets={snippets.data} loading={snippets.loading} error={snippets.error} streamType={s.streamType} />
        </Section>
      )}
      {actions.modals}
    </Box>
  );
};
