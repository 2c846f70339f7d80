/**
 * A lesson that cannot go wrong (issue 26, points 5 and 6), in the browser: the glossary and "What
 * am I watching?" open at their top from the main screen and by key, terms on screen carry their
 * explanation; a link's bad values are said in one notice that floats over the page and leaves by
 * itself, and a refused choice shows itself; presenter mode keeps the play bar, the charts and the
 * newest answer's first lines on a 1280x720 screen; Copy link; S, Space and slow motion from the
 * keyboard, and a phone's page no wider than the phone. Screenshots of the glossary go to
 * e2e/artifacts/.
 */
import { expect, test, type Page } from '@playwright/test';
import { GLOSSARY } from '../src/ui/glossary';
import { box, expectFullyInView } from './screenBoxes';

const ARTIFACTS = 'e2e/artifacts';
const PROJECTOR = { width: 1280, height: 720 };
const PHONE = { width: 390, height: 844 };
/** Three steps of 2 prompts x 2 short answers on wasm: a step takes seconds. */
const TINY_RUN = 'steps=3&promptsPerStep=2&groupSize=2&minibatchSize=4&maxResponseTokens=24&samplesPerStep=4&testEvery=1000';
const TRAINING_TIMEOUT = 180_000;

test.describe.configure({ timeout: 300_000 });

/** A dialog is open at its top: not scrolled, its heading and Close in view. */
async function expectOpenAtTop(page: Page, testId: string, titleId: string): Promise<void> {
  const dialog = page.getByTestId(testId);
  await expect(dialog).toBeVisible();
  expect(await dialog.evaluate((d) => d.scrollTop)).toBe(0);
  const viewport = page.viewportSize()!;
  for (const part of [page.locator(`#${titleId}`), page.getByTestId(`${testId}-close`)]) {
    const { y, height } = await box(part);
    expect(y >= 0 && y + height <= viewport.height, `${testId}: heading and Close in view`).toBe(true);
  }
}

/** The elements that reach past the window's right edge (the outermost of each), to name them when the page is too wide. */
function tooWide(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    for (const element of Array.from(document.querySelectorAll<HTMLElement>('body *'))) {
      const right = element.getBoundingClientRect().right;
      if (right <= width + 0.5 || element.getClientRects().length === 0) continue;
      if (element.parentElement && element.parentElement.getBoundingClientRect().right > width + 0.5) continue;
      found.push(`${element.tagName.toLowerCase()}.${element.className} (${element.dataset.testid ?? ''}) right ${Math.round(right)}`);
    }
    return found;
  });
}

test('the glossary and "What am I watching?" open at their top, by click or key, at 1280x720 and 390x844; terms on screen carry their explanation', async ({ page }) => {
  await page.setViewportSize(PROJECTOR);
  await page.goto('/?preset=classroom&backend=wasm');
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });

  // Words on the main screen carry their explanation as a title.
  await expect(page.locator('.tagline [data-term="outcome reward"]')).toHaveAttribute('title', GLOSSARY['outcome reward']);
  await expect(page.locator('h1 [data-term="TIR"]')).toHaveAttribute('title', GLOSSARY.TIR);
  await expect(page.getByTestId('backend-name').locator('[data-term="WASM"]')).toHaveAttribute('title', GLOSSARY.WASM);
  await expect(page.getByTestId('fork-button')).toHaveAttribute('title', `Fork: ${GLOSSARY.Fork}`);
  await expect(page.locator('label[for="base-model"] [data-term="base model"]')).toHaveAttribute('title', GLOSSARY['base model']);

  await page.getByTestId('glossary-button').click();
  await expectOpenAtTop(page, 'glossary', 'glossary-title');
  await expect(page.getByTestId('glossary-entry')).toHaveCount(Object.keys(GLOSSARY).length);
  await expect(page.getByTestId('glossary')).toContainText(GLOSSARY['saved @N']);
  await page.screenshot({ path: `${ARTIFACTS}/glossary-1280x720.png` });
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('glossary')).toBeHidden();

  // "?" opens the explanation, which lists the keys.
  await page.keyboard.press('?');
  await expectOpenAtTop(page, 'explainer', 'explainer-title');
  await expect(page.getByTestId('shortcut-list')).toContainText('Space Train, or Pause while training');
  await expect(page.getByTestId('shortcut-list')).toContainText('S one Step');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('explainer')).toBeHidden();

  await page.setViewportSize(PHONE);
  await page.getByTestId('explain-button').click();
  await expectOpenAtTop(page, 'explainer', 'explainer-title');
  await page.getByTestId('explainer-close').click();
  await page.getByTestId('glossary-button').click();
  await expectOpenAtTop(page, 'glossary', 'glossary-title');
  await page.screenshot({ path: `${ARTIFACTS}/glossary-390x844.png` });
  await page.getByTestId('glossary-close').click();
  await expect(page.getByTestId('glossary')).toBeHidden();
});

test("a link's bad values are said in one notice that floats over the page and leaves by itself; a refused choice shows itself", async ({ page }) => {
  await page.setViewportSize(PROJECTOR);
  const bad = ['preset=nope', 'seed=abc', 'nmax=', 'tierMix=1,2', 'sweep=1,x', 'hide=foo', 'start=nowhere'];
  await page.goto(`/?backend=wasm#${bad.join('&')}&algorithm=evil`);
  await expect(page.getByTestId('headline-charts')).toBeVisible({ timeout: 60_000 });

  const notice = page.getByTestId('notice');
  await expect(notice).toHaveCount(1);
  for (const problem of ["unknown preset 'nope'", 'seed=abc', 'nmax=', 'tierMix=1,2', 'sweep=1,x', 'foo', "unknown start 'nowhere'"]) await expect(notice).toContainText(problem);

  const algorithm = page.getByTestId('knob-algorithm');
  await expect(algorithm).toHaveValue('evil');
  await expect(algorithm.locator('option:checked')).toHaveText('evil (not a choice)');
  await expect(page.locator('.field-invalid').filter({ has: algorithm }).getByRole('alert')).toHaveText('“Algorithm” must be ppo, reinforce++ or grpo');

  const withNotice = await box(page.getByTestId('current-rollout'));
  await expect(notice).toHaveCount(0, { timeout: 20_000 });
  expect(await box(page.getByTestId('current-rollout')), 'the notice did not push the newest answer down').toEqual(withNotice);
});

test("presenter mode at 1280x720 keeps what normal mode shows: the play bar, the three charts and the newest answer's first lines", async ({ page }) => {
  await page.setViewportSize(PROJECTOR);
  const ids = ['play-bar', 'chart-accuracy', 'chart-code-calls', 'chart-response-length'];
  const rolloutTop: number[] = [];
  for (const presenter of [false, true]) {
    await page.goto(`/?preset=classroom&backend=wasm${presenter ? '&presenter=1' : ''}`);
    await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });
    for (const id of ids) await expectFullyInView(page, id);
    rolloutTop.push((await box(page.getByTestId('current-rollout'))).y);
  }
  console.log(`newest answer's top: normal ${rolloutTop[0]}, presenter ${rolloutTop[1]}`);
  // Presenter's larger type and charts take room: at least 160 px of the newest answer (its title and first lines) stay on screen.
  expect(rolloutTop[1] + 160, 'the newest answer shows its first lines in presenter mode').toBeLessThanOrEqual(PROJECTOR.height);
});

test('Copy link puts the address of the experiment on the clipboard', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.setViewportSize(PROJECTOR);
  await page.goto('/?preset=quick&backend=wasm&seed=5');
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('copy-link').click();
  await expect(page.getByTestId('copy-link')).toHaveText('Link copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(page.url());
  expect(new URL(copied).hash).toContain('seed=5');
});

test('on a phone, S steps, slow motion says so in the play bar, Space trains; the page is never wider than the phone', async ({ page }, testInfo) => {
  await page.setViewportSize(PHONE);
  await page.goto(`/?preset=quick&backend=wasm&seed=3#${TINY_RUN}`);
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });
  expect(await tooWide(page)).toEqual([]);
  for (const help of await page.locator('.help-toggle:visible').all()) {
    const { width, height } = await box(help);
    expect(Math.min(width, height), 'a "?" a finger can hit').toBeGreaterThanOrEqual(24);
  }

  await page.keyboard.press('s');
  await expect(page.getByTestId('step-counter')).toHaveText('1', { timeout: TRAINING_TIMEOUT });
  await expect(page.getByTestId('step-button')).toBeEnabled({ timeout: 60_000 });

  await page.getByTestId('slow-motion-button').click();
  await expect(page.getByTestId('run-status')).toHaveText('slow motion step: one stage at a time');
  await expect(page.getByTestId('slow-motion-finish')).toBeEnabled({ timeout: TRAINING_TIMEOUT });
  await page.getByTestId('slow-motion-finish').click();
  await expect(page.getByTestId('slow-motion-close')).toBeVisible({ timeout: TRAINING_TIMEOUT });
  await page.getByTestId('slow-motion-close').click();
  await expect(page.getByTestId('step-counter')).toHaveText('2');
  await expect(page.getByTestId('run-status')).not.toHaveText(/slow motion/);

  await page.keyboard.press(' ');
  await expect(page.getByTestId('step-counter')).toHaveText('3', { timeout: TRAINING_TIMEOUT });
  await expect(page.getByTestId('run-status')).toHaveText('finished');

  // Trained: the badge shows its speed and time split, and still fits, its backend menu on screen.
  expect(await tooWide(page)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await page.evaluate(() => window.scrollTo(0, 0));
  await expectFullyInView(page, 'backend-select');
  await page.screenshot({ path: testInfo.outputPath('plain-words-390x844.png'), fullPage: true });
});
