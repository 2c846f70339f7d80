/** The keyboard shortcuts: Space trains or pauses, S steps, ? opens the help; never while a field, a button or a tab has the keys. */
import { describe, expect, it } from 'vitest';
import { SHORTCUT_HELP, shortcutCommand, shortcutFor, type KeyPress } from '../src/ui/state/shortcuts';

const press = (key: string, extra: Partial<KeyPress> = {}): KeyPress => ({ key, altKey: false, ctrlKey: false, metaKey: false, repeat: false, target: { tagName: 'BODY', role: null, editable: false }, ...extra });

describe('keyboard shortcuts', () => {
  it('maps Space, S and ? on the page', () => {
    expect(shortcutFor(press(' '))).toBe('trainOrPause');
    expect(shortcutFor(press('s'))).toBe('step');
    expect(shortcutFor(press('S'))).toBe('step');
    expect(shortcutFor(press('?'))).toBe('help');
    expect(shortcutFor(press('x'))).toBeNull();
    expect(shortcutFor(press('s', { target: null }))).toBe('step');
  });

  it('leaves every key to a field, a tab or an editable element, Space to a button, and ignores modifiers and repeats', () => {
    for (const tagName of ['INPUT', 'TEXTAREA', 'SELECT']) {
      expect(shortcutFor(press('s', { target: { tagName, role: null, editable: false } })), tagName).toBeNull();
      expect(shortcutFor(press('?', { target: { tagName, role: null, editable: false } })), tagName).toBeNull();
      expect(shortcutFor(press(' ', { target: { tagName, role: null, editable: false } })), tagName).toBeNull();
    }
    for (const tagName of ['BUTTON', 'SUMMARY', 'A']) {
      expect(shortcutFor(press(' ', { target: { tagName, role: null, editable: false } })), tagName).toBeNull();
      expect(shortcutFor(press('s', { target: { tagName, role: null, editable: false } })), tagName).toBe('step');
      expect(shortcutFor(press('?', { target: { tagName, role: null, editable: false } })), tagName).toBe('help');
    }
    expect(shortcutFor(press(' ', { target: { tagName: 'DIV', role: 'tab', editable: false } }))).toBeNull();
    expect(shortcutFor(press('s', { target: { tagName: 'DIV', role: null, editable: true } }))).toBeNull();
    expect(shortcutFor(press('s', { ctrlKey: true }))).toBeNull();
    expect(shortcutFor(press('s', { metaKey: true }))).toBeNull();
    expect(shortcutFor(press('s', { altKey: true }))).toBeNull();
    expect(shortcutFor(press(' ', { repeat: true }))).toBeNull();
  });

  it('Space trains an idle run and pauses a training one; S steps an idle one only', () => {
    expect(shortcutCommand('trainOrPause', { idle: true, training: false })).toBe('train');
    expect(shortcutCommand('trainOrPause', { idle: false, training: true })).toBe('pause');
    expect(shortcutCommand('trainOrPause', { idle: false, training: false })).toBeNull();
    expect(shortcutCommand('step', { idle: true, training: false })).toBe('step');
    expect(shortcutCommand('step', { idle: false, training: true })).toBeNull();
  });

  it('lists every shortcut in the help, slow motion’s included', () => {
    expect(SHORTCUT_HELP.map(([keys]) => keys)).toEqual(['Space', 'S', '?', '→ or N', 'Escape']);
  });
});
