/**
 * The lab page, built to fit one projected screen (1280x720): the play bar sticks to the top; under
 * it the three headline charts (accuracy, code-call frequency, response length) and the newest
 * answer; everything else is one click away in tabs. In presenter mode (from the URL) the knobs,
 * runs, sweep, evaluation and pretraining are hidden and the type is large.
 */
import { useLab, useLabShallow, useLabState } from './LabContext';
import { CallsHistogram } from './charts/CallsHistogram';
import { CodeLinesChart, CodeUseSharesChart } from './charts/codeUseCharts';
import { LogLogChart } from './charts/LogLogChart';
import { AccuracyChart, CallsPerResponseChart, CodeCallsChart, ResponseLengthChart, StepTimeChart } from './charts/runCharts';
import { AskModel } from './panels/AskModel';
import { BackendBadge } from './panels/BackendBadge';
import { ClusterExportPanel } from './panels/ClusterExportPanel';
import { ComparePanel } from './panels/ComparePanel';
import { CopyLink } from './panels/CopyLink';
import { Controls } from './panels/Controls';
import { CurrentRollout } from './panels/CurrentRollout';
import { EvaluationPanel } from './panels/EvaluationPanel';
import { ExperimentPanel } from './panels/ExperimentPanel';
import { GlossaryDialog } from './panels/GlossaryDialog';
import { LabTabs, type LabTab } from './panels/LabTabs';
import { Notices } from './panels/Notices';
import { PanelBoundary } from './panels/PanelBoundary';
import { PretrainPanel } from './panels/PretrainPanel';
import { RolloutInspector } from './panels/RolloutInspector';
import { RestartQuestion } from './panels/RestartQuestion';
import { RunList } from './panels/RunList';
import { SandboxHostingBanner } from './panels/SandboxHostingBanner';
import { SweepPanel } from './panels/SweepPanel';
import { Term } from './panels/Term';
import { WhatYouAreWatching } from './panels/WhatYouAreWatching';
import { selectedRun } from './state/labStore';
import { labPreset } from './state/presets';
import type { HidablePart } from './state/urlState';

export function App() {
  const { store } = useLab();
  const presenter = useLabState((s) => s.presenter);
  const hidden = useLabShallow((s) => s.hidden);
  const shows = (part: HidablePart) => !hidden.includes(part);
  // The caption names the run on the charts (the knobs may already hold the next run's settings).
  const presetLabel = useLabState((s) => {
    const preset = selectedRun(s)?.preset ?? s.preset;
    return labPreset(preset)?.label ?? preset;
  });
  const nmax = useLabState((s) => (selectedRun(s)?.config ?? s.config).nmax);
  const algorithm = useLabState((s) => (selectedRun(s)?.config ?? s.config).algorithm);
  const seed = useLabState((s) => (selectedRun(s)?.config ?? s.config).seed);
  // A part that failed to draw tries again when another run is shown.
  const shownRunId = useLabState((s) => s.selectedRunId);

  const tabs: LabTab[] = [
    { id: 'inspector', label: 'All answers', content: <RolloutInspector limit={presenter ? 4 : 12} /> },
    { id: 'ask', label: 'Ask the model', content: <AskModel /> },
    {
      id: 'charts',
      label: 'More charts',
      content: (
        <section className="charts-grid" aria-label="More plots">
          <CallsPerResponseChart />
          <CodeUseSharesChart />
          <CodeLinesChart />
          <LogLogChart />
          <CallsHistogram />
          <StepTimeChart />
        </section>
      ),
    },
  ];
  if (!presenter) {
    tabs.push(
      { id: 'compare', label: 'Compare runs', content: <ComparePanel /> },
      { id: 'evaluation', label: 'Evaluation', content: <EvaluationPanel /> },
      { id: 'sweep', label: 'Nmax sweep', content: <SweepPanel /> },
      { id: 'pretrain', label: 'Pretraining', content: <PretrainPanel /> },
    );
  }

  return (
    <div className={[presenter ? 'lab presenter' : 'lab', shows('sidebar') ? '' : 'no-sidebar'].join(' ').trim()} data-testid="lab">
      <header className="topbar" data-testid="topbar">
        <div className="topbar-row">
          <h1>
            <Term term="TIR" /> Lab
          </h1>
          <WhatYouAreWatching />
          <GlossaryDialog />
          <CopyLink />
          {shows('backend') && <BackendBadge />}
          <button
            type="button"
            className="presenter-toggle"
            data-testid="presenter-toggle"
            onClick={(event) => {
              store.setState({ presenter: !presenter });
              // A click leaves no focus on the button, so the teacher's next Space trains instead of leaving presenter mode.
              if (event.detail > 0) event.currentTarget.blur();
            }}
          >
            {presenter ? 'Exit presenter mode' : 'Presenter mode'}
          </button>
        </div>
        {/* A line of its own under the buttons, read whole at 1280 px: the tagline, or in presenter mode the run on the charts. */}
        {presenter ? (
          <p className="presenter-caption" data-testid="presenter-caption">
            {presetLabel}{' '}
            <span className="presenter-knobs">
              Nmax {nmax} · {algorithm.toUpperCase()} · seed {seed}
            </span>
          </p>
        ) : (
          <p className="tagline" data-testid="tagline">
            A tiny language model learns, from <Term term="outcome reward" /> alone, to write Python, run it and use the answer.
          </p>
        )}
      </header>
      <PanelBoundary part="the play bar" resetKey={shownRunId}>
        <Controls compact={presenter} />
        <RestartQuestion />
      </PanelBoundary>
      <SandboxHostingBanner />
      <Notices />
      <main className="layout">
        {!presenter && shows('sidebar') && (
          <aside className="sidebar">
            <PanelBoundary part="the settings" resetKey={shownRunId}>
              <ExperimentPanel />
            </PanelBoundary>
            <PanelBoundary part="the run list" resetKey={shownRunId}>
              <RunList />
            </PanelBoundary>
            <PanelBoundary part="the export">
              <ClusterExportPanel />
            </PanelBoundary>
          </aside>
        )}
        <div className="content">
          <PanelBoundary part="the charts" resetKey={shownRunId}>
            <section className="headline-charts" aria-label="Live plots" data-testid="headline-charts">
              <AccuracyChart />
              <CodeCallsChart />
              <ResponseLengthChart />
            </section>
          </PanelBoundary>
          {shows('latest') && (
            <PanelBoundary part="the newest answer" resetKey={shownRunId}>
              <CurrentRollout />
            </PanelBoundary>
          )}
          {shows('tabs') && (
            <PanelBoundary part="the tabs" resetKey={shownRunId}>
              <LabTabs
                tabs={tabs.map((tab) => ({
                  ...tab,
                  content: (
                    <PanelBoundary part={`the tab "${tab.label}"`} resetKey={shownRunId}>
                      {tab.content}
                    </PanelBoundary>
                  ),
                }))}
              />
            </PanelBoundary>
          )}
        </div>
      </main>
    </div>
  );
}
