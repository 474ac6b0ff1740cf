import { redis } from "./upstash";
import { recordSale } from "./sales";

export async function onOrderPaid(orderId: string, amount: number) {
  const ok = await redis.set(`sale:order:${orderId}`, amount, { ex: 60 * 60 * 24 * 40, nx: true });
  if (!ok) {
    return { skipped: true };
  }
  await recordSale(orderId, amount);
  return { skipped: false };
}

// A plain SET whose answer is only logged, and a wrapper that hands the
// answer back bare: neither takes it for a claim.
export class Store {
  constructor(private readonly client: Client) {}

  async put(key: string, value: string, seconds: number): Promise<string | null> {
    const result = await this.client?.set(key, value, "EX", seconds);
    if (result === null) {
      console.error(`set ${key} was not performed`);
    }
    return result;
  }

  async putIfAbsent(key: string, value: string, seconds: number): Promise<string | null> {
    return await this.client?.set(key, value, "EX", seconds, "NX");
  }
}

// The previous value (GET) is an answer of another kind.
export async function swap(key: string) {
  const old = await redis.set(key, "1", { get: true, ex: 60 });
  if (!old) {
    return;
  }
}
