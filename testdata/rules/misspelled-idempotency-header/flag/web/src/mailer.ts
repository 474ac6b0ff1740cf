// Queues a batch of payout emails; the mail provider dedups on the key.
import { queue } from "./queue";

export async function queueBatch(batch: Email[], idempotencyKey: string) {
  await queue.enqueueJSON({
    url: "/api/jobs/send-batch",
    body: batch,
    headers: {
      "Idempotency-Keys": idempotencyKey, // expect: misspelled-idempotency-header
    },
  });
}

export function withRequestKey(key: string, init?: RequestInit): RequestInit {
  const headers = new Headers(init?.headers);
  headers.set("x-acme-request-idempotency_key", key); // expect: misspelled-idempotency-header
  return { ...init, headers };
}

export interface Email {
  to: string;
}
