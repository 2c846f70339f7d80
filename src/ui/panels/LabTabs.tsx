/**
 * Everything past the first screen, one click away: the rollout inspector, the other charts, the
 * run comparison, the held-out evaluation, the Nmax sweep and pretraining. Every tab stays mounted
 * (hidden when not chosen), so a half-filled form or a chosen reference run survives a tab switch.
 * Arrow keys move between tabs, as in the WAI-ARIA tabs pattern.
 */
import { useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export interface LabTab {
  id: string;
  label: string;
  content: ReactNode;
}

export function LabTabs({ tabs }: { tabs: LabTab[] }) {
  const [chosen, setChosen] = useState(tabs[0]?.id ?? '');
  const active = tabs.some((t) => t.id === chosen) ? chosen : (tabs[0]?.id ?? '');
  const buttons = useRef<Record<string, HTMLButtonElement | null>>({});

  const onKeyDown = (event: KeyboardEvent) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const index = tabs.findIndex((t) => t.id === active);
    const next = tabs[(index + step + tabs.length) % tabs.length].id;
    setChosen(next);
    buttons.current[next]?.focus();
  };

  return (
    <section className="lab-tabs" data-testid="lab-tabs">
      <div className="tab-list" role="tablist" aria-label="More of the lab" onKeyDown={onKeyDown}>
        {tabs.map((tab) => (
          <button
            type="button"
            key={tab.id}
            ref={(element) => {
              buttons.current[tab.id] = element;
            }}
            role="tab"
            id={`tab-${tab.id}`}
            data-testid={`tab-${tab.id}`}
            aria-selected={tab.id === active}
            aria-controls={`tab-panel-${tab.id}`}
            tabIndex={tab.id === active ? 0 : -1}
            className={tab.id === active ? 'tab tab-on' : 'tab'}
            onClick={() => setChosen(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {tabs.map((tab) => (
        <div key={tab.id} role="tabpanel" id={`tab-panel-${tab.id}`} aria-labelledby={`tab-${tab.id}`} className="tab-panel" hidden={tab.id !== active}>
          {tab.content}
        </div>
      ))}
    </section>
  );
}
