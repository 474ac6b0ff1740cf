import { NextResponse } from "next/server";
import { Redis } from "@upstash/redis";
import Stripe from "stripe";

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
const redis = Redis.fromEnv();

export async function POST(req: Request) {
  const body = await req.text();
  const signature = req.headers.get("stripe-signature") ?? "";
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(body, signature, process.env.STRIPE_WEBHOOK_SECRET!);
  } catch {
    return NextResponse.json({ error: "bad signature" }, { status: 400 });
  }
  const seen = await redis.set(`stripe:event:${event.id}`, "1", { nx: true, ex: 60 * 60 * 24 }); // expect: ttl-below-replay-horizon
  if (seen === null) {
    return NextResponse.json({ received: true, duplicate: true });
  }
  await handle(event);
  return NextResponse.json({ received: true });
}

async function handle(event: Stripe.Event) {
  if (event.type === "checkout.session.completed") {
    // fulfil the order
  }
}
