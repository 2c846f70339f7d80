/** Where elements are on screen, for the specs that check what a projector or a phone shows. */
import { expect, type Locator, type Page } from '@playwright/test';

export async function box(locator: Locator) {
  const found = await locator.boundingBox();
  if (!found) throw new Error('element is not laid out');
  return found;
}

/** Fails naming the element unless its whole box lies inside the viewport. */
export async function expectFullyInView(page: Page, testId: string): Promise<void> {
  const viewport = page.viewportSize()!;
  const { x, y, width, height } = await box(page.getByTestId(testId).first());
  const inside = x >= 0 && y >= 0 && x + width <= viewport.width + 0.5 && y + height <= viewport.height + 0.5;
  expect(inside, `${testId} at x ${x}, y ${y}, ${width}x${height} in a ${viewport.width}x${viewport.height} window`).toBe(true);
}
