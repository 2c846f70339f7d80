/**
 * Every knob's help is reachable without a mouse's hover: a "?" beside each label, reached with
 * Tab, that Enter (or Space, or a click) opens and closes and Escape closes, showing the
 * property's help from EXPERIMENT_PROPERTIES (core/experiment.ts). A screenshot with Nmax's help
 * open is saved with the test's output (test-results/knobHelp-*).
 */
import { expect, test } from '@playwright/test';
import { EXPERIMENT_PROPERTIES } from '../src/core/experiment';

const helpOf = (key: string) => EXPERIMENT_PROPERTIES.find((p) => p.key === key)!.help;

test("Tab reaches a knob's help, Enter shows and hides it, Escape closes it; every knob has one", async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/?preset=classroom&backend=wasm');
  await expect(page.getByTestId('preset-select')).toBeVisible({ timeout: 60_000 });

  // The first knob after the preset is Nmax: one Tab to its "?".
  await page.getByTestId('preset-select').focus();
  await page.keyboard.press('Tab');
  const nmaxHelp = page.getByTestId('nmax-input-help');
  await expect(nmaxHelp).toBeFocused();
  await expect(nmaxHelp).toHaveAccessibleName('What is “Nmax (code calls)”?');
  await expect(page.getByTestId('nmax-input-help-text')).toBeHidden();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('nmax-input-help-text')).toBeVisible();
  await expect(page.getByTestId('nmax-input-help-text')).toHaveText(helpOf('nmax'));
  await expect(nmaxHelp).toHaveAttribute('aria-expanded', 'true');
  await page.screenshot({ path: testInfo.outputPath('knob-help-1280x720.png') });
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('nmax-input-help-text')).toBeHidden();

  // The next Tab is the field itself, then the next knob's "?" (a choice: Algorithm); Space opens it, Escape closes it.
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('nmax-input')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('knob-algorithm-help')).toBeFocused();
  await page.keyboard.press('Space');
  await expect(page.getByTestId('knob-algorithm-help-text')).toHaveText(helpOf('algorithm'));
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('knob-algorithm-help-text')).toBeHidden();

  // Under "More knobs" a click works too, for a number, a choice and a mix.
  await page.getByText('More knobs').click();
  for (const [testId, key] of [['knob-gamma', 'gamma'], ['knob-klEstimator', 'klEstimator'], ['knob-kind', 'kindMix']]) {
    await page.getByTestId(`${testId}-help`).click();
    await expect(page.getByTestId(`${testId}-help-text`)).toHaveText(helpOf(key));
  }

  // Every property with a field has its "?" (the mixes once each, not per share), and Start from.
  const fields = EXPERIMENT_PROPERTIES.filter((p) => p.kind !== 'mix').length + 2 + 1;
  await expect(page.locator('.experiment .help-toggle')).toHaveCount(fields);
});
