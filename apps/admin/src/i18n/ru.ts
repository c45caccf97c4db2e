import type { Messages } from './en';

/** Russian texts; typed as the English ones so that a missing or extra key fails to compile. */
const ru: Messages = {
  app: {
    title: 'SMS-платформа',
    name: 'Switchboard',
    version: 'Версия %{version}',
    copyright: '© %{year} Switchboard. Все права защищены.',
  },
  language: {
    label: 'Язык',
    en: 'English',
    ru: 'Русский',
  },
  login: {
    title: 'Вход',
    subtitle: 'С возвращением! Введите свои данные, чтобы продолжить.',
    email: 'Электронная почта',
    emailPlaceholder: 'name@company.com',
    password: 'Пароль',
    rememberMe: 'Запомнить меня',
    submit: 'Войти',
    forgotPassword: 'Забыли пароль?',
    or: 'или',
    sso: 'Войти через SSO',
    recaptcha:
      'Сайт защищён reCAPTCHA, действуют Политика конфиденциальности и Условия использования Google.',
    promo: {
      title: 'Все разговоры с клиентами в одном месте',
      text: 'Запускайте SMS-кампании, управляйте потоками WhatsApp и Telegram и отвечайте каждому клиенту из общего почтового ящика.',
      campaigns: 'SMS-кампании с короткими ссылками и статистикой в реальном времени',
      streams: 'Потоки WhatsApp, Telegram, OTP и двусторонние',
      inbox: 'Общий ящик для всей команды',
    },
  },
  pin: {
    title: 'Проверьте почту',
    subtitle: 'Введите %{length}-значный код, отправленный на',
    back: 'Войти в другой аккаунт',
    verify: 'Подтвердить',
    resend: 'Отправить код ещё раз',
    resendIn: 'Повторная отправка через %{seconds}',
    resending: 'Отправляем новый код…',
    checking: 'Проверяем код…',
    support: 'Не пришёл код? Напишите в поддержку',
    digit: 'Цифра %{index}',
  },
  modalPhoneVerification: {
    error: 'Неверный код. Попробуйте ещё раз.',
    success: 'Код подтверждён. Выполняем вход…',
  },
  errors: {
    client: {
      required: 'Обязательное поле',
      email: 'Введите корректный адрес электронной почты',
    },
    server: {
      '1801': 'Неверный адрес электронной почты или пароль',
      other: 'Что-то пошло не так. Попробуйте позже.',
    },
    renderError: {
      title: 'При отображении страницы произошла ошибка',
      text: 'Перезагрузите страницу, чтобы продолжить. Если ошибка повторится, обратитесь в поддержку.',
      reload: 'Перезагрузить',
    },
  },
  selectAccount: {
    title: 'Выберите аккаунт',
    subtitle: 'У вас есть доступ к нескольким аккаунтам. Выберите, в каком работать.',
    search: 'Поиск аккаунтов',
    noResults: 'Нет аккаунтов, соответствующих «%{search}»',
    restricted: 'ограниченный аккаунт',
    noAccess: 'Нет доступа, подробнее',
    current: 'Текущий',
    logout: 'Выйти',
  },
  accessDenied: {
    title: 'Доступ запрещён',
    text: 'Этот аккаунт отключён. Обратитесь к своему менеджеру или в поддержку, чтобы восстановить доступ.',
    close: 'Закрыть',
  },
  accounts: {
    status: {
      active: 'Активен',
      restrict: 'Ограничен',
      disable: 'Отключён',
      delete: 'Удалён',
    },
    changingAccount: {
      error: {
        title: 'Не удалось сменить аккаунт',
        text: 'Аккаунт не удалось открыть. Попробуйте ещё раз.',
        noPermissions: 'У вас нет прав в этом аккаунте.',
      },
    },
  },
  blockedAccess: {
    accessDenied: {
      title: 'Доступ запрещён',
      text: 'Ваш доступ к этому аккаунту заблокирован. Обратитесь к менеджеру аккаунта или на support@switchboard.local.',
    },
    noPermission: {
      title: 'Нет прав',
      text: 'У вашего пользователя пока нет прав в этом аккаунте. Попросите администратора назначить вам роль.',
    },
    chooseAccount: 'Выбрать другой аккаунт',
    backToLogin: 'Вернуться ко входу',
  },
  home: {
    welcome: 'Добро пожаловать, %{name}',
    subtitle: 'Вот что происходит в вашем рабочем пространстве.',
    currentAccount: 'Текущий аккаунт',
    switchAccount: 'Сменить аккаунт',
    details: 'Данные аккаунта',
    currency: 'Валюта',
    status: 'Статус',
    shortName: 'Краткое имя',
    email: 'Вы вошли как',
    superAdmin: 'Суперадминистратор',
    noAccount: 'Аккаунт не выбран',
    sections: 'Что здесь можно сделать',
    count: '%{smart_count} запись |||| %{smart_count} записи |||| %{smart_count} записей',
  },
  menu: {
    home: 'Главная',
    selectAccount: 'Аккаунты',
  },
  sidebar: {
    close: 'Закрыть',
  },
  notFound: {
    title: 'Не найдено ..(',
    text: 'Страница, которую вы ищете, не существует.',
    back: 'На главную',
  },
  ui: {
    actions: {
      close: 'Закрыть',
      cancel: 'Отмена',
      confirm: 'Подтвердить',
    },
    permission: {
      missing: 'Для этого нужно право %{permission}',
    },
    table: {
      rowsPerPage: 'Строк на странице',
      range: '%{from}–%{to} из %{total}',
      pages: 'Страницы',
      previous: 'Предыдущая страница',
      next: 'Следующая страница',
      noResults: 'Ничего не найдено',
    },
    copyIcon: {
      copy: 'Копировать',
      copied: 'Скопировано в буфер обмена',
    },
  },
  forgotPassword: {
    title: 'Сброс пароля',
    text: 'Сброс пароля пока недоступен. Обратитесь к администратору аккаунта.',
    back: 'Вернуться ко входу',
  },
};

export default ru;
