import express from "express";
import Stripe from "stripe";
import Redis from "ioredis";

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "");
const redis = new Redis(process.env.REDIS_URL ?? "redis://localhost:6379");
export const router = express.Router();

// The key is claimed with SET NX before the refund; the response replaces
// the claim once the refund is made.
router.post("/refunds", async (req, res) => {
  const key = req.header("Idempotency-Key");
  if (!key) {
    return res.status(400).json({ error: "Idempotency-Key required" });
  }
  const merchantId: string = res.locals.merchantId;
  const slot = `idem:refund:${merchantId}:${key}`;
  const won = await redis.set(slot, "pending", "NX");
  if (won !== "OK") {
    return res.status(409).json({ error: "request in progress or done" });
  }
  const refund = await stripe.refunds.create(
    { payment_intent: req.body.paymentIntentId, amount: req.body.amount },
    { idempotencyKey: key },
  );
  await redis.set(slot, JSON.stringify(refund), "XX");
  return res.status(201).json(refund);
});
