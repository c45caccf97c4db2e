export * from './decorators';
export * from './access.guard';
export * from './exception.filter';
export * from './validation';
export * from './list';
export * from './http-app';
export * from './redact';
export * from './openapi';
