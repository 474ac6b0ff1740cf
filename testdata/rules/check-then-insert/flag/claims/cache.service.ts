import Redis from "ioredis";

export class KeyCache {
  constructor(private readonly conn: Redis) {}

  // Named for a conditional set, yet its SET has no NX.
  async putIfAbsent(key: string, value: string, ttlSeconds: number) {
    return this.conn.set(key, value, "EX", ttlSeconds); // expect: check-then-insert
  }

  async store(key: string, value: string, ttl: number, onlyIfNotExists?: boolean) {
    if (onlyIfNotExists) {
      return await this.keyCache.set(key, value, { ttl }); // expect: check-then-insert
    }
    await this.keyCache.set(key, value, { ttl });
    return null;
  }
}
