/**
 * The lab's keyboard shortcuts, as data for the help to list and as a pure decision: which key
 * does what, and when a key belongs to what has the focus instead (typing in a field, a button's own
 * Space, a tab's arrows) and so is no shortcut.
 */
export type Shortcut = 'trainOrPause' | 'step' | 'help';

/** The keys and what they do, in the order the help lists them (slow motion's own keys included). */
export const SHORTCUT_HELP: [keys: string, does: string][] = [
  ['Space', 'Train, or Pause while training'],
  ['S', 'one Step'],
  ['?', 'open this explanation'],
  ['→ or N', 'next stage of a slow motion step'],
  ['Escape', 'close a window or a question'],
];

export interface KeyPress {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  repeat: boolean;
  /** What has the focus: its tag name and ARIA role, and whether it takes typing. */
  target: { tagName: string; role: string | null; editable: boolean } | null;
}

/** Fields take every key (a select finds options by letter); buttons, links and a details' summary take Space. */
const TYPING = /^(INPUT|TEXTAREA|SELECT)$/;
const PRESSED_BY_SPACE = /^(BUTTON|SUMMARY|A)$/;

export function shortcutFor(press: KeyPress): Shortcut | null {
  if (press.altKey || press.ctrlKey || press.metaKey || press.repeat) return null;
  const target = press.target;
  if (target && (TYPING.test(target.tagName) || target.editable || target.role === 'tab')) return null;
  if (press.key === ' ') return target && PRESSED_BY_SPACE.test(target.tagName) ? null : 'trainOrPause';
  if (press.key === 's' || press.key === 'S') return 'step';
  if (press.key === '?') return 'help';
  return null;
}

/** What Space or S does now: Space pauses a training run and trains an idle one; S steps an idle one. */
export function shortcutCommand(shortcut: Exclude<Shortcut, 'help'>, now: { idle: boolean; training: boolean }): 'train' | 'pause' | 'step' | null {
  if (shortcut === 'trainOrPause') return now.training ? 'pause' : now.idle ? 'train' : null;
  return now.idle ? 'step' : null;
}
