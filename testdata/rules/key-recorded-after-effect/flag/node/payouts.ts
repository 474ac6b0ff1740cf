import Redis from "ioredis";
import axios from "axios";

const redis = new Redis(process.env.REDIS_URL ?? "redis://localhost:6379");

export class PayoutService {
  async send(payoutId: string, amount: number, iban: string): Promise<void> {
    const key = `idem:payout:${payoutId}`;
    if (await redis.exists(key)) {
      return;
    }
    await axios.post("https://bank.example.com/v1/transfers", { amount, iban });
    await redis.set(key, "done"); // expect: key-recorded-after-effect, check-then-insert
  }
}
