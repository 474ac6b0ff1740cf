const STRIPE_PAYOUTS = "https://api.stripe.com/v1/payouts";
const MINUTE_MS = 60 * 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Keeps trying for six minutes, once a minute, with the same key.
export async function payout(payoutId: string, body: URLSearchParams): Promise<Response> {
  const key = `payout-${payoutId}`;
  for (let attempt = 0; attempt < 6; attempt++) {
    const res = await fetch(`https://api.stripe.com/v1/payouts`, {
      method: "POST",
      headers: { Authorization: `Bearer ${process.env.STRIPE_SECRET_KEY}`, "Idempotency-Key": key },
      body,
    });
    if (res.ok || res.status < 500) return res;
    await sleep(MINUTE_MS);
  }
  throw new Error(`payout ${payoutId} to ${STRIPE_PAYOUTS} did not go through`);
}
