import { AxePuppeteer } from '@axe-core/puppeteer';
import type { Page } from 'puppeteer-core';

type Violations = NonNullable<Awaited<ReturnType<AxePuppeteer['analyze']>>>['violations'];

/**
 * axe-core's WCAG 2.1 AA violations of what `page` shows, on the real Chromium. Every rule runs on
 * every node; only the violations come back in full: asked for all results, axe also builds a CSS
 * selector for each node each rule passed, for results no test reads. Run in the page itself
 * (legacy mode): the documents and emails checked have no frames, and the default mode opens, loads
 * axe into and closes a second page for every check to merge the frames' results.
 */
export async function wcagViolations(page: Page): Promise<Violations> {
  const result = await new AxePuppeteer(page)
    .setLegacyMode(true)
    .options({ resultTypes: ['violations'] })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  return result.violations;
}
