const STRIPE_PAYOUTS = "https://api.stripe.com/v1/payouts";
const HOUR_MS = 60 * 60 * 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Keeps trying for two days, once an hour, with the same key.
export async function payout(payoutId: string, body: URLSearchParams): Promise<Response> {
  const key = `payout-${payoutId}`;
  for (let attempt = 0; attempt < 48; attempt++) { // expect: retry-outlives-key-retention
    const res = await fetch(`https://api.stripe.com/v1/payouts`, {
      method: "POST",
      headers: { Authorization: `Bearer ${process.env.STRIPE_SECRET_KEY}`, "Idempotency-Key": key },
      body,
    });
    if (res.ok || res.status < 500) return res;
    await sleep(HOUR_MS);
  }
  throw new Error(`payout ${payoutId} to ${STRIPE_PAYOUTS} did not go through`);
}
