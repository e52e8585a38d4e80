// A run's providers as one gateway: each request goes to the first provider of
// the run's list that has the capability it needs (the providers' profiles),
// an explore part by part when no one provider answers all its parts. What no
// provider of the list can answer fails as "not available" (TrendsFailedError
// with notAvailable), which the steps record with the reason and go on.
import { capabilityOf, capabilityOfPart, type Capability } from '../domain/trends/capabilities.js';
import { answeringProvider, PROVIDERS, unavailableReason, type ProviderName, type Registry } from './registry.js';
import type { ExploreAnswer, ExplorePart, TrendsRequest, TrendsResponse } from '../domain/trends/answers.js';
import { TrendsFailedError, type TrendsFetchOptions, type TrendsGateway } from './gateway.js';

type Options = TrendsFetchOptions;

export class RoutedTrendsGateway implements TrendsGateway {
  constructor(
    readonly providers: readonly ProviderName[],
    private readonly gatewayOf: (provider: ProviderName) => TrendsGateway,
    private readonly registry: Registry = PROVIDERS,
  ) {}

  private answering(capability: Capability): ProviderName | undefined {
    return answeringProvider(this.providers, capability, this.registry);
  }

  async fetch(request: TrendsRequest, options?: Options): Promise<TrendsResponse> {
    if (request.kind !== 'explore') {
      const capability = capabilityOf(request);
      const provider = this.answering(capability);
      if (!provider) throw new TrendsFailedError(unavailableReason(capability, this.providers, this.registry), false, true);
      return this.gatewayOf(provider).fetch(request, options);
    }
    // Each part to the first provider that has it; one explore per provider (one request each).
    const byProvider = new Map<ProviderName, ExplorePart[]>();
    const unavailable: Array<[ExplorePart, string]> = [];
    for (const part of request.parts) {
      const provider = this.answering(capabilityOfPart(part));
      if (provider) byProvider.set(provider, [...(byProvider.get(provider) ?? []), part]);
      else unavailable.push([part, unavailableReason(capabilityOfPart(part), this.providers, this.registry)]);
    }
    if (byProvider.size === 1 && unavailable.length === 0) return this.gatewayOf([...byProvider.keys()][0]!).fetch(request, options);
    if (byProvider.size === 0) throw new TrendsFailedError(unavailable.map(([, reason]) => reason).join('; '), false, true);
    const answers = await Promise.all(
      [...byProvider].map(async ([provider, parts]) => {
        const answer = (await this.gatewayOf(provider).fetch({ ...request, parts }, options)) as ExploreAnswer & TrendsResponse;
        // Each part keeps the provenance of the answer it came from (the merged answer has several).
        for (const part of parts) {
          const value = answer[part];
          if (value && answer.provenance) answer[part] = { ...value, provenance: answer.provenance } as never;
        }
        return answer;
      }),
    );
    const merged: ExploreAnswer & TrendsResponse = { kind: 'explore', keywords: request.keywords, provenance: answers[0]!.provenance };
    for (const answer of answers) {
      for (const part of request.parts) if (answer[part] !== undefined) merged[part] = answer[part] as never;
      if (answer.missing) merged.missing = { ...merged.missing, ...answer.missing };
    }
    if (unavailable.length > 0) {
      merged.missing = { ...merged.missing, ...Object.fromEntries(unavailable) };
      merged.unavailable = unavailable.map(([part]) => part);
    }
    return merged;
  }
}
