import { z } from 'zod';
import { num, obj, shareEntry } from './common.js';

export const summary = obj({ content: z.string() });

/** `shares` may contain an aggregate entry whose name summarises the remaining competitors. */
export const competitiveContext = obj({ dStar: num, fairShare: num, shares: z.array(shareEntry) });
