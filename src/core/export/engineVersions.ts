/** The engine releases the export was written against (read from their sources; nothing was run here). */
export const VERL_VERSION = '0.6.1';
/** verl's v0.6.1 tag; the ReTool recipe pins the same commit. */
export const VERL_COMMIT = 'd62da4950573d7a4b7ef2362337952e7ab59e78d';
export const OPENRLHF_VERSION = '0.11.0';
/** OpenRLHF's v0.11.0 tag. */
export const OPENRLHF_COMMIT = '3c3be6234e0cb353e76bb8019947db9dfe99fca7';

export type EngineName = 'verl' | 'openrlhf';
export const ENGINES: readonly EngineName[] = ['verl', 'openrlhf'];
/** Each engine as people write it, and with the release the export was written against. */
export const ENGINE_NAMES: Record<EngineName, string> = { verl: 'verl', openrlhf: 'OpenRLHF' };
export const ENGINE_RELEASES: Record<EngineName, string> = { verl: `verl ${VERL_VERSION}`, openrlhf: `OpenRLHF ${OPENRLHF_VERSION}` };
