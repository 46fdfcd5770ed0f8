// End-to-end: cfg-bench serve with the built web app, driven in Debian's
// headless Chromium through playwright-core (no downloaded browser).
// Screenshots of each step go to artifacts/e2e/ (ignored by git).
//
// Needs: CFG_BENCH (path of the cfg-bench binary), CFG_LINT, PLAYWRIGHT_CORE_DIR
// (a node_modules folder holding playwright-core), web/dist built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(new URL('../..', import.meta.url).pathname);
const { chromium } = createRequire(join(process.env.PLAYWRIGHT_CORE_DIR, 'x.js'))('playwright-core');
const shots = join(root, 'artifacts', 'e2e');
mkdirSync(shots, { recursive: true });
const read = (p) => readFileSync(join(root, p), 'utf8');

function startServe(env = {}) {
  const runs = join(tmpdir(), `cfg-e2e-runs-${process.pid}`);
  // Port 0: the system picks a free one, and serve prints the URL it got.
  // The developer's own Hugging Face cache must not change what the page sees.
  const childEnv = { ...process.env, HF_HUB_CACHE: join(tmpdir(), 'cfg-e2e-no-hf-cache'), ...env };
  delete childEnv.HF_TOKEN;
  const child = spawn(process.env.CFG_BENCH, ['serve', '--port', '0', '--runs-dir', runs, '--web-dir', join(root, 'web/dist')], { cwd: root, env: childEnv });
  return new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/open (http:\/\/\S+)/);
      if (m) ok({ child, url: m[1] });
    });
    child.on('exit', (code) => fail(new Error(`cfg-bench serve exited ${code}: ${out}`)));
  });
}

test('the page validates, imports, exports and runs a load test', { timeout: 180_000 }, async () => {
  const { child, url } = await startServe();
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const figures = {};
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
    page.on('pageerror', (e) => console.error('page error:', e));
    await page.goto(url);
    await page.waitForFunction(() => window.__cfgReadyMs > 0);
    figures.interactive_ms = await page.evaluate(() => window.__cfgReadyMs);
    assert.ok(figures.interactive_ms > 0, 'the page says when it became interactive');
    await page.screenshot({ path: join(shots, '01-loaded.png'), fullPage: true });
    assert.equal(await page.getAttribute('#summary', 'data-errors'), '0', 'the example pair is clean');
    // A link copied from the address bar reproduces the files, never the token.
    assert.ok(!page.url().includes('token='), `the address bar shows the token: ${page.url()}`);

    // Break a field: the inline error appears next to it, with its code.
    const field = page.locator('input[data-pointer="/batching/max_num_batched_tokens"]');
    await field.fill('lots');
    const inline = page.locator('.field.has-diag .diag[data-code="CFG004"]');
    await inline.waitFor();
    assert.match(await inline.innerText(), /max_num_batched_tokens/);
    await page.screenshot({ path: join(shots, '02-broken-field.png'), fullPage: true });
    // Fix it: the error goes away.
    await field.fill('12288');
    await page.waitForSelector('.diag[data-code="CFG004"]', { state: 'detached' });

    // The GPU field searches the catalog as you type; a GPU named there redraws the memory picture.
    const gpu = page.locator('input[data-pointer="/hardware/gpu"]');
    assert.equal(await gpu.getAttribute('list'), 'catalog-gpus');
    assert.ok((await page.$$('#catalog-gpus option')).length >= 15, 'the catalog feeds the list');
    await gpu.fill('L4');
    await page.waitForSelector('.memory p:has-text("L4")');
    await gpu.fill('H100-80GB');
    await page.waitForSelector('.memory p:has-text("H100-80GB")');

    // Per-keystroke validation time on the example pair: 200 keystrokes.
    await page.evaluate(() => { window.__cfgLintMs = []; });
    for (let i = 0; i < 50; i++) {
      await field.fill('12288');
      await field.pressSequentially('000', { delay: 10 });
    }
    await field.fill('12288');
    const samples = await page.evaluate(() => window.__cfgLintMs.slice());
    samples.sort((a, b) => a - b);
    figures.keystrokes = samples.length;
    figures.lint_median_ms = samples[Math.floor(samples.length / 2)];
    figures.lint_p99_ms = samples[Math.min(samples.length - 1, Math.ceil(samples.length * 0.99) - 1)];

    // Import the SPEC's example pair through the text tabs: the tail class is flagged.
    await page.click('#tab-config');
    await page.fill('#text-config', read('examples/spec/config.toml'));
    await page.click('#tab-settings');
    await page.fill('#text-settings', read('examples/spec/settings.json'));
    await page.click('#tab-form');
    await page.waitForSelector('#diagnostics li[data-code="CFG501"][data-pointer="/request_distribution/tail"]');
    await page.waitForSelector('tr[data-class="tail"].has-diag');
    await page.screenshot({ path: join(shots, '03-spec-pair.png'), fullPage: true });
    const pageCodes = (await page.$$eval('#diagnostics li', (lis) => lis.map((l) => l.dataset.code))).sort();

    // Export both files and check them with cfg-lint: the same diagnostics.
    const dir = join(tmpdir(), `cfg-e2e-export-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    for (const [button, name] of [['#download-config', 'config.toml'], ['#download-settings', 'settings.json']]) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
      await download.saveAs(join(dir, name));
    }
    const lint = spawnSync(process.env.CFG_LINT, ['check', join(dir, 'config.toml'), join(dir, 'settings.json'), '--format', 'json']);
    assert.equal(lint.status, 1);
    const cliCodes = JSON.parse(lint.stdout).diagnostics.map((d) => d.code).sort();
    assert.deepEqual(cliCodes, pageCodes, 'cfg-lint reports what the page reports');

    // Back to a clean pair, then a short simulated run with live charts and a verdict.
    await page.click('#tab-config');
    await page.fill('#text-config', read('examples/config.toml'));
    await page.click('#tab-settings');
    await page.fill('#text-settings', read('tests/bench/quick-settings.json'));
    await page.click('#tab-form');
    await page.waitForSelector('#summary[data-errors="0"]');
    await page.fill('#duration', '4');
    await page.click('#start-run');
    await page.waitForFunction(() => Number(document.querySelector('#chart-throughput polyline')?.dataset.points || 0) >= 2, null, { timeout: 60_000 });
    await page.screenshot({ path: join(shots, '04-running.png'), fullPage: true });
    await page.waitForSelector('#verdict', { timeout: 120_000 });
    await page.screenshot({ path: join(shots, '05-verdict.png'), fullPage: true });
    assert.match(await page.innerText('#verdict'), /Verdict: SLA/);
    assert.match(await page.innerText('#verdict'), /Capacity plan/);
    // The run was archived by the runner; the page lists it.
    await page.click('#list-runs');
    await page.waitForSelector('#archive td:has-text("sim")');
  } finally {
    await browser.close();
    child.kill('SIGINT');
    writeFileSync(join(shots, 'figures.json'), JSON.stringify(figures, null, 2));
    console.log('browser figures:', JSON.stringify(figures));
  }
});

// A model no catalog has: the page reads its own config.json, fetched through
// cfg-bench serve from this machine's Hugging Face cache, or chosen on the page.
const ACME = JSON.stringify({
  architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096, intermediate_size: 14336,
  num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 128256,
  max_position_embeddings: 131072, rope_theta: 500000.0, torch_dtype: 'bfloat16',
});

test('the page checks a model by its own config.json', { timeout: 120_000 }, async () => {
  const cache = join(tmpdir(), `cfg-e2e-hf-${process.pid}`);
  const snap = join(cache, 'models--acme--chat-8b', 'snapshots', 'abc123');
  mkdirSync(snap, { recursive: true });
  mkdirSync(join(cache, 'models--acme--chat-8b', 'refs'), { recursive: true });
  writeFileSync(join(snap, 'config.json'), ACME);
  writeFileSync(join(snap, 'model.safetensors.index.json'), '{"metadata":{"total_size":16060522496},"weight_map":{}}');
  writeFileSync(join(cache, 'models--acme--chat-8b', 'refs', 'main'), 'abc123');
  const { child, url } = await startServe({ HF_HUB_CACHE: cache });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(url);
    await page.waitForSelector('main[data-ready="true"]');
    const config = read('examples/config.toml').replace(/^name = ".*"$/m, 'name = "acme/chat-8b"');
    await page.click('#tab-config');
    await page.fill('#text-config', config);
    await page.click('#tab-form');
    await page.waitForSelector('#diagnostics li[data-code="CFG312"]');
    // Fetched through the server, from its cache: the architecture is known, CFG312 goes.
    await page.click('#fetch-model-config');
    await page.waitForSelector('#diagnostics li[data-code="CFG312"]', { state: 'detached' });
    assert.match(await page.innerText('#model-files-note'), /snapshots\/abc123\/config.json/);
    await page.waitForSelector('#diagnostics li[data-code="CFG204"]');
    await page.screenshot({ path: join(shots, '06-model-config-fetched.png'), fullPage: true });
    // Back to the catalog, then the same file chosen on the page.
    await page.click('#forget-model-config');
    await page.waitForSelector('#diagnostics li[data-code="CFG312"]');
    await page.setInputFiles('#model-config-file', { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(ACME) });
    await page.waitForSelector('#diagnostics li[data-code="CFG312"]', { state: 'detached' });
    assert.match(await page.innerText('#model-files-note'), /chosen on the page/);
    // A name that is not a Hub id never becomes a path on the server.
    const token = new URL(url).hash.match(/token=([^&]+)/)[1];
    const refused = await page.evaluate(async (t) => (await fetch('/api/model-config?name=../../etc', { headers: { Authorization: `Bearer ${t}` } })).status, token);
    assert.equal(refused, 400);
  } finally {
    await browser.close();
    child.kill('SIGINT');
  }
});
