/** No knob reaches the worker unless configErrors passes it (and the start model fits the format). */
import { configErrors, type ExperimentConfig } from '../../core/experiment';
import { notify, type LabStore } from '../state/labStore';
import { screenErrors } from '../state/screenErrors';
import { startFormatError } from '../../core/archive/startFrom';
import { copyConfig } from '../state/urlState';

/** The knobs if configErrors passes them, else null and a notice (the fields show the messages). */
export function validKnobs(store: LabStore): ExperimentConfig | null {
  const { config, startFrom } = store.getState();
  const startError = startFormatError(startFrom, config.format);
  const errors = [...Object.values(screenErrors(configErrors(config))), ...(startError ? [startError] : [])];
  if (errors.length > 0) {
    notify(store, 'error', `fix the marked fields first: ${errors.join('; ')}`);
    return null;
  }
  return copyConfig(config);
}
