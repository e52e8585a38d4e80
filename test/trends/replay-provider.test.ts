// The replay provider over the recorded answers the repository carries (its
// default RECORDED_TRENDS_DIR): it serves what Google answered and refuses, by
// name, anything that was never recorded.
import { describe, expect, it } from 'vitest';
import { anchorTermFor } from '../../src/providers/registry.js';
import { RECORDED_ANCHOR, ReplayTrendsProvider } from '../../src/providers/replay/provider.js';
import { NotRecordedError } from '../../src/providers/contract.js';
import { REPLAY_DIR } from '../support/shared-data.js';

const replay = new ReplayTrendsProvider(REPLAY_DIR);

describe('replay provider', () => {
  it('serves the recorded country and city maps of the phrase against the recorded anchor', async () => {
    const countries = await replay.fetch({
      kind: 'interestByRegion',
      keywords: ['pizza', RECORDED_ANCHOR],
      timeframe: '12m',
      geo: '',
      resolution: 'COUNTRY',
    });
    const cities = await replay.fetch({
      kind: 'interestByRegion',
      keywords: ['pizza', RECORDED_ANCHOR],
      timeframe: '12m',
      geo: '',
      resolution: 'CITY',
    });
    if (countries.kind !== 'interestByRegion' || cities.kind !== 'interestByRegion') throw new Error('wrong kind');
    expect(countries.regions.find((r) => r.geoCode === 'US')).toMatchObject({ values: [97, 3], hasData: [true, true] });
    expect(cities.regions.every((r) => r.geoCode === '')).toBe(true);
    expect(countries.provenance).toMatchObject({ provider: 'replay', recordedTimeRange: '2021-01-01 2021-12-31' });
  });

  it("does not derive one keyword's map from a comparison (shares cannot be unmixed)", async () => {
    const alone = replay.fetch({ kind: 'interestByRegion', keywords: ['pizza'], timeframe: '12m', geo: '', resolution: 'COUNTRY' });
    await expect(alone).rejects.toBeInstanceOf(NotRecordedError);
    await expect(alone).rejects.toThrow(/replay has no recording of interest by country for "pizza" worldwide/);
    const regions = replay.fetch({
      kind: 'interestByRegion',
      keywords: ['pizza', 'bagel'],
      timeframe: '12m',
      geo: 'US',
      resolution: 'REGION',
    });
    await expect(regions).rejects.toBeInstanceOf(NotRecordedError);
  });

  it("derives one keyword's series from its recorded comparison column, and says so", async () => {
    const series = await replay.fetch({ kind: 'interestOverTime', keywords: ['pizza'], timeframe: '12m', geo: '' });
    if (series.kind !== 'interestOverTime') throw new Error(series.kind);
    expect(Math.max(...series.points.map((p) => p.values[0]!))).toBe(100);
    expect(series.provenance).toMatchObject({ derivedFrom: 'pizza + bagel' });
  });

  it('anchors replay runs on the recorded "bagel" unless TRENDS_ANCHOR says otherwise', () => {
    expect(anchorTermFor('replay', undefined)).toBe('bagel');
    expect(anchorTermFor('google', undefined)).toBe('weather');
    expect(anchorTermFor('synthetic', undefined)).toBe('weather');
    expect(anchorTermFor('replay', 'weather')).toBe('weather');
  });
});
