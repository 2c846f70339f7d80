/** The play bar's status line, and slow motion's figures. */
import { describe, expect, it } from 'vitest';
import { threeDecimals } from '../src/ui/panels/figureText';
import { playBarStatus, type PlayBarNow } from '../src/ui/panels/playBarStatus';

const now = (extra: Partial<PlayBarNow>): PlayBarNow => ({ worker: 'ready', busy: null, runStatus: 'idle', slowMotion: false, ...extra });

describe('play bar status', () => {
  it('says slow motion while a slow motion step is open, not the run’s idle', () => {
    expect(playBarStatus(now({}))).toBe('idle');
    expect(playBarStatus(now({ slowMotion: true }))).toBe('slow motion step: one stage at a time');
    expect(playBarStatus(now({ slowMotion: true, runStatus: null }))).toBe('slow motion step: one stage at a time');
  });

  it('puts a command in flight first, then a failed trainer, then the run', () => {
    expect(playBarStatus(now({ busy: 'Starting run', slowMotion: true }))).toBe('Starting run');
    expect(playBarStatus(now({ worker: 'failed', runStatus: null }))).toBe('the trainer did not start: see the message above');
    expect(playBarStatus(now({ runStatus: 'training' }))).toBe('training');
    expect(playBarStatus(now({ runStatus: null }))).toBe('no run yet: press Train');
    expect(playBarStatus(now({ worker: 'starting', runStatus: null }))).toBe('starting the trainer…');
  });
});

describe('slow motion figures', () => {
  it('never prints -0.000: a tiny negative KL reads 0.000', () => {
    expect(threeDecimals(-0.00004)).toBe('0.000');
    expect(threeDecimals(-0.0004999)).toBe('0.000');
    expect(threeDecimals(-0.0005)).toBe('-0.001');
    expect(threeDecimals(-0.25)).toBe('-0.250');
    expect(threeDecimals(0.1234)).toBe('0.123');
    expect(threeDecimals(12)).toBe('12.000');
  });
});
