import addressparser from 'nodemailer/lib/addressparser/index.js';

/**
 * The bare addresses a report goes to (To, Cc and Bcc, each once, in that order): the unit of
 * per-recipient state. `"Board <board@example.com>"` becomes `board@example.com`.
 */
export function envelopeRecipients(email: {
  to: readonly string[];
  cc?: readonly string[];
  bcc?: readonly string[];
}) {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const entry of [...email.to, ...(email.cc ?? []), ...(email.bcc ?? [])]) {
    for (const { address } of addressparser(entry, { flatten: true })) {
      const key = address.toLowerCase();
      if (!address || seen.has(key)) continue;
      seen.add(key);
      out.push(address);
    }
  }
  return out;
}

/** The bare sender address of `"Reports <reports@example.com>"`. */
export function senderAddress(from: string): string {
  return addressparser(from, { flatten: true })[0]?.address ?? from;
}

/** The sender's domain, for Message-IDs (`example.com`), or `reportd` when it has none. */
export function senderDomain(from: string): string {
  const domain = senderAddress(from).split('@')[1] ?? '';
  // Only characters a Message-ID's right-hand side may hold; the config already checked the address.
  return /^[A-Za-z0-9.-]+$/.test(domain) ? domain.toLowerCase() : 'reportd';
}
