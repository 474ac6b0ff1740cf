import Stripe from "stripe";
import { Redis } from "@upstash/redis";

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);
const redis = Redis.fromEnv();

export async function POST(req: Request) {
  const body = await req.text();
  const sig = req.headers.get("stripe-signature")!;
  const event = stripe.webhooks.constructEvent(body, sig, process.env.STRIPE_WEBHOOK_SECRET!);
  if (await redis.get(`webhook-dedup:${event.id}`)) {
    return new Response("duplicate", { status: 200 });
  }
  await applyEvent(event);
  return new Response("ok");
}

async function applyEvent(event: Stripe.Event) {
  console.log(event.type);
}
