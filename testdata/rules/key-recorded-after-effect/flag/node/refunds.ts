import express from "express";
import Stripe from "stripe";
import { PrismaClient } from "@prisma/client";

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "");
const prisma = new PrismaClient();
export const router = express.Router();

// The refund is made first and the key kept afterwards: a client that
// retries while the refund is in flight refunds twice.
router.post("/refunds", async (req, res) => {
  const key = req.header("Idempotency-Key");
  if (!key) {
    return res.status(400).json({ error: "Idempotency-Key required" });
  }
  const seen = await prisma.idempotencyKey.findUnique({ where: { key } });
  if (seen) {
    return res.status(200).json(JSON.parse(seen.response));
  }
  const refund = await stripe.refunds.create(
    { payment_intent: req.body.paymentIntentId, amount: req.body.amount },
    { idempotencyKey: key },
  );
  await prisma.idempotencyKey.create({ data: { key, response: JSON.stringify(refund) } }); // expect: key-recorded-after-effect
  return res.status(201).json(refund);
});
