// Connection settings of the API. Idempotency claims share the queue's
// Redis unless IDEMPOTENCY_REDIS_URL names another one.
export const config = {
  redisUrl: process.env.REDIS_URL ?? "redis://localhost:6379",
  idempotencyRedisUrl: process.env.IDEMPOTENCY_REDIS_URL ?? process.env.REDIS_URL,
  pagesRedisUrl: process.env.PAGES_REDIS_URL,
};
