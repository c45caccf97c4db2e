import type { Catalogue } from '../../types';

const en: Catalogue = {
  statistics: {
    locale: 'en-GB',
    menu: 'Statistics',
    title: 'Statistics',
    subtitle: 'Messages, delivery and cost over time, in the account time zone (%{zone}).',
    dashboard: 'Messaging overview',
    slices: { day: 'Today', week: 'This week', month: 'This month', year: 'This year', all: 'All time', custom: 'Custom' },
    from: 'From',
    to: 'To',
    apply: 'Apply',
    cards: {
      messages: 'Messages sent',
      parts: '%{smart_count} SMS part |||| %{smart_count} SMS parts',
      delivered: 'Delivered',
      rate: '%{rate}% delivered',
      failed: 'Failed',
      pending: '%{count} still on their way',
      cost: 'Cost',
      noCost: 'No cost in this period',
      clicked: 'Clicked',
      clickedSub: 'recipients who opened a short link',
      clickedAll: 'not counted per stream',
    },
    charts: {
      traffic: 'Messages over time',
      cost: 'Cost over time',
      destinations: 'Top destinations',
      streams: 'Traffic per stream',
      empty: 'No messages in this period',
      delivered: 'Delivered',
      failed: 'Failed',
      pending: 'On their way',
      unknownCountry: 'Unknown country',
    },
    cached: 'Figures are refreshed every two minutes.',
    error: 'The statistics could not be loaded.',
    more: 'Open statistics',
  },
};

export default en;
