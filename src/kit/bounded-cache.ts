/**
 * Values made once per key and kept, the oldest dropped beyond `size`: what a process compiles again and again
 * (a JSON Schema validator per tool, per check, per run) is made once. A `make` that throws caches nothing.
 */
export class BoundedCache<V> {
  private readonly values = new Map<string, V>();

  constructor(private readonly size: number) {}

  get(key: string, make: () => V): V {
    let value = this.values.get(key);
    if (value === undefined) {
      value = make();
      if (this.values.size >= this.size) this.values.delete(this.values.keys().next().value!);
      this.values.set(key, value);
    }
    return value;
  }
}
