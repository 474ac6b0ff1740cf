import { Injectable } from "@nestjs/common";
import { CacheService } from "./cache.service";

// A completed request's response is kept this long under its
// Idempotency-Key; the in-progress marker only while the request runs.
const IDEMPOTENCY_RESPONSE_TTL = 60 * 60; // expect: ttl-below-replay-horizon
const IDEMPOTENCY_PROGRESS_TTL = 60 * 5;

@Injectable()
export class IdempotencyInterceptor {
  constructor(private readonly cacheService: CacheService) {}

  async remember(key: string, body: string, done: boolean) {
    const ttl = done ? IDEMPOTENCY_RESPONSE_TTL : IDEMPOTENCY_PROGRESS_TTL;
    await this.cacheService.set(key, body, { ttl });
  }
}
