import { Injectable } from '@nestjs/common';
import { ReadModelRepository, type StreamChannelRow } from '../repositories/read-model.repository';

/** The stream channel read model in memory: credentials and rates are read for every message sent. */
@Injectable()
export class StreamChannelCache {
  private byId = new Map<string, StreamChannelRow>();

  constructor(private readonly repo: ReadModelRepository) {}

  async load(): Promise<void> {
    const rows = await this.repo.streamChannels();
    this.byId = new Map(rows.map((r) => [String(r.streamId), r]));
  }

  put(row: StreamChannelRow): void {
    this.byId.set(String(row.streamId), row);
  }

  get(streamId: string): StreamChannelRow | undefined {
    return this.byId.get(streamId);
  }

  /** The stream's credentials, with the Telegram private session dispatch stored at login. */
  credentials(streamId: string): Record<string, string> | null {
    const row = this.byId.get(streamId);
    if (!row) return null;
    const session = row.authState?.session;
    return typeof session === 'string' ? { ...row.credentials, session } : row.credentials;
  }

  tps(streamId: string): number {
    return this.byId.get(streamId)?.tps ?? 0;
  }
}
