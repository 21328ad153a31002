// The site `scripts/dev serve` serves (dist/): the app's title bar links the book (/docs/) and the
// quantizer reference (/reference/); both load from the site alone (no outside request, which
// common.mjs's guard fails), and the reference's links open the explorer at /.

import { join } from 'node:path';
import { SHOTS, TIMEOUT_MS, check, main } from './common.mjs';

await main(async (context, url) => {
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.locator('[data-testid="link-docs"]').waitFor({ timeout: TIMEOUT_MS });

  await page.click('[data-testid="link-docs"]');
  await page.waitForLoadState('load');
  check('the Guide link opens the book at /docs/', new URL(page.url()).pathname === '/docs/', page.url());
  const title = await page.title();
  check('the book shows its introduction', /qscope/i.test(title) && (await page.locator('main h1').count()) > 0, title);
  const chapters = await page.locator('.sidebar a[href$=".html"]').count();
  check('the book lists its chapters', chapters >= 8, `${chapters} chapter links`);
  await page.screenshot({ path: join(SHOTS, 'site-docs.png') });

  await page.goto(url);
  await page.locator('[data-testid="link-reference"]').waitFor({ timeout: TIMEOUT_MS });
  await page.click('[data-testid="link-reference"]');
  await page.waitForLoadState('load');
  check('the Reference link opens the quantizer reference at /reference/', new URL(page.url()).pathname === '/reference/', page.url());
  const entries = await page.locator('a[href$=".html"]').count();
  check('the reference lists the quantizers', entries >= 50, `${entries} links`);
  const live = await page.locator('a[href^="../#"]').first().getAttribute('href').catch(() => null);
  check('the reference links open the explorer served beside it', live !== null, String(live));
  await page.screenshot({ path: join(SHOTS, 'site-reference.png') });

  check('no script error on the site', errors.length === 0, errors.join(' | '));
});
