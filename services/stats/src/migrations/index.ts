import { StatsInit1796500000000 } from './1796500000000-init';
import { RollupDayStream1796500000001 } from './1796500000001-rollup-day-stream';
import { CampaignReports1796500000002 } from './1796500000002-campaigns';
import { MessageExports1796500000003 } from './1796500000003-exports';
import { CampaignDayRollups1796500000004 } from './1796500000004-campaign-day';
import { MonthRollups1796500000005 } from './1796500000005-month-rollups';
import { CampaignMonthRollups1796500000006 } from './1796500000006-campaign-month';
import { RollupFillfactor1796500000007 } from './1796500000007-rollup-fillfactor';
import { RollupDayUnkept1796500000008 } from './1796500000008-rollup-day-unkept';
import { RollupDayDrop1796500000009 } from './1796500000009-rollup-day-drop';
import { RollupStatusColumns1796500000010 } from './1796500000010-rollup-status-columns';
import { RollupStreamUnkept1796500000011 } from './1796500000011-rollup-stream-unkept';
import { MessageStateFillfactor1796500000012 } from './1796500000012-message-state-fillfactor';

/** In order; a new migration is appended, never edited once released. */
export const STATS_MIGRATIONS = [StatsInit1796500000000, RollupDayStream1796500000001, CampaignReports1796500000002, MessageExports1796500000003, CampaignDayRollups1796500000004, MonthRollups1796500000005, CampaignMonthRollups1796500000006, RollupFillfactor1796500000007, RollupDayUnkept1796500000008, RollupDayDrop1796500000009, RollupStatusColumns1796500000010, RollupStreamUnkept1796500000011, MessageStateFillfactor1796500000012];
