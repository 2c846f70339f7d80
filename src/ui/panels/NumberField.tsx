/**
 * A number input that keeps what is typed (a half-written "1e-" stays on screen) while the store
 * holds the parsed value, invalid or not: the message under the field says what is wrong.
 */
import { useEffect, useId, useState } from 'react';
import { typedNumber } from '../state/typedNumber';
import { useFieldHelp } from './FieldHelp';

export interface NumberFieldProps {
  label: string;
  value: number;
  error?: string;
  help?: string;
  testId?: string;
  disabled?: boolean;
  onChange: (value: number) => void;
}

export function NumberField({ label, value, error, help, testId, disabled, onChange }: NumberFieldProps) {
  const id = useId();
  const [draft, setDraft] = useState(() => String(value));
  const { toggle, text } = useFieldHelp(label, help, testId);
  // Follow the store when the value changes from elsewhere (a preset, a selected run, the URL).
  useEffect(() => {
    setDraft((current) => (typedNumber(current) === value || Number.isNaN(value) ? current : String(value)));
  }, [value]);
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <span className="field-label">
        <label htmlFor={id}>{label}</label>
        {toggle}
      </span>
      <input
        id={id}
        type="text"
        inputMode="decimal"
        value={draft}
        disabled={disabled}
        data-testid={testId}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => {
          setDraft(e.target.value);
          onChange(typedNumber(e.target.value));
        }}
      />
      {error && (
        <span className="field-error" id={`${id}-error`} role="alert" data-testid={testId ? `${testId}-error` : undefined}>
          {error}
        </span>
      )}
      {text}
    </div>
  );
}
