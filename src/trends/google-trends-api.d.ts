// The package ships no types. Each call resolves to Google's widget JSON as a
// string, or rejects (with `requestBody` when the answer was not JSON).
declare module 'google-trends-api' {
  interface Options {
    keyword: string | string[];
    startTime?: Date;
    endTime?: Date;
    geo?: string | string[];
    hl?: string;
    timezone?: number;
    category?: number;
    resolution?: string;
    granularTimeResolution?: boolean;
    agent?: unknown;
  }
  interface DailyOptions {
    geo: string;
    trendDate?: Date;
    hl?: string;
    agent?: unknown;
  }
  const api: {
    interestOverTime(options: Options): Promise<string>;
    relatedQueries(options: Options): Promise<string>;
    relatedTopics(options: Options): Promise<string>;
    interestByRegion(options: Options): Promise<string>;
    autoComplete(options: { keyword: string; hl?: string; agent?: unknown }): Promise<string>;
    dailyTrends(options: DailyOptions): Promise<string>;
  };
  export default api;
}
