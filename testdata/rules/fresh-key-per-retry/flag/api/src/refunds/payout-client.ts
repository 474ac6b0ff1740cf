import { v4 as uuidv4 } from "uuid";

const PAYOUTS_URL = "https://payouts.example.com/v1/payouts";

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function sendPayout(accountId: string, cents: number): Promise<Response> {
  let last: unknown;
  for (let attempt = 0; attempt < 4; attempt++) {
    const key = uuidv4(); // expect: fresh-key-per-retry
    try {
      const res = await fetch(PAYOUTS_URL, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify({ accountId, cents }),
      });
      if (res.status < 500) return res;
      last = new Error(`payouts answered ${res.status}`);
    } catch (err) {
      last = err;
    }
    await sleep(500);
  }
  throw last;
}
