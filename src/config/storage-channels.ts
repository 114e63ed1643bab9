import { z } from 'zod';
import { channelTimeout } from './channel-timeout.js';

/**
 * `channels[]` entries that keep files rather than post messages: an S3-compatible bucket, an SFTP
 * drop and a folder. None holds a secret in the config: S3 credentials come from the AWS SDK's default
 * chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a profile, an instance role), an SFTP key from its
 * file and an SFTP password from the environment variable `password_env` names.
 */

/** The variables an object name may use (delivery/destinations/storage/names.ts fills them). */
export const NAME_VARIABLES = ['report', 'account', 'yyyy', 'mm', 'dd', 'run', 'set', 'file'] as const;

const nameTemplate = z
  .string()
  .min(1)
  .default('{{report}}/{{yyyy}}/{{run}}/{{file}}')
  .refine((template) => template.includes('{{file}}'), { message: 'must contain {{file}}' })
  .refine(
    (template) =>
      [...template.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)].every((m) =>
        (NAME_VARIABLES as readonly string[]).includes(m[1] ?? ''),
      ),
    { message: `unknown variable (use ${NAME_VARIABLES.map((v) => `{{${v}}}`).join(', ')})` },
  )
  .describe(
    'Object name of each file, below `prefix`/`path`: {{report}}, {{account}}, {{yyyy}}/{{mm}}/{{dd}} (the day the delivery was queued, UTC), {{run}} (the run id, or `digest-<n>` for the n-th digest of the report), {{set}} (query set id), {{file}} (the attachment name). The manifest is named as a file called `manifest.json`. Default {{report}}/{{yyyy}}/{{run}}/{{file}}.',
  );

const storageName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, { message: 'use letters, digits, ".", "-" and "_" (no spaces)' })
  .refine((name) => name !== 'email', { message: '"email" is reserved for reports[].email' })
  .describe(
    'Unique name of the channel, used in reports[].channels, links_from, the outbox and `history`. Required.',
  );

export const s3Channel = z
  .strictObject({
    name: storageName,
    type: z
      .literal('s3')
      .describe('`s3`: AWS S3 or an S3-compatible store (MinIO, R2, Ceph, GCS interop). Required.'),
    bucket: z.string().min(1).describe('Bucket the files are written to. Required.'),
    prefix: z
      .string()
      .default('')
      .describe('Put before every object name, e.g. `weekly/` (include the trailing slash). Default none.'),
    region: z
      .string()
      .min(1)
      .default('us-east-1')
      .describe("The bucket's region (SigV4 signs for it). Default us-east-1."),
    endpoint: z
      .url({ protocol: /^https?$/, error: 'expected an http(s) URL (the S3-compatible endpoint)' })
      .optional()
      .describe('Endpoint of an S3-compatible store, e.g. https://minio.internal:9000. Default: AWS.'),
    force_path_style: z
      .boolean()
      .default(false)
      .describe(
        'Address the bucket in the path (`endpoint/bucket/key`), as MinIO and Ceph usually need. Default false.',
      ),
    server_side_encryption: z
      .enum(['AES256', 'aws:kms', 'aws:kms:dsse'])
      .optional()
      .describe("Passed to the store as `ServerSideEncryption`. Default: the bucket's own."),
    sse_kms_key_id: z
      .string()
      .min(1)
      .optional()
      .describe("`SSEKMSKeyId` for aws:kms. Default: the account's key."),
    storage_class: z
      .string()
      .regex(/^[A-Z_]+$/, { message: 'an S3 storage class, e.g. STANDARD_IA' })
      .optional()
      .describe('Passed to the store as `StorageClass` (STANDARD_IA, GLACIER_IR, …). Default: STANDARD.'),
    timeout_seconds: channelTimeout(
      30,
      'Time to connect, and the longest the connection may stay silent mid-request, in seconds (a large upload may take longer in all). Default 30.',
    ),
    name_template: nameTemplate,
  })
  .describe(
    "Writes each delivery's files to an S3 bucket; the SHA-256 travels as object metadata (`x-amz-meta-sha256`).",
  );

export const sftpChannel = z
  .strictObject({
    name: storageName,
    type: z.literal('sftp').describe('`sftp`. Required.'),
    host: z.string().min(1).describe('SFTP server host name or address. Required.'),
    port: z.number().int().min(1).max(65535).default(22).describe('SSH port. Default 22.'),
    username: z.string().min(1).describe('SSH user. Required.'),
    private_key_file: z
      .string()
      .min(1)
      .optional()
      .describe('OpenSSH private key file (relative to the config file). Set this or `password_env`.'),
    password_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'an environment variable name' })
      .optional()
      .describe(
        'Name of the environment variable holding the SSH password (the password never sits in the config).',
      ),
    host_key: z
      .string()
      .regex(/^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)) [A-Za-z0-9+/]+={0,2}( .*)?$/, {
        message:
          'the server\'s public host key as OpenSSH prints it ("ssh-ed25519 AAAA…", e.g. from ssh-keyscan)',
      })
      .describe(
        "The server's public host key, pinned: a server presenting any other key is refused. Required.",
      ),
    path: z
      .string()
      .default('.')
      .describe('Folder on the server the names are written below. Default the login folder.'),
    timeout_seconds: channelTimeout(30, 'Connect and per-operation timeout, in seconds. Default 30.'),
    name_template: nameTemplate,
  })
  .describe(
    "Writes each delivery's files over SFTP (temporary name, then rename), each with a `.sha256` beside it.",
  );

export const folderChannel = z
  .strictObject({
    name: storageName,
    type: z.literal('folder').describe('`folder`. Required.'),
    path: z.string().min(1).describe('A local or mounted folder (relative to the config file). Required.'),
    name_template: nameTemplate,
  })
  .describe(
    "Writes each delivery's files into a folder (temporary name, then rename), each with a `.sha256` beside it.",
  );

export const STORAGE_TYPES = ['s3', 'sftp', 'folder'] as const;
export type StorageType = (typeof STORAGE_TYPES)[number];
export type S3ChannelConfig = z.output<typeof s3Channel>;
export type SftpChannelConfig = z.output<typeof sftpChannel>;
export type FolderChannelConfig = z.output<typeof folderChannel>;
export type StorageChannelConfig = S3ChannelConfig | SftpChannelConfig | FolderChannelConfig;

export function isStorageChannel<T extends { type: string }>(
  channel: T,
): channel is T & StorageChannelConfig {
  return (STORAGE_TYPES as readonly string[]).includes(channel.type);
}
