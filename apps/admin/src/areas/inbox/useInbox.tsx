import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { validToken } from '../../providers/http';
import { useCan } from '../../ui/permissions';
import { useProfile } from '../../ui/useProfile';
import { inboxApi, loadTimelinePage, StillLoadingError } from './api';
import { MESSAGE_PAGE } from './constants';
import { InboxLive, type LiveState } from './live/client';
import { TotalsRefresher } from './live/totals';
import { applyLive, emptyState, firstUnreadKey, mergeEvents, openConversation, TOTALS_EVENTS, upsertConversation, type InboxState, type ListFilter } from './model';
import { inboxRoom, type Agent, type ConversationDto, type ConversationStatus, type Space, type SpaceSwitch, type TimelineEventDto } from './types';

const SPACE_KEY = 'switchboard.inbox.space';

/** How the metadata names an agent: the agent's user id (the server's metadata.agent[] values). */
export const agentRef = (a: Pick<Agent, 'id'>) => a.id;

export interface TimelineState {
  loading: boolean;
  /** The attempt of the "still_loading" retry in progress (1..5), 0 when not retrying. */
  retry: number;
  error: string | null;
  page: number;
  hasMore: boolean;
  loadingMore: boolean;
  /** Where the unread group starts, fixed when the conversation was opened. */
  unreadFrom: string | null;
}

const idleTimeline: TimelineState = { loading: false, retry: 0, error: null, page: 0, hasMore: false, loadingMore: false, unreadFrom: null };

export interface InboxContextValue {
  /** The user's permission (spec 6), with the current space's update_permissions overriding it either way. */
  can: (permission: string) => boolean;
  spaces: Space[];
  spacesLoaded: boolean;
  space: SpaceSwitch | null;
  spaceError: string | null;
  switchSpace: (id: number) => Promise<void>;
  me: number;
  state: InboxState;
  setState: (f: (s: InboxState) => InboxState) => void;
  setFilter: (f: ListFilter) => void;
  listLoading: boolean;
  listError: string | null;
  hasMoreConversations: boolean;
  loadMoreConversations: () => Promise<void>;
  reloadList: () => Promise<void>;
  open: (uuid: string | null) => void;
  active: ConversationDto | null;
  timeline: TimelineState;
  loadOlder: () => Promise<void>;
  reloadTimeline: () => Promise<void>;
  live: LiveState;
  /** Applies a conversation the server answered (after a send, an assignment, a status change). */
  applyConversation: (c: ConversationDto) => void;
  addEvents: (events: TimelineEventDto[]) => void;
  setStatus: (uuids: string[], status: ConversationStatus) => Promise<void>;
}

const Ctx = createContext<InboxContextValue | null>(null);

export const useInbox = (): InboxContextValue => {
  const v = useContext(Ctx);
  if (!v) throw new Error('useInbox outside InboxProvider');
  return v;
};

const errText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * The inbox's one store (spec 4): the spaces and the current one (the first chosen automatically; changing space
 * resets the conversation store; failure sets hasNoData), the list under its filter with keyset paging, the open
 * conversation's timeline (serialised fetches, pages of 30 loaded upward, "still_loading" retried), and the live
 * connection whose events are applied to both.
 */
export const InboxProvider = ({ children, initialConversation, workspace = true }: { children: ReactNode; initialConversation?: string | null; workspace?: boolean }) => {
  const { profile } = useProfile();
  const baseCan = useCan();
  const [spaces, setSpaces] = useState<Space[]>([]);
  const [spacesLoaded, setSpacesLoaded] = useState(false);
  const [space, setSpace] = useState<SpaceSwitch | null>(null);
  const [spaceError, setSpaceError] = useState<string | null>(null);
  const [state, setStateRaw] = useState<InboxState>(() => emptyState(0));
  const stateRef = useRef(state);
  const setState = useCallback((f: (s: InboxState) => InboxState) => {
    setStateRaw((s) => {
      const n = f(s);
      stateRef.current = n;
      return n;
    });
  }, []);
  const [listLoading, setListLoading] = useState(false);
  const [listError, setListError] = useState<string | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [timeline, setTimeline] = useState<TimelineState>(idleTimeline);
  const [live, setLive] = useState<LiveState>('closed');
  const listSeq = useRef(0);
  const timelineAbort = useRef<AbortController | null>(null);
  const timelineChain = useRef<Promise<unknown>>(Promise.resolve());
  const liveRef = useRef<InboxLive | null>(null);
  const spaceRooms = useRef<string[]>([]);

  const me = profile?.id ?? 0;

  // the filter counts are the server's: asked again after live events and changes made here, once per burst
  const spaceIdRef = useRef<number | null>(null);
  const totalsRef = useRef<TotalsRefresher<InboxState['totals']> | null>(null);
  if (!totalsRef.current) {
    totalsRef.current = new TotalsRefresher<InboxState['totals']>(
      async () => {
        const id = spaceIdRef.current;
        if (!id) throw new Error('no space');
        const filter = stateRef.current.filter;
        const totals = await inboxApi.totals(id, filter);
        if (spaceIdRef.current !== id || stateRef.current.filter !== filter) throw new Error('moved on');
        return totals;
      },
      (totals) => setState((s) => ({ ...s, totals })),
    );
  }
  const refreshTotals = useCallback(() => totalsRef.current?.schedule(), []);
  useEffect(() => () => totalsRef.current?.stop(), []);

  useEffect(() => setState((s) => ({ ...s, me })), [me, setState]);

  // the spaces this user may work in; the first (or the remembered one) is chosen automatically
  useEffect(() => {
    let gone = false;
    inboxApi
      .agentSpaces()
      .then((r) => {
        if (gone) return;
        setSpaces(r.items);
        setSpacesLoaded(true);
        const remembered = Number(localStorage.getItem(SPACE_KEY));
        const pick = r.items.find((s) => s.id === remembered) ?? r.items[0];
        if (pick) void switchSpace(pick.id);
      })
      .catch((e) => {
        if (gone) return;
        setSpacesLoaded(true);
        setSpaceError(errText(e));
      });
    return () => {
      gone = true;
    };
    // once per mount
  }, []);

  const loadList = useCallback(
    async (spaceId: number, filter: ListFilter, after: string | null) => {
      const mine = ++listSeq.current;
      setListLoading(true);
      try {
        const page = await inboxApi.conversations(spaceId, filter, after);
        if (mine !== listSeq.current) return;
        setListError(null);
        setCursor(page.next_cursor);
        totalsRef.current?.supersede();
        setState((s) => ({
          ...s,
          totals: page.totals,
          totalsCap: page.totals_cap,
          conversations: after ? [...s.conversations, ...page.items.filter((c) => !s.conversations.some((x) => x.conversation_uuid === c.conversation_uuid))] : page.items,
        }));
      } catch (e) {
        if (mine === listSeq.current) setListError(errText(e));
      } finally {
        if (mine === listSeq.current) setListLoading(false);
      }
    },
    [setState],
  );

  const switchSpace = useCallback(
    async (id: number) => {
      const previous = stateRef.current;
      setSpaceError(null);
      try {
        const sw = await inboxApi.switchSpace(id);
        localStorage.setItem(SPACE_KEY, String(id));
        for (const room of spaceRooms.current) liveRef.current?.leave(room);
        setSpace(sw);
        setTimeline(idleTimeline);
        setState(() => emptyState(previous.me, { kind: 'all' }));
        // the space's room (with INBOX_TEAM_VIEW), the rooms of the agent's teams, and the agent's own room
        const me = previous.me;
        spaceRooms.current = [
          sw.room,
          ...sw.teams.filter((t) => t.agents.some((a) => a === `/api/agents/${me}` || a === String(me))).map((t) => inboxRoom('team', t.id)),
          ...(me ? [inboxRoom('agent', me)] : []),
        ];
        for (const room of spaceRooms.current) liveRef.current?.join(room);
        if (workspace) await loadList(id, { kind: 'all' }, null);
      } catch (e) {
        setSpaceError(errText(e));
      }
    },
    [loadList, setState, workspace],
  );

  const loadTimeline = useCallback(
    (uuid: string) => {
      timelineAbort.current?.abort();
      const abort = new AbortController();
      timelineAbort.current = abort;
      setTimeline({ ...idleTimeline, loading: true });
      // fetches are serialised (spec 4)
      const run = timelineChain.current.catch(() => undefined).then(async () => {
        if (abort.signal.aborted) return;
        try {
          const page = await loadTimelinePage(uuid, 1, { signal: abort.signal, onRetry: (n) => setTimeline((t) => ({ ...t, retry: n })) });
          if (abort.signal.aborted || stateRef.current.activeUuid !== uuid) return;
          const events = mergeEvents([], page.items);
          if (page.conversation) rememberPreview(page.conversation);
          setState((s) => ({ ...(page.conversation ? upsertConversation(s, { ...page.conversation, unread: 0 }) : s), timeline: mergeEvents(s.timeline, events) }));
          setTimeline({ ...idleTimeline, page: 1, hasMore: page.items.length === MESSAGE_PAGE, unreadFrom: firstUnreadKey(events) });
        } catch (e) {
          if (abort.signal.aborted) return;
          setTimeline({ ...idleTimeline, error: e instanceof StillLoadingError ? 'still_loading' : errText(e) });
        }
      });
      timelineChain.current = run;
      return run;
    },
    [setState],
  );

  const open = useCallback(
    (uuid: string | null) => {
      if (uuid && uuid === stateRef.current.activeUuid) return;
      if (stateRef.current.activeUuid) liveRef.current?.leave(inboxRoom('conversation', stateRef.current.activeUuid));
      setState((s) => openConversation(s, uuid));
      if (uuid) {
        liveRef.current?.join(inboxRoom('conversation', uuid));
        void loadTimeline(uuid);
      } else setTimeline(idleTimeline);
    },
    [loadTimeline, setState],
  );

  const loadOlder = useCallback(async () => {
    const uuid = stateRef.current.activeUuid;
    if (!uuid || !timeline.hasMore || timeline.loadingMore) return;
    setTimeline((t) => ({ ...t, loadingMore: true }));
    const nextPage = timeline.page + 1;
    const run = timelineChain.current.catch(() => undefined).then(async () => {
      try {
        const page = await loadTimelinePage(uuid, nextPage);
        if (stateRef.current.activeUuid !== uuid) return;
        setState((s) => ({ ...s, timeline: mergeEvents(s.timeline, page.items) }));
        setTimeline((t) => ({ ...t, page: nextPage, hasMore: page.items.length === MESSAGE_PAGE, loadingMore: false }));
      } catch (e) {
        setTimeline((t) => ({ ...t, loadingMore: false, error: errText(e) }));
      }
    });
    timelineChain.current = run;
    await run;
  }, [setState, timeline.hasMore, timeline.loadingMore, timeline.page]);

  // the live connection: one per screen, rooms follow the space and the open conversation
  useEffect(() => {
    if (!workspace) return;
    const reloadList = () => {
      const id = spaceIdRef.current;
      if (id) void loadList(id, stateRef.current.filter, null);
    };
    const reloadTimeline = () => {
      const uuid = stateRef.current.activeUuid;
      if (uuid) void loadTimelinePage(uuid, 1).then((p) => setState((x) => (x.activeUuid === uuid ? { ...x, timeline: mergeEvents(x.timeline, p.items) } : x)), () => undefined);
    };
    const client = new InboxLive({
      token: () => validToken(),
      onEvents: (events) => {
        setState((s) => events.reduce(applyLive, s));
        if (events.some((e) => TOTALS_EVENTS.has(e.event))) refreshTotals();
      },
      onState: setLive,
      onGap: () => {
        reloadList();
        reloadTimeline();
      },
      // what arrived between the screen's load and the room's first join is not replayed: load again what that room shows
      onJoined: (room) => (room.startsWith('conversation:') ? reloadTimeline() : reloadList()),
    });
    liveRef.current = client;
    client.start();
    return () => {
      client.stop();
      liveRef.current = null;
    };
  }, [loadList, refreshTotals, setState, workspace]);

  spaceIdRef.current = space?.space.id ?? null;

  // a conversation named in the URL opens once the space is there
  const opened = useRef(false);
  useEffect(() => {
    if (!opened.current && space && initialConversation) {
      opened.current = true;
      open(initialConversation);
    }
  }, [space, initialConversation, open]);

  const setFilter = useCallback(
    (filter: ListFilter) => {
      setState((s) => ({ ...s, filter, conversations: [] }));
      if (space) void loadList(space.space.id, filter, null);
    },
    [loadList, setState, space],
  );

  const active = state.conversations.find((c) => c.conversation_uuid === state.activeUuid) ?? activeFallback(state);

  const value: InboxContextValue = {
    can: (permission) => {
      const override = space?.update_permissions && !Array.isArray(space.update_permissions) ? space.update_permissions[permission] : undefined;
      return typeof override === 'boolean' ? override : baseCan(permission);
    },
    spaces,
    spacesLoaded,
    space,
    spaceError,
    switchSpace,
    me,
    state,
    setState,
    setFilter,
    listLoading,
    listError,
    hasMoreConversations: !!cursor,
    loadMoreConversations: async () => {
      if (space && cursor && !listLoading) await loadList(space.space.id, state.filter, cursor);
    },
    reloadList: async () => {
      if (space) await loadList(space.space.id, state.filter, null);
    },
    open,
    active,
    timeline,
    loadOlder,
    reloadTimeline: async () => {
      if (state.activeUuid) await loadTimeline(state.activeUuid);
    },
    live,
    applyConversation: (c) => {
      setState((s) => upsertConversation(s, c));
      refreshTotals();
    },
    addEvents: (events) => setState((s) => ({ ...s, timeline: mergeEvents(s.timeline, events.filter((e) => e.conversation_uuid === s.activeUuid)) })),
    setStatus: async (uuids, status) => {
      const r = await inboxApi.setStatus(uuids, status);
      setState((s) => Object.values(r.conversations ?? {}).reduce(upsertConversation, s));
      refreshTotals();
    },
  };
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
};

/** An opened conversation that is not in the list (from a link, a search): kept from the preview call. */
const previews = new Map<string, ConversationDto>();
export const rememberPreview = (c: ConversationDto) => previews.set(c.conversation_uuid, c);
const activeFallback = (s: InboxState) => (s.activeUuid ? (previews.get(s.activeUuid) ?? null) : null);
