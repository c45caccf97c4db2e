import type { Catalogue } from '../../types';

const ru: Catalogue = {
  statistics: {
    locale: 'ru-RU',
    menu: 'Статистика',
    title: 'Статистика',
    subtitle: 'Сообщения, доставка и расходы за период, в часовом поясе аккаунта (%{zone}).',
    dashboard: 'Обзор рассылок',
    slices: { day: 'Сегодня', week: 'Эта неделя', month: 'Этот месяц', year: 'Этот год', all: 'За всё время', custom: 'Период' },
    from: 'С',
    to: 'По',
    apply: 'Применить',
    cards: {
      messages: 'Отправлено сообщений',
      parts: '%{smart_count} SMS-часть |||| %{smart_count} SMS-части |||| %{smart_count} SMS-частей',
      delivered: 'Доставлено',
      rate: 'доставлено %{rate}%',
      failed: 'Не доставлено',
      pending: 'ещё в пути: %{count}',
      cost: 'Расходы',
      noCost: 'Расходов за период нет',
      clicked: 'Переходы',
      clickedSub: 'получатели, открывшие короткую ссылку',
      clickedAll: 'не считаются по потокам',
    },
    charts: {
      traffic: 'Сообщения по времени',
      cost: 'Расходы по времени',
      destinations: 'Основные направления',
      streams: 'Трафик по потокам',
      empty: 'За этот период сообщений нет',
      delivered: 'Доставлено',
      failed: 'Не доставлено',
      pending: 'В пути',
      unknownCountry: 'Страна не определена',
    },
    cached: 'Показатели обновляются раз в две минуты.',
    error: 'Не удалось загрузить статистику.',
    more: 'Открыть статистику',
  },
};

export default ru;
