export { DispatchModule } from './dispatch.module';
export {
  DISPATCH_CONNECTION,
  DISPATCH_SCHEMA,
  SENDER_GROUP,
  dispatchKafkaConsumerTuning,
  resolveDispatchOptions,
  type DispatchModuleOptions,
  type DispatcherTuning,
  type VendorSeed,
  type VendorRow,
  type AdapterKind,
  type ServiceType,
} from './dispatch.options';
export { DISPATCH_MIGRATIONS } from './migrations';
export { Dispatcher } from './services/dispatcher.service';
export { AdapterRegistry } from './services/adapter-registry.service';
export { ProviderAdapter, type OutboundMessage, type SendOutcome, type ProviderReceipt, type ProviderInbound, type AdapterSink } from './adapters/provider-adapter';
export { SmppAdapter, type SmppAdapterConfig } from './adapters/smpp.adapter';
export { SimulatorAdapter, type SimulatorConfig } from './adapters/simulator.adapter';
export { WhatsAppAdapter } from './adapters/whatsapp.adapter';
export { TelegramBotAdapter, telegramWebhookSecret } from './adapters/telegram-bot.adapter';
export { TelegramPrivateAdapter, GramJsGateway, type TelegramLoginGateway } from './adapters/telegram-private.adapter';
export { SmppPeer, type SmppPeerOptions, type SubmittedPart } from './testing/smpp-peer';
export { TokenBucket, LimitBook } from './domain/token-bucket';
export { AimdPacer, type PacerState } from './domain/aimd-pacer';
export { embeddedDispatchOptions } from './embedded';
export { MessageRepository } from './repositories/message.repository';
export { DispatchOutboxRelay } from './services/events.service';
export { WhatsAppPeer, type MediaBehaviour, type PeerMedia } from './testing/whatsapp-peer';
export { TelegramPeer } from './testing/telegram-peer';
export { StuckMessageSweeper, type StuckSweepOptions } from './services/stuck-sweeper.service';
