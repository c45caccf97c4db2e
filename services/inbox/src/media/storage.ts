import * as fs from 'node:fs';
import * as path from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

/** Where media bytes live: one interface, a local directory in embedded mode, an S3-compatible bucket in distributed mode. */
export abstract class MediaStorage {
  abstract put(key: string, body: Buffer, mime: string): Promise<void>;
  /** The bytes, or null when the object is gone. */
  abstract get(key: string): Promise<Buffer | null>;
}

export class LocalMediaStorage extends MediaStorage {
  constructor(private readonly dir: string) {
    super();
    fs.mkdirSync(dir, { recursive: true });
  }

  private file(key: string): string {
    if (!/^[\w-]+\/[\w-]+$/.test(key)) throw new Error(`bad media key ${key}`);
    return path.join(this.dir, key);
  }

  async put(key: string, body: Buffer): Promise<void> {
    const f = this.file(key);
    await fs.promises.mkdir(path.dirname(f), { recursive: true });
    const tmp = `${f}.${process.pid}.tmp`;
    await fs.promises.writeFile(tmp, body);
    await fs.promises.rename(tmp, f);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await fs.promises.readFile(this.file(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }
}

export interface S3MediaOptions {
  bucket: string;
  endpoint?: string;
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** MinIO and most S3-compatible stores want path-style addresses. Default true when an endpoint is given. */
  forcePathStyle?: boolean;
}

export class S3MediaStorage extends MediaStorage {
  private readonly client: S3Client;

  constructor(private readonly o: S3MediaOptions) {
    super();
    this.client = new S3Client({
      region: o.region ?? 'us-east-1',
      ...(o.endpoint ? { endpoint: o.endpoint } : {}),
      forcePathStyle: o.forcePathStyle ?? !!o.endpoint,
      ...(o.accessKeyId && o.secretAccessKey ? { credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey } } : {}),
    });
  }

  async put(key: string, body: Buffer, mime: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.o.bucket, Key: key, Body: body, ContentType: mime }));
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.o.bucket, Key: key }));
      return r.Body ? Buffer.from(await r.Body.transformToByteArray()) : null;
    } catch (e) {
      if ((e as { name?: string }).name === 'NoSuchKey') return null;
      throw e;
    }
  }
}
