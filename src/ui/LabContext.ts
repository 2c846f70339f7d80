/**
 * How components reach the lab: the store (read with a selector) and the controller (commands).
 * Views only read the store; every change goes through the controller or a store action.
 */
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { LabController } from './controller/labController';
import type { LabState, LabStore } from './state/labStore';

export interface Lab {
  store: LabStore;
  controller: LabController;
}

export const LabContext = createContext<Lab | null>(null);

export function useLab(): Lab {
  const lab = useContext(LabContext);
  if (!lab) throw new Error('useLab outside <LabContext.Provider>');
  return lab;
}

export function useLabState<T>(select: (state: LabState) => T): T {
  return useStore(useLab().store, select);
}

/** For a selector that builds a small object or array: equal when its fields are (zustand needs stable snapshots). */
export function useLabShallow<T>(select: (state: LabState) => T): T {
  return useStore(useLab().store, useShallow(select));
}
