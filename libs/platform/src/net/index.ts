export * from './addresses';
export * from './destination';
export * from './pinned-request';
export * from './dns-server';
