// Draws the web app manifest's icons (assets/icon-192.png, assets/icon-512.png) from the page's
// icon, assets/favicon.svg, in Debian's chromium (playwright-core): the same mark, full bleed, so
// a phone's home screen shows what the browser tab does. Run it after changing the favicon; the
// PNGs are committed.
//
//   node scripts/icons.mjs

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ASSETS = fileURLToPath(new URL('../assets/', import.meta.url));
const svg = readFileSync(`${ASSETS}favicon.svg`, 'utf8');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  for (const px of [192, 512]) {
    const page = await browser.newPage({ viewport: { width: px, height: px } });
    // Full bleed: the mark's rounded corners are the launcher's to draw.
    const square = svg.replace(/ rx="[^"]*"/, '').replace('<svg ', `<svg width="${px}" height="${px}" `);
    await page.setContent(`<style>html,body{margin:0}svg{display:block}</style>${square}`);
    await page.screenshot({ path: `${ASSETS}icon-${px}.png`, omitBackground: false });
    console.log(`wrote assets/icon-${px}.png`);
  }
} finally {
  await browser.close();
}
