import express from "express";
import Stripe from "stripe";
import { eq } from "drizzle-orm";
import { db } from "./db";
import { processedEvents } from "./schema";

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "");
export const webhooks = express.Router();

// The dispute is refunded before the event is recorded: a redelivery that
// arrives while the refund is in flight finds no row and refunds again.
webhooks.post("/webhooks/stripe", async (req, res) => {
  const event = req.body as Stripe.Event;
  const seen = await db
    .select()
    .from(processedEvents)
    .where(eq(processedEvents.eventId, event.id));
  if (seen.length > 0) {
    return res.sendStatus(200);
  }
  const charge = event.data.object as Stripe.Charge;
  const refund = await stripe.refunds.create({ charge: charge.id });
  await db.insert(processedEvents).values({ eventId: event.id, refundId: refund.id }); // expect: key-recorded-after-effect
  return res.sendStatus(200);
});
