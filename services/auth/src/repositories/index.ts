export * from './account.repository';
export * from './login-challenge.repository';
export * from './login-failure.repository';
export * from './membership.repository';
export * from './role.repository';
export * from './session.repository';
export * from './user.repository';
