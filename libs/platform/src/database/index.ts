export * from './embedded-postgres';
export * from './naming';
export * from './data-source';
export * from './tenant-repository';
export * from './pg-literals';
export * from './prepared';
export * from './time-ordered-uuid';
