/** `value` as HeldValues shows it: each change on screen for at least `minMs`, in order. */
import { useEffect, useRef, useState } from 'react';
import { HeldValues } from './heldValues';

export function useHeldValue<T>(value: T, minMs: number): T {
  const held = useRef<HeldValues<T> | null>(null);
  held.current ??= new HeldValues(value, minMs);
  const [shown, setShown] = useState(value);
  useEffect(() => {
    const values = held.current!;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const schedule = () => {
      const at = values.nextAt();
      if (at !== null) timer = setTimeout(tick, Math.max(0, at - performance.now()));
    };
    const tick = () => {
      setShown(values.advance(performance.now()));
      schedule();
    };
    setShown(values.push(value, performance.now()));
    schedule();
    return () => clearTimeout(timer);
  }, [value]);
  return shown;
}
