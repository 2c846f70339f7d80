/**
 * The classroom screen at a projector's 1280x720: the play bar and the three headline charts are
 * fully in view at the top without scrolling, the newest answer starts on the same screen (in
 * presenter mode no lower than in normal mode), the header's tagline is read whole, every choice of
 * the experiment panel's menus has room, the play bar
 * stays in view when the page scrolls, nothing moves when a step runs, and no legend shows uPlot's
 * "--" placeholder. On a 390x844 phone: one column, charts first and as wide as the screen, the
 * backend menu and the "?" buttons on screen and big enough for a finger. No y-axis title runs off
 * its chart, in either mode. Screenshots at 1280x720 (normal and presenter) and 390x844 are saved with
 * the test's output (test-results/classroomScreen-*).
 */
import { expect, test, type Page } from '@playwright/test';
import { box, expectFullyInView } from './screenBoxes';

const PROJECTOR = { width: 1280, height: 720 };
const PHONE = { width: 390, height: 844 };
/** Two steps of 2 prompts x 2 short answers on wasm: a step takes seconds. */
const TINY_RUN = 'steps=2&promptsPerStep=2&groupSize=2&minibatchSize=4&maxResponseTokens=24&samplesPerStep=4&testEvery=1000';
const TRAINING_TIMEOUT = 180_000;
const CONTROLS = ['play-bar', 'train-button', 'pause-button', 'step-button', 'reset-button', 'step-counter', 'run-progress'];
const HEADLINE_CHARTS = ['chart-accuracy', 'chart-code-calls', 'chart-response-length'];

test.describe.configure({ timeout: 300_000 });

/** Where each headline chart and the newest answer sit, to tell whether anything moved. */
async function layout(page: Page): Promise<number[]> {
  const positions: number[] = [];
  for (const id of [...HEADLINE_CHARTS, 'current-rollout']) {
    const { x, y, width } = await box(page.getByTestId(id));
    positions.push(Math.round(x), Math.round(y), Math.round(width));
  }
  return positions;
}

/** How many pixels of a chart's canvas have this colour (a series' stroke), give or take antialiasing. */
function pixelsOfColour(page: Page, testId: string, [r, g, b]: number[]): Promise<number> {
  return page
    .getByTestId(testId)
    .locator('canvas')
    .evaluate(
      (canvas: HTMLCanvasElement, colour) => {
        const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let count = 0;
        for (let i = 0; i < pixels.length; i += 4) {
          if (Math.abs(pixels[i] - colour[0]) + Math.abs(pixels[i + 1] - colour[1]) + Math.abs(pixels[i + 2] - colour[2]) < 30 && pixels[i + 3] > 200) count++;
        }
        return count;
      },
      [r, g, b],
    );
}

/** Fails unless the element's text is shown whole: not cut by its box (an ellipsis) and inside the window. */
async function expectWhole(page: Page, testId: string): Promise<void> {
  await expectFullyInView(page, testId);
  const { scrollWidth, clientWidth } = await page.getByTestId(testId).evaluate((e) => ({ scrollWidth: e.scrollWidth, clientWidth: e.clientWidth }));
  expect(scrollWidth, `${testId}'s text (${scrollWidth} px) fits its ${clientWidth} px`).toBeLessThanOrEqual(clientWidth);
}

/**
 * The headline charts whose y-axis title runs off the chart: uPlot draws the title along the plot's
 * height, centred on it, in the canvas that holds the plot and its axes, so a title too long for it
 * leaves ink on the canvas's top (or bottom) row in the title's strip at the left edge.
 */
function cutAxisTitles(page: Page): Promise<string[]> {
  return page.evaluate((ids) => {
    const TITLE_STRIP = 24;
    return ids.filter((id) => {
      const canvas = document.querySelector<HTMLCanvasElement>(`[data-testid=${id}] canvas`)!;
      const strip = Math.round(TITLE_STRIP * (canvas.width / canvas.clientWidth));
      const inked = (y: number) => {
        const row = canvas.getContext('2d')!.getImageData(0, y, strip, 1).data;
        for (let i = 3; i < row.length; i += 4) if (row[i] > 100) return true;
        return false;
      };
      return inked(0) || inked(canvas.height - 1);
    });
  }, HEADLINE_CHARTS);
}

/** Every legend value of the headline charts (uPlot writes "--" where it has none). */
async function legendValues(page: Page): Promise<string[]> {
  const values: string[] = [];
  for (const id of HEADLINE_CHARTS) values.push(...(await page.getByTestId(id).locator('.u-legend .u-value').allTextContents()));
  return values;
}

test('at 1280x720 the controls and the three headline charts fit on one screen, and stay put while a step runs', async ({ page }, testInfo) => {
  const missing: string[] = [];
  page.on('response', (response) => {
    if (response.status() === 404) missing.push(response.url());
  });
  await page.setViewportSize(PROJECTOR);
  await page.goto(`/?preset=quick&backend=wasm&seed=3#${TINY_RUN}`);
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });

  for (const id of [...CONTROLS, ...HEADLINE_CHARTS]) await expectFullyInView(page, id);
  const rollout = await box(page.getByTestId('current-rollout'));
  expect(rollout.y + 40, 'the newest answer starts on the first screen').toBeLessThan(PROJECTOR.height);
  await expectWhole(page, 'tagline');
  // Each headline chart names its axes, with units (drawn on the canvas, and written for screen readers).
  for (const [id, y] of [['chart-accuracy', 'share right'], ['chart-code-calls', 'share of answers'], ['chart-response-length', 'tokens per answer']]) {
    await expect(page.getByTestId(id).getByTestId('chart-axes')).toHaveText(`x axis: RL step; y axis: ${y}`);
  }
  // The explanation for a class is one click (or Enter) away, and Escape closes it.
  await page.getByTestId('explain-button').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('explainer')).toBeVisible();
  await expect(page.getByTestId('explainer')).toContainText('1 if the answer\'s final number is right, else 0');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('explainer')).toBeHidden();
  for (const id of [...CONTROLS, ...HEADLINE_CHARTS]) await expectFullyInView(page, id);

  const before = await legendValues(page);
  expect(before.length).toBeGreaterThanOrEqual(9);
  for (const value of before) expect(value).not.toMatch(/^\s*-*\s*$/);

  const resting = await layout(page);
  await page.getByTestId('step-button').click();
  await expect(page.getByTestId('step-button')).toBeDisabled();
  expect(await layout(page), 'nothing moves when the step starts').toEqual(resting);
  await expect(page.getByTestId('step-counter')).toHaveText('1', { timeout: TRAINING_TIMEOUT });
  expect(await cutAxisTitles(page)).toEqual([]);
  await expect(page.getByTestId('current-rollout-sample')).toBeVisible();
  expect(await layout(page), 'nothing moves when the step ends').toEqual(resting);

  // The first step draws its point: a line needs two, so a lone point is drawn as a dot.
  // (The batch accuracy's blue: its step-1 point stands alone; the held-out test's is at step 0.)
  await expect.poll(() => pixelsOfColour(page, 'chart-accuracy', [37, 99, 235])).toBeGreaterThan(5);

  // Each legend shows the newest value without a hover: step 1, and numbers for the series.
  await expect.poll(() => legendValues(page)).not.toContain('--');
  const accuracyLegend = page.getByTestId('chart-accuracy').locator('.u-legend');
  await expect(accuracyLegend.locator('.u-series').first().locator('.u-value')).toHaveText('1');
  await expect(accuracyLegend.locator('.u-series').nth(1).locator('.u-value')).toHaveText(/^\d+(\.\d+)?$/);
  for (const value of await legendValues(page)) expect(value).not.toMatch(/^\s*-*\s*$/);
  await page.screenshot({ path: testInfo.outputPath('classroom-1280x720.png') });

  // The page is longer than the window; scrolled to the bottom, the play bar is still there.
  const scrolled = await page.evaluate(() => {
    window.scrollTo(0, document.documentElement.scrollHeight);
    return window.scrollY;
  });
  expect(scrolled).toBeGreaterThan(200);
  for (const id of CONTROLS) await expectFullyInView(page, id);
  expect((await box(page.getByTestId('play-bar'))).y).toBeLessThanOrEqual(1);

  // Reset asks before it deletes a run's steps; keeping the run changes nothing, Escape closes the question too.
  await page.evaluate(() => window.scrollTo(0, 0));
  const resting2 = await layout(page);
  await page.getByTestId('reset-button').click();
  await expect(page.getByTestId('reset-confirm')).toContainText('Reset “quick Nmax 2 ppo seed 3” to step 0? Its curves, answers and checkpoint (1 step) are deleted.');
  expect(await layout(page), 'the question does not move the page').toEqual(resting2);
  await page.getByTestId('reset-confirm-no').click();
  await expect(page.getByTestId('reset-confirm')).toHaveCount(0);
  await page.getByTestId('reset-button').click();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('reset-confirm')).toHaveCount(0);
  await expect(page.getByTestId('step-counter')).toHaveText('1');
  await page.getByTestId('reset-button').click();
  await page.getByTestId('reset-confirm-yes').click();
  await expect(page.getByTestId('step-counter')).toHaveText('0', { timeout: 60_000 });
  await expect(page.getByTestId('run-list').getByTestId('run-item')).toHaveCount(1);
  // Nothing the page asked for was missing, and it names an icon that is served (Playwright does not
  // report the browser's own favicon request, so the icon is fetched here; without it, /favicon.ico 404s).
  expect(missing).toEqual([]);
  await expect(page.locator('link[rel=icon]')).toHaveCount(1);
  const icon = await page.locator('link[rel=icon]').getAttribute('href');
  const served = await page.request.get(new URL(icon!, page.url()).href);
  expect(served.status()).toBe(200);
  expect(served.headers()['content-type']).toContain('image/svg+xml');

  // The rest of the lab is one click away.
  await page.getByTestId('tab-compare').click();
  await expect(page.getByTestId('compare-panel')).toBeVisible();
  await expect(page.getByTestId('rollout-inspector')).toBeHidden();
  await page.getByTestId('tab-charts').click();
  await expect(page.getByTestId('chart-step-time')).toBeVisible();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('tab-compare')).toBeFocused();
  await expect(page.getByTestId('compare-panel')).toBeVisible();
});

test('presenter mode at 1280x720: the controls and the headline charts still fit on one screen, the newest answer no lower than in normal mode', async ({ page }, testInfo) => {
  await page.setViewportSize(PROJECTOR);
  await page.goto('/?preset=classroom&backend=wasm');
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });
  const normal = await box(page.getByTestId('current-rollout'));
  // A tiny run, so the step below is quick; the layout is the classroom preset's.
  await page.goto(`/?preset=classroom&backend=wasm&presenter=1#${TINY_RUN}`);
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });
  for (const id of [...CONTROLS, ...HEADLINE_CHARTS]) await expectFullyInView(page, id);
  await expect(page.getByTestId('tab-compare')).toHaveCount(0);
  const presenter = await box(page.getByTestId('current-rollout'));
  expect(presenter.y, `the newest answer's top in presenter mode (normal mode: ${normal.y})`).toBeLessThanOrEqual(normal.y);
  // The y-axis titles, in larger type, still fit beside their plots once a step has drawn the axes.
  await page.getByTestId('step-button').click();
  await expect(page.getByTestId('step-counter')).toHaveText('1', { timeout: TRAINING_TIMEOUT });
  expect(await cutAxisTitles(page)).toEqual([]);
  await page.screenshot({ path: testInfo.outputPath('presenter-1280x720.png') });
  // The header keeps to one line, the run on the charts named whole in it.
  await expectWhole(page, 'presenter-caption');
  expect((await box(page.getByTestId('presenter-caption'))).y + 10).toBeLessThan((await box(page.getByTestId('play-bar'))).y);
});

// Space on a focused button presses it: were the toggle to keep the focus its click gives, the
// teacher's next Space would leave presenter mode instead of training (seen in CI without the blur).
test('after a click on Presenter mode, Space trains and presenter mode stays', async ({ page }) => {
  await page.setViewportSize(PROJECTOR);
  await page.goto(`/?preset=classroom&backend=wasm#${TINY_RUN}`);
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('presenter-toggle').click();
  await expect(page.getByTestId('presenter-toggle')).toHaveText('Exit presenter mode');
  await expect(page.getByTestId('presenter-toggle')).not.toBeFocused();
  await page.keyboard.press(' ');
  await expect(page.getByTestId('step-counter')).toHaveText('2', { timeout: TRAINING_TIMEOUT });
  await expect(page.getByTestId('presenter-toggle')).toHaveText('Exit presenter mode');
});

test("at 1280x720 each menu of the experiment panel, More knobs open, has room for every one of its choices", async ({ page }) => {
  await page.setViewportSize(PROJECTOR);
  await page.goto('/?preset=classroom&backend=wasm');
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });
  await page.locator('.more-knobs summary').click();
  const cut = await page.locator('section.experiment select').evaluateAll((menus: HTMLSelectElement[]) => {
    // Chromium draws a menu's arrow in about 20 px beside its padding; the choice's text gets the rest.
    const ARROW = 20;
    const measure = document.createElement('canvas').getContext('2d')!;
    return menus.flatMap((menu) => {
      const style = getComputedStyle(menu);
      measure.font = `${style.fontSize} ${style.fontFamily}`;
      const room = menu.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - ARROW;
      return [...menu.options].filter((o) => measure.measureText(o.text).width > room).map((o) => `${menu.id}: "${o.text}" in ${Math.round(room)} px`);
    });
  });
  expect(cut).toEqual([]);
});

test('a link hides parts of the page (hide=sidebar,latest,tabs,backend), and keeps hiding them', async ({ page }) => {
  await page.setViewportSize(PROJECTOR);
  await page.goto('/?preset=classroom&backend=wasm&hide=sidebar,latest,tabs,backend');
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });
  for (const id of ['nmax-input', 'run-list', 'current-rollout', 'lab-tabs', 'backend-badge']) await expect(page.getByTestId(id)).toHaveCount(0);
  for (const id of [...CONTROLS, ...HEADLINE_CHARTS]) await expectFullyInView(page, id);
  // Without the sidebar the charts take the whole width.
  expect((await box(page.getByTestId('chart-accuracy'))).x).toBeLessThan(40);
  expect(new URL(page.url()).hash).toContain('hide=sidebar,latest,tabs,backend');
});

test('on a 390x844 phone the play bar comes first and nothing is wider than the screen', async ({ page }, testInfo) => {
  await page.setViewportSize(PHONE);
  await page.goto(`/?preset=quick&backend=wasm&seed=3#${TINY_RUN}`);
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });
  for (const id of ['train-button', 'step-button', 'step-counter', 'chart-accuracy']) {
    const { y } = await box(page.getByTestId(id));
    expect(y, `${id} is above the knobs`).toBeLessThan((await box(page.getByTestId('preset-select'))).y);
  }
  for (const id of ['train-button', 'step-button', 'reset-button', 'step-counter']) await expectFullyInView(page, id);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  for (const id of HEADLINE_CHARTS) {
    const { x, width } = await box(page.getByTestId(id));
    expect(x + width, `${id} fits the screen's width`).toBeLessThanOrEqual(PHONE.width);
    // One chart a row, as wide as the screen: not squeezed beside the others or the knobs.
    expect(width, `${id} is as wide as the screen`).toBeGreaterThanOrEqual(PHONE.width * 0.85);
  }
  await expectFullyInView(page, 'backend-select');
  for (const help of await page.locator('.help-toggle:visible').all()) {
    const { width, height } = await box(help);
    expect(Math.min(width, height), 'a "?" a finger can hit').toBeGreaterThanOrEqual(24);
  }
  await page.screenshot({ path: testInfo.outputPath('classroom-390x844.png') });
  await page.screenshot({ path: testInfo.outputPath('classroom-390x844-full.png'), fullPage: true });
});
