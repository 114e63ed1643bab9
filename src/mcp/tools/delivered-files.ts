import { z } from 'zod';
import { deliveredFiles } from '../../store/delivered-files.js';
import { answer, defineTool } from '../tool-parts.js';

const DAY_MS = 24 * 3600_000;
const MAX_FILES = 500;

/**
 * `delivered_files`: what exactly a reader got on a day (UTC), every attachment, upload and link with
 * its SHA-256 — the same record `reportd history --files --reader R --date D` prints.
 */
export const deliveredFilesTool = defineTool({
  name: 'delivered_files',
  title: 'Files a reader was sent on a day',
  description:
    'Every file delivered to one reader (an email address, or a storage channel name) on one day ' +
    '(UTC): email attachments, links and uploads, each with its SHA-256, size, channel and where it ' +
    'went. Answers "what exactly did this reader get on this date".',
  inputSchema: {
    reader: z.string().min(1).max(320).describe('An email address or a storage channel name, as sent'),
    date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'a day as YYYY-MM-DD' })
      .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), { message: 'not a calendar day' })
      .describe('The day, YYYY-MM-DD (UTC)'),
    limit: z.number().int().min(1).max(MAX_FILES).default(100).describe(`Files at most, ${MAX_FILES} max`),
  },
  outputSchema: {
    reader: z.string(),
    date: z.string(),
    total: z.number().describe('Files delivered to the reader that day'),
    files: z.array(
      z.object({
        delivered_at: z.string().describe('ISO 8601, UTC'),
        report: z.string(),
        destination: z.string().describe('`email` or the storage channel name'),
        location: z.string().describe('"attachment", or the bucket, host or folder the file is in'),
        file: z.string().describe('The file name'),
        object: z.string().describe('Its name at the destination'),
        size_bytes: z.number(),
        sha256: z.string(),
      }),
    ),
    truncated: z.boolean().describe('True when more files than `limit` were delivered'),
  },
  annotations: { readOnlyHint: true },
  handler: async ({ reader, date, limit }, { store }) => {
    const from = Date.parse(`${date}T00:00:00Z`);
    const files = await deliveredFiles(store, { from, to: from + DAY_MS, reader });
    return answer({
      reader,
      date,
      total: files.length,
      files: files.slice(0, limit).map((f) => ({
        delivered_at: new Date(f.deliveredAt).toISOString(),
        report: f.report,
        destination: f.destination,
        location: f.location,
        file: f.file,
        object: f.object,
        size_bytes: f.size,
        sha256: f.sha256,
      })),
      truncated: files.length > limit,
    });
  },
});
