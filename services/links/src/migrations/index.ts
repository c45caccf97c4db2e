import { LinksInit1796600000000 } from './1796600000000-init';
import { DomainLimitState1796600000001 } from './1796600000001-domain-limit-state';
import { LinksAndClicks1796700000000 } from './1796700000000-links-and-clicks';
import { DomainClicks1796700000001 } from './1796700000001-domain-clicks';
import { LinksCodeBlocks1796700000002 } from './1796700000002-code-blocks';
import { DomainUsageEvents1796700000003 } from './1796700000003-domain-usage-events';
import { ClickRollupsFillfactor1796700000004 } from './1796700000004-click-rollups-fillfactor';
import { RecipientClickFirstOnly1796700000010 } from './1796700000010-recipient-click-first-only';
import { LinkRanges1797900000005 } from './1797900000005-link-ranges';
import { LinkBatchRecipe1798100000000 } from './1798100000000-link-batch-recipe';
import { LinkReservation1798300000134 } from './1798300000134-link-reservation';
import { LinkRangeRowType1798500000141 } from './1798500000141-link-range-row-type';

/** In order; a new migration is appended, never edited once released. */
export const LINKS_MIGRATIONS = [
  LinksInit1796600000000,
  DomainLimitState1796600000001,
  LinksAndClicks1796700000000,
  DomainClicks1796700000001,
  LinksCodeBlocks1796700000002,
  DomainUsageEvents1796700000003,
  ClickRollupsFillfactor1796700000004,
  RecipientClickFirstOnly1796700000010,
  LinkRanges1797900000005,
  LinkBatchRecipe1798100000000,
  LinkReservation1798300000134,
  LinkRangeRowType1798500000141,
];
