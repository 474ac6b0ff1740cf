import { Injectable } from "@nestjs/common";
import pRetry from "p-retry";
import { randomUUID } from "node:crypto";
import Stripe from "stripe";

@Injectable()
export class RefundService {
  private readonly stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "");

  async refund(paymentIntentId: string, amount: number): Promise<Stripe.Refund> {
    return pRetry(
      () =>
        this.stripe.refunds.create(
          { payment_intent: paymentIntentId, amount },
          { idempotencyKey: randomUUID() }, // expect: fresh-key-per-retry
        ),
      { retries: 5 },
    );
  }
}
