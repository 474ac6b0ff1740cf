import { Client } from "@upstash/qstash";

const qstash = new Client({ token: process.env.QSTASH_TOKEN ?? "" });

// Three redeliveries reach about half an hour: well inside Stripe's 24 h.
export async function queuePayout(invoiceId: string) {
  await qstash.publishJSON({
    url: `${process.env.APP_URL}/api/jobs/payouts`,
    retries: 3,
    body: { invoiceId },
  });
}

// Another route, which sends no keyed request.
export async function queueReport(day: string) {
  await qstash.publishJSON({
    url: `${process.env.APP_URL}/api/jobs/reports`,
    retries: 10,
    body: { day },
  });
}
