// What one computation of a command holds: its API clients and its figures, each made once and
// shared by whoever asks, keyed by what it depends on. A computation is a run, a --watch round or
// a fleet's profile: a new deadline starts a new one (Context.renewDeadline), so nothing fetched
// is served to a later refresh.
import { HttpClient, type HttpClientOptions } from './api/http.js';

export class FigureStore {
  readonly #clients = new Map<string, Promise<HttpClient>>();
  readonly #figures = new Map<string, Promise<unknown>>();
  readonly #values = new Map<string, unknown>();

  /** The client `key` names, made by `options` the first time it is asked for. */
  client(key: string, options: () => Promise<HttpClientOptions>): Promise<HttpClient> {
    let client = this.#clients.get(key);
    if (!client) {
      client = options().then((o) => new HttpClient(o));
      this.#clients.set(key, client);
    }
    return client;
  }

  /**
   * The figure `key` names (what it depends on, spelled out: `spend-per-model|START|END`),
   * computed the first time it is asked for; a failure is the same failure for every asker.
   */
  figure<T>(key: string, compute: () => Promise<T>): Promise<T> {
    let figure = this.#figures.get(key) as Promise<T> | undefined;
    if (!figure) {
      figure = compute();
      figure.then((value) => this.#values.set(key, value)).catch(() => undefined);
      this.#figures.set(key, figure);
    }
    return figure;
  }

  /** Whether the figure `key` names has been asked for (come or under way). */
  asked(key: string): boolean {
    return this.#figures.has(key);
  }

  /** The figure `key` names where it has come (undefined while it is being worked out, or never asked). */
  settled<T>(key: string): T | undefined {
    return this.#values.get(key) as T | undefined;
  }
}
