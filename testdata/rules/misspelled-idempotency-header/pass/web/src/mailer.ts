// Queues a batch of payout emails; the mail provider dedups on the key.
import { queue } from "./queue";

export async function queueBatch(batch: Email[], idempotencyKey: string) {
  await queue.enqueueJSON({
    url: "/api/jobs/send-batch",
    body: batch,
    headers: {
      "Idempotency-Key": idempotencyKey,
    },
  });
}

export function withRequestKey(key: string, init?: RequestInit): RequestInit {
  const headers = new Headers(init?.headers);
  headers.set("x-acme-request-idempotency-key", key);
  return { ...init, headers };
}

// Dashboard counters: the plural names a metric, not a header.
export const counters = {
  "Idempotency-Keys": 0,
  "stripe_idempotency-key_hits": 0,
};

export interface Email {
  to: string;
}
