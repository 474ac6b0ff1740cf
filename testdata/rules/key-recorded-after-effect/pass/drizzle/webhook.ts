import express from "express";
import Stripe from "stripe";
import { eq } from "drizzle-orm";
import { db } from "./db";
import { processedEvents } from "./schema";

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "");
export const webhooks = express.Router();

// The event is claimed first: a redelivery's insert skips the duplicate,
// returns no row, and the refund is not made twice.
webhooks.post("/webhooks/stripe", async (req, res) => {
  const event = req.body as Stripe.Event;
  const claimed = await db
    .insert(processedEvents)
    .values({ eventId: event.id })
    .onConflictDoNothing({ target: processedEvents.eventId })
    .returning();
  if (claimed.length === 0) {
    return res.sendStatus(200);
  }
  const charge = event.data.object as Stripe.Charge;
  const refund = await stripe.refunds.create(
    { charge: charge.id },
    { idempotencyKey: `refund:${event.id}` },
  );
  await db
    .update(processedEvents)
    .set({ refundId: refund.id })
    .where(eq(processedEvents.eventId, event.id));
  return res.sendStatus(200);
});
