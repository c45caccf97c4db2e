export * from './gateway.module';
export * from './gateway.options';
export * from './readiness.service';
export { GATEWAY_ROUTE_TABLE, parseGatewayRoutes, serviceForPath } from './proxy/route-table';
export { ReverseProxy, type ReverseProxyOptions } from './proxy/reverse-proxy';
export { REALTIME_TOPICS, type RealtimeTopic } from './realtime/topics';
export { startGateway, type RunningGateway } from './bootstrap';
export { gatewayConfigSchema, type GatewayConfig } from './gateway.config';
export { InboxSocketService } from './inbox-socket/inbox-socket.service';
