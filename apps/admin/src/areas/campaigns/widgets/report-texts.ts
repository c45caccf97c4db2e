import { variablesIn } from '../rules';

/**
 * What "Clicks per domain" says while it has no row: "No clicks yet" when a variant's text has a link variable
 * ({{shorturl}} or {{optout}}: its links are minted as messages go out), else "No short links in this campaign".
 */
export function domainsEmptyKey(variants: Array<{ text: string }>): 'campaigns.report.noClicks' | 'campaigns.report.noDomains' {
  const used = new Set(variants.flatMap((v) => variablesIn(v.text)));
  return used.has('shorturl') || used.has('optout') ? 'campaigns.report.noClicks' : 'campaigns.report.noDomains';
}
