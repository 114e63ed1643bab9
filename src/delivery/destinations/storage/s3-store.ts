import { open, readFile } from 'node:fs/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3ChannelConfig } from '../../../config/storage-channels.js';
import { type LocalFile, type ObjectStore, StorageFault } from './object-store.js';
import { s3Where } from './where.js';

/** Files above this go up in parts of this size (S3's parts are 5 MiB at least, the last excepted). */
export const PART_BYTES = 8 * 1024 * 1024;
/** The longest a SigV4 pre-signed link may live. */
export const MAX_LINK_SECONDS = 7 * 24 * 3600;

/**
 * An S3 bucket through the AWS SDK v3, credentials from its default chain. A file is one PutObject,
 * or a multipart upload completed only once every part is in, so the name never shows a part of it.
 * The SHA-256 travels as `x-amz-meta-sha256`. The SDK's own retries are off: the outbox retries with
 * its backoff, on the row, so a crash between tries loses nothing.
 */
export function s3Store(config: S3ChannelConfig): ObjectStore {
  // reportd supports Node 20 (package.json engines); the SDK's notice about its own future Node floor
  // would otherwise land on every command's stderr. An operator's own setting wins.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const client = new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.force_path_style,
    maxAttempts: 1,
    // Without these the SDK waits for ever on an endpoint that accepts and never answers (a firewall
    // that drops, a hung proxy), holding the delivery's claim. Idle time, not the whole request, so a
    // large upload that keeps moving is never cut.
    requestHandler: {
      connectionTimeout: config.timeout_seconds * 1000,
      socketTimeout: config.timeout_seconds * 1000,
    },
    // S3-compatible stores (MinIO, Ceph, R2) differ in the flexible checksums they accept.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const where = s3Where(config);
  const key = (name: string) => `${config.prefix}${name}`;
  const passed = {
    ...(config.server_side_encryption ? { ServerSideEncryption: config.server_side_encryption } : {}),
    ...(config.sse_kms_key_id ? { SSEKMSKeyId: config.sse_kms_key_id } : {}),
    ...(config.storage_class ? { StorageClass: config.storage_class as never } : {}),
  };
  const call = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw s3Fault(error, `${where}: ${what}`);
    }
  };
  return {
    where,
    async stat(name) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: config.bucket, Key: key(name) }));
        const sha256 = head.Metadata?.sha256;
        return { size: head.ContentLength ?? 0, ...(sha256 ? { sha256 } : {}) };
      } catch (error) {
        if (statusOf(error) === 404 && (error as Error).name !== 'NoSuchBucket') return undefined;
        throw s3Fault(error, `${where}: HEAD ${key(name)}`);
      }
    },
    async put(name, file, signal) {
      const common = { Bucket: config.bucket, Key: key(name), Metadata: { sha256: file.sha256 }, ...passed };
      if (file.size <= PART_BYTES) {
        const Body = await readFile(file.path);
        await call(`PUT ${key(name)}`, () =>
          client.send(new PutObjectCommand({ ...common, Body, ContentLength: file.size }), {
            abortSignal: signal,
          }),
        );
        return;
      }
      await abortStaleUploads(client, config.bucket, key(name));
      await call(`multipart upload of ${key(name)}`, () => multipart(client, common, file, signal));
    },
    async remove(name) {
      await call(`DELETE ${key(name)}`, () =>
        client.send(new DeleteObjectCommand({ Bucket: config.bucket, Key: key(name) })),
      );
    },
    presign(name, expiresInSeconds, signedAt) {
      return getSignedUrl(client, new GetObjectCommand({ Bucket: config.bucket, Key: key(name) }), {
        expiresIn: Math.min(expiresInSeconds, MAX_LINK_SECONDS),
        ...(signedAt ? { signingDate: signedAt } : {}),
      });
    },
    close: async () => client.destroy(),
  };
}

/** Parts uploaded one after the other from the file; the upload is aborted when any part fails. */
async function multipart(
  client: S3Client,
  common: { Bucket: string; Key: string; Metadata: Record<string, string> },
  file: LocalFile,
  signal?: AbortSignal,
): Promise<void> {
  const { UploadId } = await client.send(new CreateMultipartUploadCommand(common));
  const where = { Bucket: common.Bucket, Key: common.Key, UploadId };
  const handle = await open(file.path, 'r');
  try {
    const parts: { ETag: string | undefined; PartNumber: number }[] = [];
    for (let offset = 0, PartNumber = 1; offset < file.size; offset += PART_BYTES, PartNumber++) {
      const Body = Buffer.alloc(Math.min(PART_BYTES, file.size - offset));
      await handle.read(Body, 0, Body.length, offset);
      const part = await client.send(new UploadPartCommand({ ...where, PartNumber, Body }), {
        abortSignal: signal,
      });
      parts.push({ ETag: part.ETag, PartNumber });
    }
    // Only now does the name exist, and whole.
    await client.send(new CompleteMultipartUploadCommand({ ...where, MultipartUpload: { Parts: parts } }));
  } catch (error) {
    await client.send(new AbortMultipartUploadCommand(where)).catch(() => {});
    throw error;
  } finally {
    await handle.close();
  }
}

/**
 * Uploads of this key a killed worker left unfinished: invisible to readers, but billed until aborted.
 * Best effort: a store without ListMultipartUploads (or without the right) leaves them to the
 * bucket's lifecycle rule (AbortIncompleteMultipartUpload).
 */
async function abortStaleUploads(client: S3Client, Bucket: string, Key: string): Promise<void> {
  try {
    const listed = await client.send(new ListMultipartUploadsCommand({ Bucket, Prefix: Key }));
    for (const upload of listed.Uploads ?? [])
      if (upload.Key === Key)
        await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: upload.UploadId }));
  } catch {
    // See above: cleanup is not the delivery.
  }
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

const PERMANENT_CODES = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'NoSuchBucket',
  'InvalidBucketName',
  'AllAccessDisabled',
  'InvalidStorageClass',
  'KMS.NotFoundException',
]);

/**
 * The SDK's error as one line in the outbox's terms. Only the error's code, status and the SDK's
 * message are quoted: neither holds the credentials (the request's signature is never in it).
 */
export function s3Fault(error: unknown, what: string): StorageFault {
  const code = (error as Error).name;
  const status = statusOf(error);
  const reason = `${code}${status ? ` (HTTP ${status})` : ''}`;
  if (error instanceof StorageFault) return error;
  if (PERMANENT_CODES.has(code) || status === 403 || status === 404 || status === 400 || status === 401)
    return new StorageFault('permanent', `${what}: refused, ${reason}`, { cause: error });
  const detail = status === undefined ? `network error, ${(error as Error).message}` : reason;
  return new StorageFault('transient', `${what}: ${detail}`, { cause: error });
}
