// A new user's path through the page hosted by a plain static file server
// (no runner): three choices make a clean pair, a break is caught and fixed,
// the files download and cfg-lint agrees; a model outside the catalog comes
// from a local Hub-shaped server; axe-core finds no serious accessibility
// problem; every start control is reachable by keyboard. Screenshots (wide
// and phone, light and dark) and the load/size figures go to artifacts/e2e/.
//
// Needs: CFG_LINT, PLAYWRIGHT_CORE_DIR (node_modules with playwright-core and
// axe-core), web/dist built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = resolve(new URL('../..', import.meta.url).pathname);
const dist = join(root, 'web', 'dist');
const nodeModules = process.env.PLAYWRIGHT_CORE_DIR;
const requireFrom = createRequire(join(nodeModules, 'x.js'));
const { chromium } = requireFrom('playwright-core');
const axePath = requireFrom.resolve('axe-core/axe.min.js');
const shots = join(root, 'artifacts', 'e2e');
mkdirSync(join(shots, 'screens'), { recursive: true });

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json' };

function listen(handler) {
  const server = createServer(handler);
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, url: `http://127.0.0.1:${server.address().port}` })));
}

// Any static file server: this one knows nothing of the runner's API.
function staticServer() {
  return listen((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    // The floor of a page load on this machine and browser, for comparison.
    if (path === '/blank.html') { res.writeHead(200, { 'Content-Type': 'text/html' }); res.end('<!doctype html><title>blank</title><p>blank'); return; }
    let file = join(dist, path);
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!file.startsWith(dist) || !existsSync(file)) { res.writeHead(404); res.end('not found'); return; }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream' });
    res.end(readFileSync(file));
  });
}

// Hugging Face's file layout: /<owner>/<name>/resolve/main/<file>, with the
// CORS header the real Hub sends; a gated model answers 401.
const ACME = JSON.stringify({
  architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096, intermediate_size: 14336,
  num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 128256,
  max_position_embeddings: 131072, rope_theta: 500000.0, torch_dtype: 'bfloat16',
});
function hubServer(log) {
  return listen((req, res) => {
    log.push(req.url);
    const headers = { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/json' };
    if (req.url === '/acme/chat-8b/resolve/main/config.json') { res.writeHead(200, headers); res.end(ACME); return; }
    if (req.url === '/acme/chat-8b/resolve/main/model.safetensors.index.json') {
      res.writeHead(200, headers); res.end('{"metadata":{"total_size":16060522496},"weight_map":{}}'); return;
    }
    if (req.url.startsWith('/gated/')) { res.writeHead(401, headers); res.end('{"error":"gated"}'); return; }
    res.writeHead(404, headers); res.end('{"error":"not found"}');
  });
}

const summary = (page, key) => page.getAttribute('#summary', `data-${key}`);

test('a new user builds, breaks, fixes and downloads a pair on a static host', { timeout: 240_000 }, async () => {
  const hubLog = [];
  const web = await staticServer();
  const hub = await hubServer(hubLog);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const figures = {};
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${web.url}/?hub=${encodeURIComponent(hub.url)}`);
    await page.waitForSelector('main[data-ready="true"]');
    // No runner here: the run panel says how to get one.
    assert.match(await page.innerText('#run-instructions'), /cfg-bench serve/);

    // Three choices.
    await page.fill('#start-model', 'Qwen/Qwen2.5-7B-Instruct');
    await page.fill('#start-gpu', 'L4');
    await page.fill('#start-count', '1');
    await page.selectOption('#start-traffic', 'rag');
    await page.click('#build-pair');
    await page.waitForSelector('#plan li[data-key="model.max_model_len"]');
    assert.equal(await summary(page, 'errors'), '0');
    assert.equal(await summary(page, 'warnings'), '0', await page.innerText('#diagnostics'));
    assert.equal(await summary(page, 'verdict'), 'starts');
    await page.waitForSelector('#summary[data-predicted="true"]');
    assert.match(await page.innerText('#summary'), /predicted TTFT p99/);
    // A 7B model starts on one L4, but long RAG prompts queue: the page says
    // the SLA will be missed before anyone rents the GPU.
    assert.equal(await page.getAttribute('#predicted-ttft', 'data-over-sla'), 'true', await page.innerText('#summary'));
    const planned = await page.inputValue('input[data-pointer="/model/max_model_len"]');
    assert.ok(Number(planned) >= 14336 + 512, `max_model_len ${planned} fits the longest RAG class`);

    // Screenshots of the built pair: wide and phone, light and dark.
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: 1400, height: 900 });
      await page.screenshot({ path: join(shots, 'screens', `wide-${scheme}.png`) });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: join(shots, 'screens', `phone-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1400, height: 900 });

    // Accessibility, light and dark: no serious or critical violations.
    await page.addScriptTag({ path: axePath });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      const found = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
      assert.deepEqual(found, [], `axe, ${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // Every start control is reachable by keyboard, in reading order.
    // A fresh load (the state is in the URL), so Tab starts at the top.
    await page.reload();
    await page.waitForSelector('main[data-ready="true"]');
    const reached = [];
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName));
    }
    const order = ['start-model', 'start-gpu', 'start-count', 'start-traffic', 'fetch-model-config', 'model-config-file', 'build-pair'];
    const positions = order.map((id) => reached.indexOf(id));
    assert.ok(positions.every((p) => p >= 0), `not reached by Tab: ${order.filter((_, i) => positions[i] < 0)}; reached ${reached}`);
    assert.deepEqual([...positions].sort((a, b) => a - b), positions, `Tab order ${reached}`);

    // Break it: a context too short for the RAG classes. The page says so, at the class.
    const len = page.locator('input[data-pointer="/model/max_model_len"]');
    await len.fill('4096');
    await page.waitForSelector('#diagnostics li[data-code="CFG501"]');
    assert.notEqual(await summary(page, 'errors'), '0');
    await page.screenshot({ path: join(shots, '10-start-broken.png'), fullPage: true });
    // Its explanation is one click away, the text of `cfg-lint explain`.
    await page.click('#diagnostics li[data-code="CFG501"] details.explain summary');
    assert.match(await page.innerText('#diagnostics li[data-code="CFG501"] .doc'), /\*\*Fix:\*\*/);
    // Fix it.
    await len.fill(planned);
    await page.waitForSelector('#summary[data-errors="0"]');

    // Download both; cfg-lint passes them as the page did.
    const dir = join(tmpdir(), `cfg-e2e-start-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    for (const [button, name] of [['#download-config', 'config.toml'], ['#download-settings', 'settings.json']]) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
      await download.saveAs(join(dir, name));
    }
    const lint = spawnSync(process.env.CFG_LINT, ['check', join(dir, 'config.toml'), join(dir, 'settings.json'), '--format', 'json']);
    assert.equal(lint.status, 0, String(lint.stdout) + String(lint.stderr));
    const cliCodes = JSON.parse(lint.stdout).diagnostics.map((d) => d.code).sort();
    const pageCodes = (await page.$$eval('#diagnostics > li', (lis) => lis.map((l) => l.dataset.code))).sort();
    assert.deepEqual(cliCodes, pageCodes, 'cfg-lint reports what the page reports');

    // A model outside the catalog: its config.json from the (local) Hub, in the browser.
    await page.fill('#start-model', 'acme/chat-8b');
    assert.match(await page.innerText('#model-files-note'), /not in the catalog/);
    await page.click('#fetch-model-config');
    await page.waitForSelector('#model-files-note:has-text("resolve/main/config.json")');
    assert.ok(hubLog.includes('/acme/chat-8b/resolve/main/config.json'), hubLog.join(' '));
    await page.click('#build-pair');
    await page.waitForFunction(() => document.querySelector('input[data-pointer="/model/name"]')?.value === 'acme/chat-8b');
    assert.equal(await summary(page, 'errors'), '0', await page.innerText('#diagnostics'));
    assert.equal(await page.$('#diagnostics li[data-code="CFG312"]'), null, 'the fetched architecture is used');
    // The architecture fields stay hidden: the model is resolved.
    assert.equal(await page.$('[data-section="/model/architecture"]'), null);
    // A gated model: the page says what to do.
    await page.fill('#start-model', 'gated/model');
    await page.click('#fetch-model-config');
    await page.waitForSelector('#model-files-note:has-text("gated")');
    // Not a Hub id: never becomes a URL.
    const before = hubLog.length;
    await page.fill('#start-model', '../../etc');
    await page.click('#fetch-model-config');
    await page.waitForSelector('#model-files-note:has-text("not a Hugging Face id")');
    assert.equal(hubLog.length, before);
    assert.deepEqual(errors, [], 'no page errors');

    // Load to interactive, cold: five fresh browser contexts.
    const loads = [];
    for (let i = 0; i < 5; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const p = await ctx.newPage();
      await p.goto(web.url);
      await p.waitForFunction(() => window.__cfgReadyMs > 0);
      loads.push(await p.evaluate(() => window.__cfgReadyMs));
      await ctx.close();
    }
    loads.sort((a, b) => a - b);
    figures.load_to_interactive_ms = loads;
    figures.load_to_interactive_median_ms = loads[2];
    // The same five fresh loads of a blank page: what the machine adds to any page.
    const blanks = [];
    for (let i = 0; i < 5; i++) {
      const ctx = await browser.newContext();
      const p = await ctx.newPage();
      await p.goto(`${web.url}/blank.html`);
      blanks.push(await p.evaluate(() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd));
      await ctx.close();
    }
    blanks.sort((a, b) => a - b);
    figures.blank_page_median_ms = blanks[2];
    const wasm = readFileSync(join(dist, 'pkg', 'cfg_web_bg.wasm'));
    figures.wasm_bytes = wasm.length;
    figures.wasm_gzip_bytes = gzipSync(wasm, { level: 9 }).length;
  } finally {
    await browser.close();
    web.server.close();
    hub.server.close();
    writeFileSync(join(shots, 'start-figures.json'), JSON.stringify(figures, null, 2));
    console.log('start figures:', JSON.stringify(figures));
  }
});
