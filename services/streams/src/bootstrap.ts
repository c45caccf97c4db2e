import type { LogLevel } from '@nestjs/common';
import { startStandaloneService, type RunningService, type StandaloneDrivers } from '@switchboard/platform';
import { streamsModuleOptionsFromConfig, type StreamsConfig } from './streams.config';
import { StreamsModule } from './streams.module';

export type RunningStreamsService = RunningService;

/** The standalone streams service (distributed mode): Kafka bus, NATS realtime, health endpoints. */
export function startStreamsService(config: StreamsConfig, opts: { logger?: LogLevel[]; drivers?: StandaloneDrivers } = {}): Promise<RunningStreamsService> {
  return startStandaloneService({
    name: 'streams',
    config,
    verificationKey: config.JWT_PUBLIC_KEY,
    module: StreamsModule.register(streamsModuleOptionsFromConfig(config)),
    ...opts,
  });
}
