import { escapeXml } from '../charts/svg.js';

/**
 * The document's XMP metadata packet (ISO 16684-1) as PDF/UA-1 §7.1 asks for it: the PDF/UA
 * identification (`pdfuaid:part` 1), the title (`dc:title`, which viewers show because the catalog
 * sets DisplayDocTitle) and the language, with the producer, creator tool and dates the document
 * information dictionary already gives, so the two never disagree.
 */

export interface XmpFields {
  title: string;
  /** BCP 47 tag, the catalog's /Lang (`en-US`). */
  language?: string;
  producer?: string;
  creatorTool?: string;
  /** PDF date strings (`D:20261128105412+00'00'`), as the information dictionary has them. */
  created?: string;
  modified?: string;
}

/** XML text: escaped, and without the control characters XML 1.0 cannot hold. */
const xmlText = (text: string) => escapeXml(text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ''));

/** `D:20261128105412+00'00'` → `2026-11-28T10:54:12+00:00`; undefined for anything else. */
export function xmpDate(pdfDate: string | undefined): string | undefined {
  const match = /^D:(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:([+-])(\d{2})'?(\d{2})'?|Z)?/.exec(
    pdfDate ?? '',
  );
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, sign, zh, zm] = match;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${sign ? `${sign}${zh}:${zm}` : 'Z'}`;
}

/** `date` as a PDF date string in UTC, spelled as Chromium spells its own: `D:20261128105412+00'00'`. */
export function pdfDate(date: Date): string {
  const digits = date.toISOString().slice(0, 19).replace(/\D/g, '');
  return `D:${digits}+00'00'`;
}

/** The packet, UTF-8, ready to be a /Metadata stream. */
export function xmpPacket(fields: XmpFields): Buffer {
  const line = (tag: string, value: string | undefined) =>
    value === undefined ? '' : `   <${tag}>${xmlText(value)}</${tag}>\n`;
  const xml =
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>\n' +
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">\n' +
    ' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n' +
    '  <rdf:Description rdf:about=""\n' +
    '    xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/"\n' +
    '    xmlns:dc="http://purl.org/dc/elements/1.1/"\n' +
    '    xmlns:pdf="http://ns.adobe.com/pdf/1.3/"\n' +
    '    xmlns:xmp="http://ns.adobe.com/xap/1.0/">\n' +
    '   <pdfuaid:part>1</pdfuaid:part>\n' +
    '   <dc:format>application/pdf</dc:format>\n' +
    `   <dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xmlText(fields.title)}</rdf:li></rdf:Alt></dc:title>\n` +
    (fields.language
      ? `   <dc:language><rdf:Bag><rdf:li>${xmlText(fields.language)}</rdf:li></rdf:Bag></dc:language>\n`
      : '') +
    line('pdf:Producer', fields.producer) +
    line('xmp:CreatorTool', fields.creatorTool) +
    line('xmp:CreateDate', xmpDate(fields.created)) +
    line('xmp:ModifyDate', xmpDate(fields.modified)) +
    '  </rdf:Description>\n' +
    ' </rdf:RDF>\n' +
    '</x:xmpmeta>\n' +
    '<?xpacket end="w"?>';
  return Buffer.from(xml, 'utf8');
}
