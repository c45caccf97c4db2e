/** Русские тексты страниц входа через Zoho Inbox. */
const ru = {
  sso: {
    zoho: {
      title: 'Zoho Inbox',
      intro: 'Войдите во входящие Switchboard с учётной записью Zoho.',
      login: 'Войти через Zoho',
      waiting: 'Завершите вход в окне Zoho ...',
      pending: 'Ожидает одобрения доступа ...',
      pendingHint: 'Администратор вашего аккаунта Switchboard должен разрешить вход через Zoho Inbox для вашего адреса. Попробуйте снова после одобрения.',
      error: 'Произошла ошибка',
      popupBlocked: 'Браузер заблокировал окно Zoho: разрешите всплывающие окна для этого сайта и попробуйте снова.',
      notConfigured: 'Вход через Zoho Inbox не настроен в этой установке.',
      retry: 'Попробовать снова',
      success: 'Вход выполнен. Открываем входящие ...',
    },
    complete: {
      loggingIn: 'Вход ...',
    },
    inboxLogin: {
      opening: 'Открываем входящие ...',
    },
    requests: {
      title: 'Запросы на вход через Zoho Inbox',
      empty: 'Нет пользователей Zoho, ожидающих доступа.',
      email: 'Адрес Zoho',
      member: 'Участник',
      status: 'Статус',
      approve: 'Одобрить',
      reject: 'Отклонить',
      statuses: { pending: 'Ожидает', approved: 'Одобрен', rejected: 'Отклонён' },
    },
  },
};

export default ru;
