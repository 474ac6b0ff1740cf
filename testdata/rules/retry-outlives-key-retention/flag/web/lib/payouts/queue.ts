import { Client } from "@upstash/qstash";

const qstash = new Client({ token: process.env.QSTASH_TOKEN ?? "" });

export async function queuePayout(invoiceId: string) {
  await qstash.publishJSON({
    url: `${process.env.APP_URL}/api/jobs/payouts`,
    retries: 6, // expect: retry-outlives-key-retention
    body: { invoiceId },
  });
}
