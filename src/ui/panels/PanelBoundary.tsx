/**
 * A part of the page that fails to draw (a stored run the checks let through, a bug) shows why in
 * its place; the rest of the lab, the run list and its Delete buttons included, keeps working.
 * Without it React unmounts the whole page, on every visit while the bad run is stored. It tries
 * again when `resetKey` changes (another run shown).
 */
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { useLab, useLabState } from '../LabContext';
import { downloadRunFile } from '../files/download';

interface Props {
  /** What the part is, for the message: "the charts". */
  part: string;
  resetKey?: unknown;
  children: ReactNode;
}

interface State {
  error: Error | null;
  resetKey: unknown;
}

export class PanelBoundary extends Component<Props, State> {
  override state: State = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey === state.resetKey ? null : { error: null, resetKey: props.resetKey };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(`TIR Lab: ${this.props.part} could not be drawn`, error, info.componentStack);
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <section className="panel panel-broken" role="alert" data-testid="panel-broken">
        <p>
          {this.props.part[0].toUpperCase() + this.props.part.slice(1)} could not be drawn: {error.message.slice(0, 300)}. The rest of the lab works:
          show another run, or export or delete this one.
        </p>
        <ShownRunActions />
      </section>
    );
  }
}

/**
 * The shown run's file and its Delete, here as well as in the run list: the part that failed may be
 * the run list, or hidden (presenter mode), and the run must not be lost to a bug in drawing it.
 */
function ShownRunActions() {
  const { controller } = useLab();
  const id = useLabState((s) => s.selectedRunId);
  const name = useLabState((s) => (s.selectedRunId === null ? null : (s.runs[s.selectedRunId]?.name ?? null)));
  const busy = useLabState((s) => s.busy);
  if (id === null || name === null) return null;
  const exportRun = async () => {
    const text = await controller.exportRun(id);
    if (text) downloadRunFile(name, text);
  };
  return (
    <p className="file-buttons">
      <button type="button" data-testid="broken-export-run" disabled={busy !== null} onClick={() => void exportRun()}>
        Export run
      </button>
      <button
        type="button"
        data-testid="broken-delete-run"
        onClick={() => {
          if (confirm(`Delete “${name}” and its checkpoint?`)) void controller.deleteRun(id);
        }}
      >
        Delete run
      </button>
    </p>
  );
}
