/**
 * The lab runs in one tab of a browser at a time (src/ui/labTab.ts). Two tabs once both opened the
 * lab on the same stored runs: a second tab showed a run the first was training as paused at the
 * step it was read, and its Train trained that run again from the first's newer checkpoint while
 * the first went on, each writing the run's steps and checkpoint. Here, in Debian Chromium with its
 * own Web Locks and BroadcastChannel (one browser context is one profile), a second tab waits;
 * "Use the lab here" moves the lab with every step the first tab showed saved, and back again.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { shownCurve } from './shownCurve';

const RUN = 'steps=40&promptsPerStep=2&groupSize=2&minibatchSize=4&maxResponseTokens=24&samplesPerStep=2&testEvery=5&filterLow=0&filterHigh=1';
const TRAINING_TIMEOUT = 180_000;

test.describe.configure({ timeout: 420_000 });

async function stepShown(page: Page): Promise<number> {
  return Number(await page.getByTestId('step-counter').textContent());
}

async function labReady(page: Page): Promise<void> {
  await expect(page.getByTestId('train-button')).toBeEnabled({ timeout: 60_000 });
}

async function otherTab(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto('/?backend=wasm');
  return page;
}

test('a second tab waits while the first trains; "Use the lab here" moves the lab, every step saved, and back', async ({ context }) => {
  const first = await context.newPage();
  await first.goto(`/?preset=quick&backend=wasm&seed=5#${RUN}`);
  await labReady(first);
  await first.getByTestId('train-button').click();
  await expect.poll(() => stepShown(first), { timeout: TRAINING_TIMEOUT }).toBeGreaterThanOrEqual(2);

  const second = await otherTab(context);
  await expect(second.getByTestId('other-tab')).toHaveAttribute('data-reason', 'elsewhere');
  await expect(second.getByTestId('lab')).toHaveCount(0);
  // The first tab trains on meanwhile.
  const whileWaiting = await stepShown(first);
  await expect.poll(() => stepShown(first), { timeout: TRAINING_TIMEOUT }).toBeGreaterThan(whileWaiting);

  await second.getByTestId('use-lab-here').click();
  await expect(first.getByTestId('other-tab')).toHaveAttribute('data-reason', 'moved', { timeout: TRAINING_TIMEOUT });
  await expect(first.getByTestId('lab')).toHaveCount(0);
  await labReady(second);
  await expect(second.getByTestId('run-status')).toHaveText('paused');
  const moved = await shownCurve(second);
  expect(moved.length).toBeGreaterThanOrEqual(whileWaiting + 2);

  // Nothing trains it any more: a reload reads the same steps (a tab's own reload keeps the lab).
  await second.waitForTimeout(3000);
  await second.reload();
  await labReady(second);
  expect(await shownCurve(second)).toEqual(moved);

  // Its state was saved at the last step shown: Train goes on without asking to delete steps.
  await second.getByTestId('train-button').click();
  const question = second.getByTestId('restart-question');
  await expect(question.or(second.getByTestId('run-status').filter({ hasText: 'training' }))).toBeVisible({ timeout: 60_000 });
  await expect(question).toHaveCount(0);
  await expect.poll(() => stepShown(second), { timeout: TRAINING_TIMEOUT }).toBeGreaterThanOrEqual(moved[moved.length - 1].step + 1);
  await second.getByTestId('pause-button').click();
  await expect(second.getByTestId('run-status')).toHaveText('paused', { timeout: TRAINING_TIMEOUT });
  const trainedOn = await shownCurve(second);
  expect(trainedOn.slice(0, moved.length)).toEqual(moved);

  // And back: the first tab takes the lab, with the steps the second trained.
  await first.getByTestId('use-lab-here').click();
  await expect(second.getByTestId('other-tab')).toHaveAttribute('data-reason', 'moved', { timeout: TRAINING_TIMEOUT });
  await labReady(first);
  expect(await shownCurve(first)).toEqual(trainedOn);
});

test('a tab closed while it had the lab lets the waiting tab take it', async ({ context }) => {
  const first = await context.newPage();
  await first.goto('/?backend=wasm');
  await labReady(first);
  const second = await otherTab(context);
  await expect(second.getByTestId('other-tab')).toHaveAttribute('data-reason', 'elsewhere');
  await first.close();
  await second.getByTestId('use-lab-here').click();
  await labReady(second);
});

test('without Web Locks (a page that is not a secure context) every tab opens the lab, unguarded', async ({ context }) => {
  // An insecure context has no navigator.locks (Web Locks is [SecureContext]); the lab must still start.
  await context.addInitScript(() => delete (Navigator.prototype as { locks?: unknown }).locks);
  const first = await context.newPage();
  await first.goto('/?backend=wasm');
  await labReady(first);
  const second = await otherTab(context);
  await labReady(second);
  await expect(second.getByTestId('other-tab')).toHaveCount(0);
});
