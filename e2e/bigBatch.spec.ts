/**
 * Issue 26: every allowed setting trains or is refused up front. Prompts per step 256 and answers
 * per question 64, each inside its own range, would write 16,384 answers at once, more than the
 * browser can hold (it crashed after 85 s as "memory access out of bounds"): the lab refuses them
 * at once, beside the field, in the knobs' words, and Train starts nothing.
 */
import { expect, test } from '@playwright/test';

const REASON =
  'Prompts per step × Answers per question = 256 × 64 = 16,384 answers written at once would need about 32 GB of memory; ' +
  'the lab holds about 3.2 GB (1,638 answers at once): lower one of them';

test('256 prompts per step x 64 answers per question is refused up front with the reason, and Train starts nothing', async ({ page }) => {
  await page.goto('/');
  const train = page.getByTestId('train-button');
  await expect(train).toBeEnabled({ timeout: 60_000 });

  await page.getByTestId('knob-promptsPerStep').fill('256');
  await page.getByTestId('knob-groupSize').fill('64');
  await expect(page.getByTestId('knob-promptsPerStep-error')).toHaveText(REASON);

  await train.click();
  await expect(page.getByTestId('notice').filter({ hasText: REASON })).toHaveCount(1);
  await expect(page.getByTestId('run-item')).toHaveCount(0);

  // Lowering one of them is enough: the reason goes and the knobs are accepted.
  await page.getByTestId('knob-groupSize').fill('4');
  await expect(page.getByTestId('knob-promptsPerStep-error')).toHaveCount(0);
});
