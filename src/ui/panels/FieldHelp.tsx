/**
 * A knob's explanation on demand, for a mouse, a keyboard or a touch screen alike (a hover tooltip
 * is none of these): a "?" button beside the label, reached with Tab, that Enter, Space or a click
 * toggles and Escape closes; the text is the property's help from EXPERIMENT_PROPERTIES.
 */
import { useId, useState, type ReactNode } from 'react';

/** The toggle to put beside a field's label and the text to put under the field (both null without help). */
export function useFieldHelp(label: string, help: string | undefined, testId?: string): { toggle: ReactNode; text: ReactNode } {
  const [open, setOpen] = useState(false);
  const id = useId();
  if (!help) return { toggle: null, text: null };
  const toggle = (
    <button
      type="button"
      className="help-toggle"
      aria-label={`What is “${label}”?`}
      aria-expanded={open}
      aria-controls={id}
      data-testid={testId ? `${testId}-help` : undefined}
      onClick={() => setOpen(!open)}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          e.stopPropagation();
          setOpen(false);
        }
      }}
    >
      ?
    </button>
  );
  const text = (
    <p id={id} className="field-help" hidden={!open} data-testid={testId ? `${testId}-help-text` : undefined}>
      {help}
    </p>
  );
  return { toggle, text };
}
