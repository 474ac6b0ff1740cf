import express from "express";
import Stripe from "stripe";
import { Queue } from "bullmq";

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
const events = new Queue("stripe-events", { connection: { host: "redis" } });
export const router = express.Router();

router.post("/stripe", express.raw({ type: "application/json" }), async (req, res) => {
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(req.body, req.header("stripe-signature") ?? "", process.env.STRIPE_WEBHOOK_SECRET!);
  } catch {
    return res.sendStatus(400);
  }
  // The job id is the event id: BullMQ drops a second add while the job is kept.
  await events.add(event.type, event, {
    jobId: event.id,
    removeOnComplete: { age: 24 * 3600 }, // expect: ttl-below-replay-horizon
    removeOnFail: { age: 7 * 24 * 3600 },
  });
  res.sendStatus(200);
});
