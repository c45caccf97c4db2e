export * from './customer.repository';
export * from './ledger.repository';
export * from './usage.repository';
export * from './feature-request.repository';
export * from './country.repository';
