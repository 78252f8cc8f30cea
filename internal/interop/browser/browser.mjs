// Browser test of the pages and of card checkout (internal/e2e/browser_test.go
// runs it against a demo): node browser.mjs ORIGIN CHROMIUM OUTDIR.
//
// Every page is loaded in Chromium (Playwright, no browser download); a console
// error, an uncaught exception, a failed request or an answer of 400 or above
// fails it. The figures on each page are read from their data-* attributes and
// compared with the JSON the same route answers; axe-core checks accessibility
// (WCAG 2 A and AA rules); the bytes transferred are summed. Then the checkout
// is walked: choose the 5 USD pack, pay on the payment page, read and copy the
// key on the success page, reload it (the key is not shown again). Writes one
// JSON report to stdout; screenshots go to OUTDIR. Exits 1 on any failure.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [origin, executablePath, outDir] = process.argv.slice(2);
const axeSource = readFileSync(new URL("./node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
const failures = [];
const fail = (msg) => failures.push(msg);
const json = async (path, headers = {}) => {
  const res = await fetch(origin + path, { headers: { Accept: "application/json", ...headers } });
  return { status: res.status, body: await res.json() };
};
const near = (a, b) => Math.abs(Number(a) - Number(b)) <= 1e-9 * Math.max(1, Math.abs(Number(b)));

// compare: path → function(page) returning the number of figures compared.
const pages = {
  "/": async (page) => {
    const cov = (await json("/coverage")).body;
    let n = 0;
    const symbols = await page.textContent('[data-figure="symbols"]');
    if (Number(symbols) !== cov.symbols.length) fail(`/: ${symbols} symbols, /coverage has ${cov.symbols.length}`);
    n++;
    for (const sym of ["ETHUSD", "BTCUSD", "TSLA"]) {
      const pv = (await json("/api/v1/preview?symbol=" + sym)).body;
      const last = pv.candles[pv.candles.length - 1];
      if (!last) { fail(`/: preview of ${sym} has no candle`); continue; }
      const raw = await page.getAttribute(`[data-row="${sym}"] [data-field="close"]`, "data-raw");
      if (!near(raw, last.close)) fail(`/: ${sym} close ${raw}, preview route ${last.close}`);
      n++;
    }
    const charts = await page.locator(".uplot").count();
    if (charts < 4) fail(`/: ${charts} charts drawn, want the 3 previews and the track record`);
    const paid = await page.locator('[data-table="paid-routes"] tbody tr').count();
    const pricing = (await json("/pricing?format=json")).body;
    const priced = JSON.stringify(pricing).match(/"path"/g)?.length ?? 0;
    if (paid === 0 || priced === 0) fail(`/: ${paid} paid routes listed, /pricing lists ${priced} paths`);
    return n + 1;
  },
  "/status": async (page) => {
    const st = (await json("/status")).body;
    let n = 0;
    for (const s of st.sources) {
      const row = page.locator(`[data-table="sources"] tr[data-row="${s.source}"]`);
      const trades = await row.locator('[data-field="trades"]').getAttribute("data-raw");
      if (Number(trades) !== s.trades) fail(`/status: ${s.source} trades ${trades}, JSON ${s.trades}`);
      const state = await row.locator('[data-field="state"]').getAttribute("data-raw");
      if (state !== s.state) fail(`/status: ${s.source} state ${state}, JSON ${s.state}`);
      n += 2;
    }
    return n;
  },
  "/coverage": async (page) => {
    const cov = (await json("/coverage")).body;
    const symbols = await page.textContent('[data-figure="symbols"]');
    if (Number(symbols) !== cov.symbols.length) fail(`/coverage: ${symbols} symbols, JSON ${cov.symbols.length}`);
    const counts = await page.$$eval('[data-table="symbols"] td[data-count]', (tds) => tds.reduce((s, td) => s + Number(td.dataset.count), 0));
    const sources = cov.symbols.reduce((s, x) => s + x.sources.length, 0);
    if (counts !== sources) fail(`/coverage: ${counts} sources listed, JSON ${sources}`);
    return 2;
  },
  "/track-record": async (page) => {
    const tr = (await json("/track-record")).body;
    let n = 0;
    for (const [h, s] of Object.entries(tr.horizons)) {
      const row = page.locator(`[data-table="horizons"] tr[data-row="${h}"]`);
      const samples = await row.locator('[data-field="samples"]').getAttribute("data-raw");
      const hit = await row.locator('[data-field="hitRate"]').getAttribute("data-raw");
      if (Number(samples) !== s.samples || !near(hit, s.hitRate)) fail(`/track-record: ${h} ${samples}/${hit}, JSON ${s.samples}/${s.hitRate}`);
      n++;
    }
    const logged = (await page.textContent('[data-figure="signalsLogged"]')).replace(/\D/g, "");
    if (Number(logged) !== tr.signalsLogged) fail(`/track-record: ${logged} signals logged, JSON ${tr.signalsLogged}`);
    if ((await page.locator(".uplot").count()) === 0) fail("/track-record: no chart drawn");
    return n + 1;
  },
  "/api/v1/datasets": async (page) => {
    const ds = (await json("/api/v1/datasets")).body;
    let n = 0;
    for (const k of ["symbols", "venues", "dates"]) {
      const v = await page.textContent(`[data-figure="${k}"]`);
      if (Number(v) !== ds[k].length) fail(`/api/v1/datasets: ${v} ${k}, JSON ${ds[k].length}`);
      n++;
    }
    return n;
  },
  "/checkout": async (page) => {
    const packs = await page.locator("form[data-checkout]").count();
    if (packs !== 3) fail(`/checkout: ${packs} packs, want 3`);
    for (const [name, price] of [["5", "5"], ["20", "20"], ["50", "50"]]) {
      const text = await page.textContent(`[data-figure="price-${name}"]`);
      if (!text.startsWith(price + " ")) fail(`/checkout: pack ${name} priced ${text}`);
    }
    return 4;
  },
};

const browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
// The machine running the tests may be busy (2 cores, make test runs packages in parallel).
context.setDefaultTimeout(90_000);
context.setDefaultNavigationTimeout(90_000);
await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
const report = { pages: [], checkout: {} };

// watch fails the page on console errors, uncaught exceptions, failed
// requests and error answers, and sums the bytes transferred.
function watch(page, label, { allowStatus = [] } = {}) {
  const w = { bytes: 0, pending: [] };
  page.on("console", (m) => { if (m.type() === "error") fail(`${label}: console error: ${m.text()}`); });
  page.on("pageerror", (e) => fail(`${label}: uncaught ${e.message}`));
  page.on("requestfailed", (r) => fail(`${label}: request failed ${r.url()}: ${r.failure()?.errorText}`));
  page.on("response", (r) => {
    if (r.status() >= 400 && !allowStatus.includes(r.status())) fail(`${label}: ${r.status()} for ${r.url()}`);
    w.pending.push(r.request().sizes().then((s) => { w.bytes += s.responseBodySize + s.responseHeadersSize; }).catch(() => {}));
  });
  return w;
}

async function axe(page, label) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () =>
    (await globalThis.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } }))
      .violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) })));
  for (const v of violations) fail(`${label}: accessibility: ${v.id} (${v.impact}) at ${v.nodes.join(", ")}`);
  return violations.length;
}

for (const [path, compare] of Object.entries(pages)) {
  const page = await context.newPage();
  const w = watch(page, path);
  const res = await page.goto(origin + path, { waitUntil: "networkidle" });
  if (!res.headers()["content-type"]?.startsWith("text/html")) fail(`${path}: answered ${res.headers()["content-type"]} to a browser`);
  const compared = await compare(page);
  const violations = await axe(page, path);
  await page.screenshot({ path: join(outDir, (path.replace(/\W+/g, "-").replace(/^-|-$/g, "") || "home") + ".png"), fullPage: true });
  await Promise.all(w.pending);
  if (w.bytes >= 200_000) fail(`${path}: ${w.bytes} bytes transferred, over 200 kB`);
  report.pages.push({ path, bytes: w.bytes, violations, compared });
  await page.close();
}

// The checkout: choose the 5 USD pack, pay, take the key, reload.
{
  const page = await context.newPage();
  watch(page, "checkout", { allowStatus: [410] });
  await page.goto(origin + "/checkout", { waitUntil: "networkidle" });
  await page.click("#buy-5");
  await page.waitForURL(/\/pay\/cs_test_/);
  await page.click("#pay");
  await page.waitForURL(/\/checkout\/success\?session_id=/);
  const sessionId = new URL(page.url()).searchParams.get("session_id");
  const key = (await page.textContent("#api-key")).trim();
  await axe(page, "/checkout/success");
  await page.click("button[data-copy]");
  await page.waitForFunction(() => document.getElementById("api-key-status").textContent !== "");
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  await page.screenshot({ path: join(outDir, "checkout-success.png"), fullPage: true });
  await page.reload({ waitUntil: "networkidle" });
  const again = await page.content();
  if (again.includes(key)) fail("/checkout/success: the key is shown again after a reload");
  const reloadState = (await page.textContent('[data-figure="state"]')).trim();
  await page.screenshot({ path: join(outDir, "checkout-reloaded.png"), fullPage: true });
  const after = await json("/api/v1/credits/checkout/session/" + sessionId);
  if (JSON.stringify(after.body).includes(key)) fail("session route: the key is answered after the page showed it");
  const balance = await json("/api/v1/credits/balance", { "X-API-Key": key });
  report.checkout = { key, copied, reloadState, sessionAfter: after.status, balanceMicroUsd: balance.body.balanceMicroUsd };
  await page.close();
}

await browser.close();
process.stdout.write(JSON.stringify(report) + "\n");
if (failures.length) {
  process.stderr.write(failures.join("\n") + "\n");
  process.exit(1);
}
