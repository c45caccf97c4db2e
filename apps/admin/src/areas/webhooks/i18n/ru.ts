import type { Catalogue } from '../../types';

const ru: Catalogue = {
  webhooks: {
    menu: { webhooks: 'Вебхуки', requests: 'Запросы вебхуков' },
    title: 'Вебхуки',
    subtitle: 'Подписанные HTTP-запросы на ваш сервер: сообщения, статусы, стоимость и клики',
    create: 'Добавить вебхук',
    empty: 'Вебхуков пока нет',
    emptyText: 'Добавьте вебхук, чтобы получать события на свой URL.',
    saved: 'Вебхук сохранён',
    active: 'Активен',
    inactive: 'Выключен',
    snippets: 'Приём и проверка доставки',
    fields: { name: 'Название', url: 'URL', httpMethod: 'Метод', trigger: 'Событие', streams: 'Только эти потоки (id)', headers: 'Заголовки', active: 'Статус' },
    triggers: { incoming_message: 'Входящее сообщение', short_url_clicks: 'Клики по коротким ссылкам', message_status_change: 'Изменение статуса сообщения', edr_info: 'Данные EDR' },
    params: { send_bulk: 'Отправлять пакетами', include_message_text: 'С текстом сообщения', include_contact_details: 'С данными контакта', include_lead_id: 'С id лида' },
    actions: { test: 'Проверить', edit: 'Изменить', delete: 'Удалить' },
    form: {
      createTitle: 'Новый вебхук',
      editTitle: 'Изменить вебхук',
      create: 'Добавить',
      save: 'Сохранить',
      streamsHelp: 'id потоков через запятую; пусто — все потоки',
      headersHelp: 'По одному «имя: значение» в строке',
    },
    secret: { title: 'Секрет подписи', once: 'Скопируйте секрет сейчас: он показывается один раз. По нему проверяется заголовок webhook-signature.' },
    test: { pending: 'Проверка…', pendingText: 'Отправляем тестовое событие на ваш URL', success: 'Успешно', timeout: 'Тайм-аут', failed: 'Ошибка' },
    preview: { toggle: 'Подробнее', headers: 'Заголовки', payload: 'Данные', response: 'Ответ', noResponse: 'Нет ответа' },
    confirmDelete: { title: 'Удалить вебхук', text: 'Удалить вебхук «%{name}»? Его доставки в очереди будут отменены.' },
    log: {
      title: 'Запросы вебхуков',
      subtitle: 'Каждая попытка доставки с запросом и ответом',
      sentAt: 'Отправлен',
      webhook: 'Вебхук',
      request: 'Запрос',
      status: 'Статус',
      response: 'Ответ',
      attempt: 'Попытка',
      duration: 'Время',
      test: 'тест',
      all: 'Все',
    },
  },
};

export default ru;
