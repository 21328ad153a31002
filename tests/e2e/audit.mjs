// What every end-to-end test shares beyond common.mjs: the page's Content Security Policy at work
// and an accessibility audit with axe-core.
//
// - `guard(context, origin)` (common.mjs's `main` calls it for every test): every page and frame
//   of the context reports each `securitypolicyviolation` event and each console message about a
//   refused load, script or style; every request to another origin is recorded (data: and blob:
//   URLs stay in the page). `guardFindings()` lists them; `main` fails the test on any.
// - `refusesInjectedScript(context, url)`: opens `url` and inserts an inline <script> and an inline
//   event handler into the page (as a hostile link or lesson would, were the app to let markup
//   through); reports whether the policy refused both; the violations it provokes are taken off
//   the list.
// - `tabWalk(page)`: Tab from the top through the page: which visible controls it never reaches,
//   and which show no focus outline.
// - `audit(page, name)`: runs axe-core (node_modules/axe-core, injected with Playwright's
//   `page.evaluate`, which the page's policy does not govern: no exception in the policy, no
//   `bypassCSP`) on the whole page and records one check: 0 violations of any impact (the rule,
//   impact and first targets of each violation in the detail).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { check } from './common.mjs';

const AXE = readFileSync(fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url)), 'utf8');

const findings = [];

/** Console messages Chromium prints when the policy refuses something. */
const REFUSED = /Content Security Policy|Refused to (load|execute|apply|connect|compile|evaluate|frame)/i;

/** Watches every page of `context` for policy violations and requests leaving `origin`. */
export async function guard(context, origin) {
  await context.exposeBinding('__qscopeViolation', ({ frame }, v) => {
    findings.push(`CSP violation in ${frame?.url() ?? '?'}: ${v.directive} refused ${v.blocked || '(inline)'}${v.sample ? ` «${v.sample}»` : ''}`);
  });
  await context.addInitScript(() => {
    addEventListener('securitypolicyviolation', (e) => {
      window.__qscopeViolation({ directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample });
    });
  });
  const watch = (page) => {
    page.on('console', (m) => {
      if (REFUSED.test(m.text())) findings.push(`console ${m.type()}: ${m.text()}`);
    });
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  context.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin + '/') && !/^(data|blob|about):/.test(u)) findings.push(`a request left the origin: ${r.method()} ${u}`);
  });
}

/** The policy violations and outside requests met so far. */
export const guardFindings = () => [...findings];

/** Whether the page's policy refuses an inline <script> and an inline event handler put into the
 * page at `url` (in a page of its own, so no test's own error watch sees them); the violations
 * this provokes are expected and taken off the list. */
export async function refusesInjectedScript(context, url) {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'load' });
  const mark = findings.length;
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__injected = "script"';
    document.body.append(s);
    const b = document.createElement('div');
    b.setAttribute('onclick', 'window.__injected = "handler"');
    document.body.append(b);
    b.click();
    b.remove();
    s.remove();
  });
  const events = () => findings.slice(mark).filter((f) => /^CSP violation.*script-src-(elem|attr)/.test(f)).length;
  const end = Date.now() + 5000;
  while (events() < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  const ran = await page.evaluate(() => window.__injected);
  await page.close();
  const reported = events();
  const provoked = findings.splice(mark);
  return { refused: ran === undefined && reported === 2, ran, reported, provoked: provoked.map((f) => f.slice(0, 90)) };
}

/** Runs axe-core on `page`; records the check `axe: NAME has no accessibility violation`. */
export async function audit(page, name) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.length,
      targets: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}${n.any[0]?.message ? ` (${n.any[0].message})` : ''}`),
    }));
  });
  const detail = violations.map((v) => `${v.impact} ${v.id} ×${v.nodes}: ${v.targets.join('; ')}`).join(' | ');
  return check(`axe: ${name} has no accessibility violation`, violations.length === 0, detail);
}

/** Presses Tab through `page` from the top and returns, for every visible focusable element,
 * whether Tab reached it, and for every element reached, whether its focus is visible (an
 * outline of at least 1 px that is not transparent). */
export async function tabWalk(page) {
  await page.evaluate(() => {
    document.activeElement?.blur();
    window.scrollTo(0, 0);
    window.__tabbable = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')].filter((el) => {
      if (el.disabled || el.tabIndex < 0 || el.closest('[inert], [hidden]')) return false;
      // checkVisibility: also false inside a closed <details> (content-visibility: hidden).
      return el.checkVisibility({ visibilityProperty: true }) && el.getBoundingClientRect().width > 0;
    });
    window.__reached = new Set();
  });
  const count = await page.evaluate(() => window.__tabbable.length);
  const unseen = [];
  for (let i = 0; i < count + 10; i++) {
    await page.keyboard.press('Tab');
    const seen = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body || window.__reached.has(el)) return null;
      window.__reached.add(el);
      const st = getComputedStyle(el);
      const ring = st.outlineStyle !== 'none' && parseFloat(st.outlineWidth) >= 1 && !/rgba\(0, 0, 0, 0\)|transparent/.test(st.outlineColor);
      return { ring, what: el.dataset.testid || el.getAttribute('aria-label') || el.id || el.textContent.trim().slice(0, 20) || el.tagName };
    });
    if (seen && !seen.ring) unseen.push(seen.what);
  }
  const missed = await page.evaluate(() =>
    window.__tabbable.filter((el) => !window.__reached.has(el)).map((el) => el.dataset.testid || el.getAttribute('aria-label') || el.id || el.textContent.trim().slice(0, 20) || el.tagName),
  );
  return { count, missed, unseen };
}
